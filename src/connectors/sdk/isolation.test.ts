// The Ruby sandbox tried as an attacker would: a connector of one workspace leaves what it can
// (globals, constants, monkey-patched core classes and runtime, class variables, objects in
// memory) and a call of another workspace, on the same interpreter, looks for it; then the ways
// out (files, environment, sockets, processes, JavaScript) and the limits (time, memory, stack).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sqliteOnly } from '../../../test/test-database.ts';
import { startDemoApi, type DemoApi } from '../../../test/stand-ins/sdk-demo-api.ts';
import { createDirectHost } from './direct-host.ts';
import { installedRubySnapshotFile } from './ruby-sandbox.ts';
import { createConnectorRuntime, type ConnectorOutcome } from './runtime.ts';

// The Ruby runtime uses no database: its tests run once, in the SQLite suite.
const NO_DATABASE = sqliteOnly('the Ruby runtime uses no database');

// One worker: every call below runs on the same interpreter, the strongest case.
const runtime = createConnectorRuntime({
  workers: 1,
  memoryBytes: 48 * 1024 * 1024,
  snapshotFiles: [installedRubySnapshotFile()],
  timeoutMs: 15_000,
});
const host = createDirectHost();
let api: DemoApi;
before(async () => {
  api = await startDemoApi();
});
after(async () => {
  await runtime.close();
  await host.close();
  await api.close();
});

/** The attacker's connector: `plant` leaves things behind, `look` searches for what another left. */
const ATTACKER = String.raw`
{
  title: 'Attacker',
  connection: {
    authorization: { type: 'api_key', apply: lambda { |connection| headers('X-Api-Key' => connection['key']) } },
    base_uri: lambda { |connection| connection['base'] }
  },
  test: lambda { |connection| get('/key/me') },
  actions: {
    plant: {
      execute: lambda do |connection, input|
        secret = connection['key']
        $stolen = secret
        Object.const_set(:STOLEN, secret)
        Object.class_variable_set(:@@stolen, secret)
        String.class_eval { define_method(:upcase) { 'patched' } }
        Hash.class_eval { define_method(:to_json) { |*| 'patched' } }
        Switchboard::Host.singleton_class.send(:alias_method, :original_request, :request)
        Switchboard::Host.define_singleton_method(:request) do |op, fields = {}|
          $captured = (($captured || []) << fields.to_s)
          original_request(op, fields)
        end
        Switchboard::Runtime.define_singleton_method(:describe_error) { |*| { 'message' => $stolen } }
        Kernel.define_method(:error) { |*| raise 'hijacked' }
        @@leftover = [secret * 3] * 1000
        { planted: true }
      end
    },
    look: {
      execute: lambda do |connection, input|
        secret = input['secret']
        {
          global: $stolen,
          captured: $captured,
          constant: defined?(STOLEN) ? STOLEN : nil,
          class_variable: Object.class_variable_defined?(:@@stolen) ? Object.class_variable_get(:@@stolen) : nil,
          upcase: 'abc'.upcase,
          to_json: { a: 1 }.to_json,
          in_memory: ObjectSpace.each_object(String).count { |s| s.include?(secret) rescue false },
          host_patched: Switchboard::Host.respond_to?(:original_request),
          me: get('/key/me')['user']
        }
      end
    },
    fail: {
      execute: lambda { |connection, input| error('plain failure') }
    }
  }
}
`;

function call(
  workspaceId: number,
  path: string,
  params: Record<string, unknown> = {},
  scope?: string,
): Promise<ConnectorOutcome> {
  return runtime.invoke(
    {
      source: ATTACKER,
      connectorName: 'Attacker',
      workspaceId,
      ...(scope ? { scope } : {}),
      path,
      params: { settings: { base: api.url, key: 'k-123' }, ...params },
    },
    host,
  );
}

// The values are the connector's JSON: read freely in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function value(outcome: ConnectorOutcome): any {
  if (!outcome.ok) assert.fail(`expected success, got ${outcome.error.message}`);
  return outcome.value;
}

function ruby(source: string, workspaceId = 9): Promise<ConnectorOutcome> {
  return runtime.invoke(
    {
      source: `{ title: 'probe', test: lambda { |connection| ${source} } }`,
      connectorName: 'Probe',
      workspaceId,
      path: 'test',
    },
    host,
  );
}

