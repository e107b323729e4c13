// The Ruby SDK runtime against a local stand-in API: methods, pick lists, triggers, Ruby code steps,
// the connector described as data, and bad input.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sqliteOnly } from '../../../test/test-database.ts';
import { sdkRuntimeKit } from '../../../test/sdk-runtime-kit.ts';
import { DEMO } from '../../../test/stand-ins/sdk-demo-connector.ts';
import { installedRubySnapshotFile } from './ruby-sandbox.ts';
import { createConnectorRuntime, type ConnectorHost as Host } from './runtime.ts';

// The Ruby runtime uses no database: its tests run once, in the SQLite suite.
const NO_DATABASE = sqliteOnly('the Ruby runtime uses no database');

const kit = sdkRuntimeKit();
const { runtime, host, settings, run, value } = kit;

describe('methods and pick lists', { skip: NO_DATABASE }, () => {
  test('methods.NAME takes its arguments; optional ones may be left out', async () => {
    assert.equal(value(await run('methods.format_name', { args: ['ada_lovelace'] })), 'Ada lovelace!');
    assert.equal(value(await run('methods.format_name', { args: ['x', '?'] })), 'X?');
  });

  test('pick lists without arguments, with the connection, with keyword arguments', async () => {
    assert.deepEqual(value(await run('pick_lists.colors')), [
      ['Red', 'red'],
      ['Blue', 'blue'],
    ]);
    assert.deepEqual(value(await run('pick_lists.records')), [
      ['record 1', 1],
      ['record 2', 2],
    ]);
    assert.deepEqual(value(await run('pick_lists.cities', { args: { country: 'FR' } })), [['Paris', 'paris']]);
  });
});

describe('triggers', { skip: NO_DATABASE }, () => {
  before(() => kit.api.resetRecords());

  test('poll: pages while can_poll_more, next_poll carried, dedup keys; poll_page one page', async () => {
    const all = value(await run('triggers.new_records.poll', { input: { since: 0 } }));
    assert.deepEqual(
      all.events.map((e: { id: number }) => e.id),
      [5, 4, 3, 2, 1],
    );
    assert.equal(all.can_poll_more, false);
    assert.equal(all.next_poll, 5);
    const page = value(await run('triggers.new_records.poll_page', { input: {}, closure: 2 }));
    assert.deepEqual(page, {
      events: [
        { id: 4, name: 'record 4' },
        { id: 3, name: 'record 3' },
      ],
      can_poll_more: true,
      next_poll: 4,
    });
    const events = value(await run('triggers.new_records.poll_events', { input: {}, closure: 4 }));
    assert.deepEqual(events.events, [{ event: { id: 5, name: 'record 5' }, dedup: '5@record 5' }]);
    assert.equal(value(await run('triggers.new_records.dedup', { input: { id: 9, name: 'n' } })), '9@n');
    assert.deepEqual(value(await run('triggers.new_records.output_fields')), [
      { name: 'id', type: 'integer' },
      { name: 'name' },
    ]);
  });

  test('webhook: subscribe with the webhook URL, notification maps payload, headers and params to events, unsubscribe', async () => {
    const subscribed = value(
      await run('triggers.record_hook.webhook_subscribe', { webhook_url: 'http://sb/webhooks/x', input: {} }),
    );
    assert.deepEqual(subscribed, { id: `h${kit.api.hooks.size}` });
    assert.equal(kit.api.hooks.get(subscribed.id), 'http://sb/webhooks/x');
    const events = value(
      await run('triggers.record_hook.webhook_notification', {
        input: {},
        payload: { records: [{ id: 1 }, { id: 2 }] },
        headers: { x_source: 'acme' },
        params: { filter: 'all' },
      }),
    );
    assert.deepEqual(events, [
      { id: 1, via: 'acme', filter: 'all' },
      { id: 2, via: 'acme', filter: 'all' },
    ]);
    value(await run('triggers.record_hook.webhook_unsubscribe', { webhook_subscribe_output: subscribed }));
    assert.equal(kit.api.hooks.has(subscribed.id), false);
  });
});

