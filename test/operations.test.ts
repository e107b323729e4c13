// GET /health, /ready, /metrics, the OpenAPI document and the docs page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { randomBytes } from 'node:crypto';
import { buildApp } from '../src/app.ts';
import { createSecretBox } from '../src/crypto/secret-box.ts';
import { loadConfig } from '../src/config.ts';
import { openSqlite } from '../src/db/index.ts';
import { createLogger } from '../src/logger.ts';
import { createTestApp, type TestApp } from './helpers.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

describe('GET /health', () => {
  test('answers without a token', async () => {
    const res = await t.call('GET', '/health', { token: null });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'ok' });
  });
});

describe('GET /ready', () => {
  test('ready when the database answers and migrations are applied', async () => {
    const res = await t.call('GET', '/ready', { token: null });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'ready' });
  });

  test('503 while migrations are pending', async () => {
    const db = openSqlite(':memory:');
    const app = await buildApp({
      config: loadConfig({ LOG_LEVEL: 'silent' }),
      database: { db, dialect: 'sqlite', location: ':memory:' },
      secretBox: createSecretBox(randomBytes(32)),
      logger: createLogger('silent'),
    });
    const res = await app.inject({ method: 'GET', url: '/ready' });
    assert.equal(res.statusCode, 503);
    assert.match(JSON.parse(res.body).message, /0001_foundation/);
    await app.close();
    await db.destroy();
  });
});

describe('GET /metrics', () => {
  test('Prometheus text with requests by route and status, latency histograms and process figures', async () => {
    await t.call('GET', '/api/users/me');
    await t.call('GET', '/api/developer_api_clients/424242');
    await t.call('GET', '/api/no/such/route');
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    assert.match(res.body, /http_requests_total\{method="GET",route="\/api\/users\/me",status_code="200"\} \d+/);
    assert.match(
      res.body,
      /http_requests_total\{method="GET",route="\/api\/developer_api_clients\/:id",status_code="404"\} 1/,
    );
    assert.match(res.body, /route="unmatched",status_code="404"/);
    assert.match(res.body, /http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/api\/users\/me"/);
    assert.match(res.body, /process_resident_memory_bytes \d+/);
    assert.ok(!res.body.includes('424242'), 'ids never become labels');
  });

  test('a histogram series counts every request: cumulative buckets up to +Inf, the count and the sum agree', async () => {
    for (let i = 0; i < 5; i++) await t.call('GET', '/api/folders');
    const res = await t.app.inject({ method: 'GET', url: '/metrics' });
    const series = 'method="GET",route="/api/folders",status_code="200"';
    const buckets = [
      ...res.body.matchAll(
        new RegExp(`^http_request_duration_seconds_bucket\\{le="([^"]+)",${series}\\} (\\d+)$`, 'gm'),
      ),
    ];
    assert.equal(buckets.length, 14, 'thirteen bounds and +Inf');
    assert.equal(buckets.at(-1)?.[1], '+Inf');
    const counts = buckets.map((m) => Number(m[2]));
    assert.deepEqual(
      counts,
      [...counts].sort((a, b) => a - b),
      'cumulative',
    );
    assert.equal(counts.at(-1), 5);
    assert.match(res.body, new RegExp(`^http_request_duration_seconds_count\\{${series}\\} 5$`, 'm'));
    assert.match(res.body, new RegExp(`^http_requests_total\\{${series}\\} 5$`, 'm'));
    const sum = Number(
      new RegExp(`^http_request_duration_seconds_sum\\{${series}\\} (\\S+)$`, 'm').exec(res.body)?.[1],
    );
    assert.ok(sum > 0 && sum < 5 * 10, `a sum of five latencies in seconds: ${sum}`);
  });
});

describe('GET /api/openapi.json and /docs', () => {
  test('an OpenAPI 3.1 document generated from the route schemas', async () => {
    const res = await t.call('GET', '/api/openapi.json', { token: null });
    assert.equal(res.status, 200);
    const doc = res.body;
    assert.equal(doc.openapi, '3.1.0');
    const ops = doc.paths['/api/developer_api_clients/{id}'];
    assert.ok(ops.get && ops.put && ops.delete);
    assert.deepEqual(ops.get.security, [{ bearerAuth: [] }]);
    assert.match(ops.get.description, /developer_api_clients:read/);
    assert.ok(ops.put.requestBody.content['application/json'].schema.properties.name);
    assert.ok(ops.get.responses['200'] && ops.get.responses['404']);
    assert.ok(
      doc.paths['/api/users/me'].get.responses['200'].content['application/json'].schema.properties.root_folder_id,
    );
    assert.ok(doc.paths['/api/developer_api_clients/{id}/regenerate'].post);
    assert.ok(!doc.paths['/api/openapi.json'], 'the document does not list itself');
  });

  test('a readable docs page', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs' });
    const page =
      res.statusCode === 302
        ? await t.app.inject({
            method: 'GET',
            url: String(res.headers.location).startsWith('/')
              ? String(res.headers.location)
              : `/docs/${res.headers.location}`,
          })
        : res;
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<html/i);
    assert.match(page.body, /swagger/i);
  });

  test("the page's document, assets and redirects; what it does not serve is a 404 in the error shape", async () => {
    const json = await t.app.inject({ method: 'GET', url: '/docs/json' });
    assert.equal(json.statusCode, 200);
    assert.deepEqual(json.json(), (await t.call('GET', '/api/openapi.json', { token: null })).body);
    const script = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-ui-bundle.js' });
    assert.equal(script.statusCode, 200);
    assert.match(String(script.headers['content-type']), /^application\/javascript/);
    const head = await t.app.inject({ method: 'HEAD', url: '/docs/static/swagger-ui.css' });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
    assert.ok(Number(head.headers['content-length']) > 1000);
    const cached = await t.app.inject({
      method: 'GET',
      url: '/docs/static/swagger-ui.css',
      headers: { 'if-none-match': String(head.headers.etag) },
    });
    assert.equal(cached.statusCode, 304);
    const moved = await t.app.inject({ method: 'GET', url: '/docs/static/index.html' });
    assert.equal(moved.statusCode, 302);
    assert.equal(moved.headers.location, '/docs/');
    assert.equal(moved.headers['content-type'], undefined);
    for (const url of ['/docs/static/nope.js', '/docs/static/../package.json', '/docs/yaml/x']) {
      const missing = await t.call('GET', url, { token: null });
      assert.equal(missing.status, 404, url);
      assert.deepEqual(missing.body, { message: 'Not found' });
    }
    assert.equal((await t.call('POST', '/docs/json', { token: null, body: {} })).status, 404);
  });
});