describe('isolation between workspaces on one interpreter', { skip: NO_DATABASE }, () => {
  test('what workspace 1 plants, workspace 2 does not find: globals, constants, class variables, patches, objects in memory', async () => {
    const secret = 'k-123';
    assert.deepEqual(value(await call(1, 'actions.plant.execute')), { planted: true });
    // The same key (workspace, connector version, scope) keeps its interpreter state: this is what it would see.
    const same = value(await call(1, 'actions.look.execute', { input: { secret } }));
    assert.equal(same.global, secret);
    assert.equal(same.upcase, 'patched');

    const other = value(await call(2, 'actions.look.execute', { input: { secret } }));
    assert.deepEqual(other, {
      global: null,
      captured: null,
      constant: null,
      class_variable: null,
      upcase: 'ABC',
      to_json: '{"a":1}',
      // The only copies of the key are those of this call's own connection and input.
      in_memory: other.in_memory,
      host_patched: false,
      me: 'key-holder',
    });
    assert.ok(other.in_memory <= 4, `the key is in ${other.in_memory} strings of the other workspace's interpreter`);
  });

  test('another scope of the same workspace (another recipe) is isolated too', async () => {
    value(await call(3, 'actions.plant.execute', {}, 'recipe-1'));
    const other = value(await call(3, 'actions.look.execute', { input: { secret: 'k-123' } }, 'recipe-2'));
    assert.equal(other.global, null);
    assert.equal(other.upcase, 'ABC');
  });

  test('a patched runtime does not answer for the next workspace: its errors are its own', async () => {
    value(await call(4, 'actions.plant.execute'));
    const failed = await call(5, 'actions.fail.execute');
    assert.equal(failed.ok, false);
    if (!failed.ok) assert.match(failed.error.message, /plain failure$/);
  });

  test('workspaces taking turns on one interpreter, many times: each sees only its own', async () => {
    for (let round = 0; round < 3; round++) {
      for (const ws of [10, 11]) {
        const planted = await ruby(`$mine = (${ws}); $seen = ($seen || []) + [${ws}]; $seen`, ws);
        // Each call finds only what its own workspace's calls left, and here the other took a turn between.
        assert.deepEqual(value(planted), [ws]);
      }
    }
  });
});

describe('no way out of the interpreter', { skip: NO_DATABASE }, () => {
  test('no file system beyond the packed standard library, no environment of the server', async () => {
    const out = value(
      await ruby(`{
        read: (File.read('/etc/passwd') rescue $!.class.name),
        write: (File.write('/tmp/sb-escape', 'x') rescue $!.class.name),
        list: (Dir.entries('/').sort rescue $!.class.name),
        cwd: (Dir.pwd rescue $!.class.name),
        env: ENV.to_h,
        proc: (File.read('/proc/self/environ') rescue $!.class.name)
      }`),
    );
    assert.equal(out.read, 'Errno::ENOENT');
    assert.match(out.write, /^Errno::/);
    assert.equal(out.proc, 'Errno::ENOENT');
    assert.deepEqual(out.env, { TZ: 'UTC', LANG: 'C.UTF-8' });
    assert.ok(!JSON.stringify(out.list).includes('etc'), `the root lists ${JSON.stringify(out.list)}`);
  });

  test('no sockets, no processes', async () => {
    const probe = await ruby(`{
        socket: (begin; require('socket'); rescue LoadError => e; e.class.name; end),
        backtick: (begin; \`ls\`; rescue NotImplementedError, StandardError => e; e.class.name; end),
        system: (begin; system('echo escaped').inspect; rescue NotImplementedError, StandardError => e; e.class.name; end),
        spawn: (begin; Process.spawn('ls'); rescue NotImplementedError, StandardError => e; e.class.name; end),
        fork: (begin; fork; rescue NotImplementedError, StandardError => e; e.class.name; end)
      }`);
    const out = value(probe);
    assert.equal(out.socket, 'LoadError');
    // Each refuses (an error class) or starts nothing (no pid, no output).
    for (const key of ['backtick', 'spawn', 'fork'])
      assert.ok(out[key] === null || out[key] === '' || /Error/.test(String(out[key])), `${key}: ${out[key]}`);
    // Ruby's WebAssembly build answers `system` without running anything: no output came.
    assert.doesNotMatch(probe.logs, /escaped/);
  });

  test("Ruby's JavaScript bridge reaches nothing; exit! ends the interpreter; the next call runs on a fresh one", async () => {
    const js = await ruby(`require 'js'; JS.global[:process][:env].to_s`);
    assert.equal(js.ok, false);
    if (!js.ok) assert.match(js.error.message, /JavaScript is not available to connector code/);
    const exit = await ruby('exit!(3)');
    assert.equal(exit.ok, false);
    if (!exit.ok) assert.match(exit.error.message, /exit!/);
    assert.equal(value(await ruby('1 + 1')), 2);
  });
});

