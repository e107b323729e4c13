// The pagination helpers against a local paged API: Link headers, next URLs and cursors in the
// body, Stripe's has_more; bounded in pages and items; a service that repeats its next page stops.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { createOutboundPolicy } from '../../outbound/policy.ts';
import type { ConnectionDefinition } from '../definition.ts';
import { openSession } from './session.ts';
import { createTransport } from './transport.ts';
import { collect, cursorInBody, linkHeader, nextUrlInBody, pages, stripeList } from './pagination.ts';
import { StepError } from '../step-error.ts';

let server: http.Server;
let base: string;
const outbound = createOutboundPolicy({
  allowLoopback: true,
  allowPrivate: true,
  allowAddresses: [],
  ownPorts: [],
  ownUrls: [],
});

before(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const page = Number(url.searchParams.get('page') ?? url.searchParams.get('cursor') ?? '1');
    const json = (body: unknown, headers: Record<string, string> = {}) =>
      res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    if (url.pathname === '/link')
      return json(
        [{ n: page }],
        page < 3 ? { link: `<${base}/link?page=${page + 1}>; rel="next", <${base}/link?page=3>; rel="last"` } : {},
      );
    if (url.pathname === '/next-url')
      return json({ records: [{ n: page }], nextRecordsUrl: page < 2 ? `/next-url?page=${page + 1}` : null });
    if (url.pathname === '/cursor')
      return json({ members: [{ n: page }], response_metadata: { next_cursor: page < 4 ? String(page + 1) : '' } });
    if (url.pathname === '/stripe') {
      const after = url.searchParams.get('starting_after');
      const start = after === null ? 0 : Number(after.slice(4)) + 1;
      return json({ object: 'list', data: [{ id: `cus_${start}` }, { id: `cus_${start + 1}` }], has_more: start < 4 });
    }
    if (url.pathname === '/loop') return json({ records: [], nextRecordsUrl: '/loop' });
    return json(
      { items: Array.from({ length: 10 }, (_, i) => i) },
      { link: `<${base}/many?page=${page + 1}>; rel="next"` },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await outbound.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

function session() {
  const definition: ConnectionDefinition = {
    fields: [],
    auth: { type: 'none' },
    baseUrl: () => `${base}/`,
    test: async () => null,
  };
  return openSession({
    definition,
    connection: { id: null, name: 'paged', provider: 'paged' },
    state: { values: {}, auth: { extra: {} } },
    transport: createTransport({ outbound, log: pino({ level: 'silent' }), origins: new Map(), now: Date.now }),
    limits: {
      timeoutMs: 5000,
      maxResponseBytes: 1_000_000,
      deadline: Date.now() + 30_000,
      sleep: async () => undefined,
    },
  });
}

describe('pagination helpers', () => {
  test('Link header, next URL in the body, cursor in the body, Stripe lists', async () => {
    assert.deepEqual(await collect(session(), { method: 'GET', url: 'link' }, linkHeader(), []), [
      { n: 1 },
      { n: 2 },
      { n: 3 },
    ]);
    assert.deepEqual(
      await collect(session(), { method: 'GET', url: 'next-url' }, nextUrlInBody(['nextRecordsUrl']), ['records']),
      [{ n: 1 }, { n: 2 }],
    );
    assert.deepEqual(
      await collect(
        session(),
        { method: 'GET', url: 'cursor', query: { limit: 1 } },
        cursorInBody(['response_metadata', 'next_cursor'], 'cursor'),
        ['members'],
      ),
      [{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }],
    );
    const ids = (await collect(session(), { method: 'GET', url: 'stripe' }, stripeList(), ['data'])) as Array<{
      id: string;
    }>;
    assert.deepEqual(
      ids.map((c) => c.id),
      ['cus_0', 'cus_1', 'cus_2', 'cus_3', 'cus_4', 'cus_5'],
    );
  });

  test('bounded: pages and items stop where asked, a repeated next page is an error', async () => {
    let count = 0;
    for await (const _ of pages(session(), { method: 'GET', url: 'many' }, linkHeader(), { maxPages: 5 })) count++;
    assert.equal(count, 5);
    const items = await collect(session(), { method: 'GET', url: 'many' }, linkHeader(), ['items'], { maxItems: 25 });
    assert.equal(items.length, 25);
    await assert.rejects(
      collect(session(), { method: 'GET', url: 'loop' }, nextUrlInBody(['nextRecordsUrl']), ['records']),
      (error: unknown) => error instanceof StepError && /the same next page twice/.test(error.message),
    );
  });
});