describe('Ruby code (runCode, for Ruby code steps)', { skip: NO_DATABASE }, () => {
  test('the last expression is the output; input at hand with indifferent access; the SDK methods too', async () => {
    const outcome = await runtime.runCode(
      {
        code: "total = input['items'].sum { |i| i[:price] * i['qty'] }\nrecords = get(\"#{input['base']}/records\")['items']\n{ total: total, first: records.first['name'], at: now.class.name }",
        input: {
          items: [
            { price: 2, qty: 3 },
            { price: 1, qty: 1 },
          ],
          base: kit.api.url,
        },
        workspaceId: 1,
      },
      host,
    );
    assert.deepEqual(value(outcome), { total: 7, first: 'record 1', at: 'Time' });
    const failed = await runtime.runCode({ code: "x = 1\nraise 'bad input'", input: {}, workspaceId: 1 }, host);
    assert.equal(failed.ok, false);
    if (!failed.ok) assert.equal(failed.error.message, 'Ruby code (code, line 2): bad input');
  });
});

describe('describe: the connector as data', { skip: NO_DATABASE }, () => {
  test('title, connection fields and authorization, actions, triggers by kind, problems', async () => {
    const out = value(await runtime.describe({ source: DEMO, connectorName: 'Acme', workspaceId: 1 }));
    assert.equal(out.title, 'Acme');
    assert.deepEqual(out.connection.authorization, {
      type: 'basic_auth',
      authorization_code: false,
      refresh: false,
      pkce: false,
    });
    assert.equal(out.connection.fields[0].name, 'base');
    assert.equal(out.actions.create_record.title, 'Create record');
    assert.equal(out.actions.search_records.title, 'Search records');
    assert.equal(out.triggers.new_records.kind, 'poll');
    assert.equal(out.triggers.record_hook.kind, 'webhook');
    assert.equal(out.triggers.record_hook.dynamic_webhook, true);
    assert.deepEqual(out.pick_lists, ['colors', 'records', 'cities']);
    assert.deepEqual(out.problems, []);
  });
});

describe('describe: kept per workspace and connector version', { skip: NO_DATABASE }, () => {
  // The title is drawn at random each time Ruby evaluates the source: an equal title is a kept description.
  const RANDOM_TITLE = '{ title: "Kept #{rand(1_000_000_000)}", actions: {} }';
  const one = createConnectorRuntime({
    workers: 1,
    memoryBytes: 64 * 1024 * 1024,
    snapshotFiles: [installedRubySnapshotFile()],
    descriptionsKept: 2,
  });
  after(() => one.close());
  const titleOf = async (workspaceId: number, sourceKey: string, source = RANDOM_TITLE) =>
    value(await one.describe({ source, sourceKey, connectorName: 'Kept', workspaceId })).title as string;

  test('the same version is described once; another version, another workspace or an evicted entry by Ruby again', async () => {
    const first = await titleOf(1, 'c:1');
    assert.match(first, /^Kept \d+$/);
    // Another workspace on the one interpreter: it goes back to the snapshot, so Ruby evaluates anew.
    const otherWorkspace = await titleOf(2, 'c:1');
    assert.notEqual(otherWorkspace, first);
    assert.equal(await titleOf(1, 'c:1'), first);
    // A new version of the connector is described by Ruby.
    const nextVersion = await titleOf(1, 'c:2', RANDOM_TITLE.replace('actions', 'triggers: {}, actions'));
    assert.notEqual(nextVersion, first);
    // Two kept at most here: workspace 2's entry was the oldest used, it is described again.
    assert.notEqual(await titleOf(2, 'c:1'), otherWorkspace);
  });

  test('a call after one that stopped the interpreter, same key: the source is evaluated again from what the worker kept', async () => {
    const source =
      "{ title: 'Again', actions: { ok: { execute: lambda { |_c, input| { n: input['n'] * 2 } } }, stop: { execute: lambda { |_c, _i| Kernel.exit!(1) } } } }";
    const run = (path: string, n = 1) =>
      one.invoke(
        {
          source,
          sourceKey: 'again:1',
          connectorName: 'Again',
          workspaceId: 3,
          path,
          params: { settings: {}, input: { n } },
        },
        host,
      );
    assert.deepEqual(value(await run('actions.ok.execute', 2)), { n: 4 });
    const stopped = await run('actions.stop.execute');
    assert.equal(stopped.ok, false);
    assert.deepEqual(value(await run('actions.ok.execute', 5)), { n: 10 });
  });

  test('answers of every size reach Ruby whole: small ones through shared memory, large ones as a message', async () => {
    const source =
      "{ title: 'Sizes', actions: { fetch: { execute: lambda { |_c, input| r = get(\"http://sizes.test/#{input['n']}\").response_format_raw; { size: r.size, tail: r[-3..] } } } } }";
    const sizes: Host = {
      http: (request) => {
        const n = Number(new URL(request.url).pathname.slice(1));
        const body = new TextEncoder().encode('é'.repeat(n) + 'end');
        return Promise.resolve({ status: 200, headers: { 'content-type': 'text/plain' }, body, url: request.url });
      },
    };
    for (const n of [1, 50_000, 200_000, 1_000_000]) {
      const out = await one.invoke(
        {
          source,
          sourceKey: 'sizes:1',
          connectorName: 'Sizes',
          workspaceId: 4,
          path: 'actions.fetch.execute',
          params: { input: { n } },
        },
        sizes,
      );
      assert.deepEqual(value(out), { size: n + 3, tail: 'end' }, `an answer of ${n} characters`);
    }
  });

  test('a description that fails is an outcome; each caller gets its own copy', async () => {
    const broken = await one.describe({ source: '{ title: ', sourceKey: 'b:1', connectorName: 'Kept', workspaceId: 1 });
    assert.equal(broken.ok, false);
    const copy = value(
      await one.describe({ source: RANDOM_TITLE, sourceKey: 'c:9', connectorName: 'Kept', workspaceId: 1 }),
    );
    copy.title = 'changed by a caller';
    const again = value(
      await one.describe({ source: RANDOM_TITLE, sourceKey: 'c:9', connectorName: 'Kept', workspaceId: 1 }),
    );
    assert.match(again.title, /^Kept \d+$/);
  });
});