describe('limits', { skip: NO_DATABASE }, () => {
  test('a loop without end: stopped at the CPU time limit, the event loop kept turning, the next call works', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 20);
    const started = Date.now();
    const outcome = await runtime.invoke(
      {
        source: `{ title: 'l', test: lambda { |c| loop { } } }`,
        connectorName: 'Looper',
        workspaceId: 1,
        path: 'test',
        timeoutMs: 1500,
      },
      host,
    );
    clearInterval(timer);
    assert.equal(outcome.ok, false);
    if (!outcome.ok) {
      assert.equal(outcome.error.kind, 'cpu_time');
      assert.equal(outcome.error.message, 'Looper (test): the code ran longer than its time limit (1500 ms)');
    }
    assert.ok(ticks >= ((Date.now() - started) / 20) * 0.3, `the event loop ticked ${ticks} times`);
    assert.equal(value(await ruby('2 + 2')), 4);
  });

  test('time spent waiting for the server does not count as CPU time', async () => {
    const outcome = await runtime.invoke(
      {
        source: `{ title: 's', test: lambda { |c| sleep(1.2); 'rested' } }`,
        connectorName: 'Sleeper',
        workspaceId: 1,
        path: 'test',
        timeoutMs: 800,
      },
      host,
    );
    assert.equal(value(outcome), 'rested');
  });

  test('allocating without bound: NoMemoryError in the step, the interpreter stays usable', async () => {
    const outcome = await ruby(`a = []; loop { a << ('x' * 1_000_000) }`);
    assert.equal(outcome.ok, false);
    if (!outcome.ok) {
      assert.equal(outcome.error.kind, 'memory');
      assert.match(outcome.error.message, /^Probe \(test(, line 1)?\): failed to allocate memory/);
    }
    assert.equal(value(await ruby('[1, 2].sum')), 3);
  });

  test('recursion without end: SystemStackError with the line', async () => {
    const outcome = await runtime.invoke(
      {
        source: `{\n  title: 'r',\n  methods: { down: lambda { |n| call(:down, n + 1) } },\n  test: lambda { |c| call(:down, 0) }\n}`,
        connectorName: 'Recurser',
        workspaceId: 1,
        path: 'test',
      },
      host,
    );
    assert.equal(outcome.ok, false);
    if (!outcome.ok) {
      assert.equal(outcome.error.kind, 'stack');
      assert.match(outcome.error.message, /^Recurser \(test, line 3\): stack level too deep/);
    }
    const plain = await runtime.invoke(
      {
        source: `{\n  title: 'r',\n  test: lambda { |c| f = ->(n) { f.(n + 1) }; f.(0) }\n}`,
        connectorName: 'Recurser',
        workspaceId: 1,
        path: 'test',
      },
      host,
    );
    assert.equal(plain.ok, false);
    if (!plain.ok) {
      assert.equal(plain.error.rubyClass, 'SystemStackError');
      assert.match(plain.error.message, /^Recurser \(test, line 3\): stack level too deep/);
    }
    assert.equal(value(await ruby(':ok')), 'ok');
  });

  test("standard output beyond the log's limit is cut", async () => {
    const outcome = await ruby(`20_000.times { puts 'x' * 100 }; 'done'`);
    assert.equal(value(outcome), 'done');
    assert.ok(outcome.logs.length <= 64 * 1024, `the log holds ${outcome.logs.length} characters`);
  });
});
