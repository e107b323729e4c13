// A call whose host lends an exchange (`ConnectorHost.direct`, what a recipe's step gives): its
// requests are made by the runtime's request thread, not through the host's `http`, with the
// outbound policy the exchange names (loopback, link-local and the server's own URL refused as in
// the main thread), the values to mask kept out of the log lines, a `Retry-After` wait made by the
// host's own wait, and the time spent waiting for an answer not counted as CPU time.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { sqliteOnly } from '../../../test/test-database.ts';
import type { ExchangeLogLine } from '../http/transport.ts';
import type { OutboundSettings } from '../../outbound/policy.ts';
import { installedRubySnapshotFile } from './ruby-sandbox.ts';
import { createConnectorRuntime, type ConnectorHost, type ConnectorOutcome } from './runtime.ts';

// The Ruby runtime uses no database: its tests run once, in the SQLite suite.
const NO_DATABASE = sqliteOnly('the Ruby runtime uses no database');

const KEY = 'k-secret-4242';
const CONNECTOR = String.raw`{
  title: 'Items',
  connection: {
    fields: [{ name: 'base' }, { name: 'key', control_type: 'password' }],
    authorization: { type: 'api_key', apply: lambda { |c| headers('X-Api-Key' => c['key']) } },
    base_uri: lambda { |c| c['base'] }
  },
  actions: {
    get_item: {
      execute: lambda do |connection, input|
        get(input['url'] || "/items/#{input['id']}").params(key: connection['key'])
      end
    }
  }
}`;

const runtime = createConnectorRuntime({
  workers: 1,
  memoryBytes: 48 * 1024 * 1024,
  snapshotFiles: [installedRubySnapshotFile()],
  timeoutMs: 15_000,
});
const seen: string[] = [];
let server: Server;
let base: string;
let port: number;

before(async () => {
  let limited = 0;
  server = createServer((req, res) => {
    seen.push(req.url ?? '');
    if (req.url?.startsWith('/limited') && limited++ % 2 === 0) {
      res.writeHead(429, { 'retry-after': '1' }).end('{}');
      return;
    }
    const reply = () =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url: req.url }));
    if (req.url?.startsWith('/slow')) setTimeout(reply, 1200);
    else reply();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
after(async () => {
  await runtime.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const OPEN: OutboundSettings = {
  allowLoopback: true,
  allowPrivate: true,
  allowAddresses: [],
  ownPorts: [],
  ownUrls: [],
};

/** A host whose own `http` is never used: every request must come from the request thread. */
function threadHost(outbound: OutboundSettings, options: { debug?: boolean } = {}) {
  const lines: ExchangeLogLine[] = [];
  const waits: number[] = [];
  const host: ConnectorHost = {
    http: () => Promise.reject(new Error("the host's own http was used")),
    direct: {
      exchange: {
        outbound,
        origins: [],
        debug: options.debug ?? false,
        timeoutMs: 10_000,
        maxResponseBytes: 1024 * 1024,
        deadline: Date.now() + 60_000,
        retryRateLimits: true,
        secrets: [KEY],
      },
      sleep: async (ms) => {
        waits.push(ms);
      },
      log: (line) => lines.push(line),
    },
  };
  return { host, lines, waits };
}

function get(host: ConnectorHost, input: Record<string, unknown>, timeoutMs?: number): Promise<ConnectorOutcome> {
  return runtime.invoke(
    {
      source: CONNECTOR,
      connectorName: 'Items',
      workspaceId: 1,
      path: 'actions.get_item.execute',
      params: { settings: { base, key: KEY }, input },
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    },
    host,
  );
}

function failureOf(outcome: ConnectorOutcome): string {
  assert.equal(outcome.ok, false, 'the call should have failed');
  return outcome.ok ? '' : outcome.error.message;
}

describe('requests made by the request thread', { skip: NO_DATABASE }, () => {
  test('the answer reaches the Ruby; the log lines come back to the host with the key masked', async () => {
    const { host, lines } = threadHost(OPEN, { debug: true });
    const outcome = await get(host, { id: 7 });
    assert.deepEqual(outcome.ok ? outcome.value : outcome.error, { url: `/items/7?key=${KEY}` });
    assert.equal(lines.length, 1);
    const text = JSON.stringify(lines[0]);
    assert.match(text, /"status":200/);
    assert.ok(!text.includes(KEY), `the log line shows the key: ${text}`);
    assert.match(text, /key=%5Bredacted%5D/);
  });

  test('loopback refused when the policy refuses it, a name that resolves to loopback too; link-local always; nothing sent', async () => {
    const closed = threadHost({ ...OPEN, allowLoopback: false }).host;
    const before = seen.length;
    assert.match(failureOf(await get(closed, { id: 1 })), /127\.0\.0\.1 is a loopback address/);
    assert.match(
      failureOf(await get(closed, { url: `http://localhost:${port}/items/2` })),
      /localhost:\d+ is refused: localhost resolves to (127\.0\.0\.1|::1) is a loopback address/,
    );
    assert.match(
      failureOf(await get(threadHost(OPEN).host, { url: 'http://169.254.169.254/latest/meta-data' })),
      /169\.254\.169\.254 is a link-local address/,
    );
    assert.equal(seen.length, before, 'no request reached the server');
  });

  test("the server's own public URL and own port are refused by the policy's settings", async () => {
    const own = threadHost({ ...OPEN, ownUrls: ['http://switchboard.test:8080'], ownPorts: [port] }).host;
    const before = seen.length;
    assert.match(
      failureOf(await get(own, { url: 'http://switchboard.test:8080/api/recipes' })),
      /switchboard\.test:8080 are refused: it is this server's own address/,
    );
    assert.match(failureOf(await get(own, { id: 3 })), new RegExp(`port ${port} is this server itself`));
    assert.equal(seen.length, before);
  });

  test("a 429's Retry-After is waited by the host's wait, then the request is made again", async () => {
    const { host, waits } = threadHost(OPEN);
    const outcome = await get(host, { url: '/limited' });
    assert.deepEqual(outcome.ok ? outcome.value : outcome.error, { url: `/limited?key=${KEY}` });
    assert.deepEqual(waits, [1000]);
  });

  test('workers retired when idle take the request thread with them; the next call starts both again', async () => {
    const idle = createConnectorRuntime({
      workers: 1,
      memoryBytes: 48 * 1024 * 1024,
      snapshotFiles: [installedRubySnapshotFile()],
      idleMs: 100,
    });
    try {
      const call = () =>
        idle.invoke(
          {
            source: CONNECTOR,
            connectorName: 'Items',
            workspaceId: 1,
            path: 'actions.get_item.execute',
            params: { settings: { base, key: KEY }, input: { id: 9 } },
          },
          threadHost(OPEN).host,
        );
      const first = await call();
      assert.deepEqual(first.ok ? first.value : first.error, { url: `/items/9?key=${KEY}` });
      const deadline = Date.now() + 30_000;
      while ((await idle.workerMemory()).length > 0) {
        assert.ok(Date.now() < deadline, 'the idle worker was not retired');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const second = await call();
      assert.deepEqual(second.ok ? second.value : second.error, { url: `/items/9?key=${KEY}` });
    } finally {
      await idle.close();
    }
  });

  test('time spent waiting for the answer is not CPU time', async () => {
    const outcome = await get(threadHost(OPEN).host, { url: '/slow' }, 800);
    assert.deepEqual(outcome.ok ? outcome.value : outcome.error, { url: `/slow?key=${KEY}` });
  });
});