describe('bad input: a clear error naming the connector, the path and the line', { skip: NO_DATABASE }, () => {
  test('Ruby that does not parse', async () => {
    const outcome = await run('test', {}, "{\n  title: 'x',\n  test: lambda do |c|\n    get('/a'\n  end\n}");
    assert.equal(outcome.ok, false);
    if (!outcome.ok) {
      assert.equal(outcome.error.kind, 'syntax');
      assert.match(outcome.error.message, /^Acme \(test, line \d\): syntax error/);
      assert.doesNotMatch(outcome.error.message, /\u001b/);
    }
  });

  test('a hash without a title, and a source that is not a hash', async () => {
    const noTitle = await run('test', {}, '{ test: lambda { true } }');
    assert.equal(noTitle.ok, false);
    if (!noTitle.ok)
      assert.equal(noTitle.error.message, "Acme (test): the connector has no title (its Hash needs a 'title' key)");
    const notHash = await run('test', {}, '[1, 2]');
    assert.equal(notHash.ok, false);
    if (!notHash.ok) assert.match(notHash.error.message, /must evaluate to a Hash, not Array/);
  });

  test('error() and a plain exception: the message and the line of the lambda', async () => {
    const failed = await run('actions.fail_on_purpose.execute', { input: { value: 3 } });
    assert.equal(failed.ok, false);
    if (!failed.ok) {
      assert.equal(failed.error.kind, 'error');
      assert.equal(failed.error.line, DEMO.split('\n').findIndex((l) => l.includes('error("the value')) + 1);
      assert.equal(
        failed.error.message,
        `Acme (actions.fail_on_purpose.execute, line ${failed.error.line}): the value 3 is not accepted`,
      );
    }
    const plain = await run('actions.raise_plain.execute');
    assert.equal(plain.ok, false);
    if (!plain.ok) {
      assert.equal(plain.error.rubyClass, 'NoMethodError');
      assert.match(plain.error.message, /line \d+\): undefined method 'upcase' for nil/);
    }
  });

  test('an unknown path, action or method', async () => {
    for (const [path, pattern] of [
      ['actions.nope.execute', /no action named nope/],
      ['methods.nope', /no method named nope/],
      ['actions.create_record.frobnicate', /not a path this runtime knows/],
    ] as const) {
      const outcome = await run(path);
      assert.equal(outcome.ok, false, path);
      if (!outcome.ok) assert.match(outcome.error.message, pattern);
    }
  });

  test('a request the host cannot make (nothing listens): the step fails, the next call works', async () => {
    const outcome = await run('test', { settings: { ...settings(), base: 'http://127.0.0.1:1' } });
    assert.equal(outcome.ok, false);
    if (!outcome.ok) assert.match(outcome.error.message, /ECONNREFUSED/);
    assert.equal(value(await run('test')).user, 'ada');
  });

  test('a response that is not what response_format_json says', async () => {
    const source = String.raw`{ title: 't', test: lambda { |c| get("#{c['base']}/xml").response_format_json } }`;
    const outcome = await run('test', {}, source);
    assert.equal(outcome.ok, false);
    if (!outcome.ok) assert.match(outcome.error.message, /the answer is not JSON/);
  });
});
