// Modules an idle server does not hold, loaded at the first request that needs them: the schema
// compilers (src/ajv.ts, src/http/validation.ts, src/http/serialization.ts: Ajv, fast-json-stringify)
// and the OpenAPI generator (src/http/openapi.ts: @fastify/swagger, yaml), CommonJS packages that
// are in require's cache once loaded; and Node's own undici, which an ES module import of node:http
// loads (src/http/event-streams-listener.ts).
// This file's process loads nothing else first (node --test runs each file in its own process).
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from './helpers.ts';

const require = createRequire(import.meta.url);
const loaded = (part: string) => Object.keys(require.cache).some((file) => file.includes(part));
const AJV = '/node_modules/ajv/dist/ajv.js';
const FAST_JSON_STRINGIFY = '/node_modules/fast-json-stringify/index.js';
const FASTIFY_AJV_COMPILER = '/node_modules/@fastify/ajv-compiler/';
const SWAGGER = '/node_modules/@fastify/swagger/';
const YAML = '/node_modules/yaml/';

let t: TestApp;
before(async () => {
  // The modules a server process loads beyond the app's (the listeners, the shutdown).
  await import('../src/server.ts');
  t = await createTestApp();
  await t.app.ready();
});
after(() => t.close());

describe('modules loaded at first use', () => {
  test('a started app, asked only GET /health and GET /ready, has loaded none of them', async () => {
    // Probes answer as before (their replies are written without the serializer compiler).
    const health = await t.app.inject({ method: 'GET', url: '/health' });
    assert.equal(health.statusCode, 200);
    assert.equal(health.body, '{"status":"ok"}');
    assert.equal(health.headers['content-type'], 'application/json; charset=utf-8');
    const ready = await t.app.inject({ method: 'GET', url: '/ready' });
    assert.equal(ready.statusCode, 200);
    assert.equal(ready.body, '{"status":"ready"}');
    assert.equal(loaded(AJV), false, 'Ajv is loaded at start');
    assert.equal(loaded(FAST_JSON_STRINGIFY), false, 'fast-json-stringify is loaded at start');
    assert.equal(loaded(FASTIFY_AJV_COMPILER), false, "Fastify's default validator compiler is loaded at start");
    assert.equal(loaded(SWAGGER), false, '@fastify/swagger is loaded at start');
    assert.equal(loaded(YAML), false, 'yaml is loaded at start');
    // Node's own undici (behind the global fetch and node:http's WebSocket) is one of its built-in modules.
    assert.ok(
      !(process as unknown as { moduleLoadList: string[] }).moduleLoadList.includes(
        'NativeModule internal/deps/undici/undici',
      ),
      "Node's undici is loaded at start",
    );
  });

  test('POST /api/folders with a wrong type: a 400 naming the field, and Ajv is loaded', async () => {
    const res = await t.call('POST', '/api/folders', { body: { name: 5 } });
    assert.equal(res.status, 400);
    assert.ok(res.body.errors?.name, JSON.stringify(res.body));
    assert.equal(loaded(AJV), true);
    assert.equal(loaded(FASTIFY_AJV_COMPILER), false);
  });

  test('GET /api/folders: the reply is serialized by its schema, and fast-json-stringify is loaded', async () => {
    const res = await t.call('GET', '/api/folders');
    assert.equal(res.status, 200);
    assert.ok(Array.isArray(res.body), JSON.stringify(res.body));
    assert.equal(loaded(FAST_JSON_STRINGIFY), true);
  });

  test('GET /api/openapi.json: the document of the routes, and @fastify/swagger is loaded', async () => {
    const first = await t.call('GET', '/api/openapi.json', { token: null });
    assert.equal(first.status, 200);
    assert.equal(first.body.openapi, '3.1.0');
    assert.ok(first.body.paths['/api/folders'].get, 'GET /api/folders is in the document');
    assert.equal(loaded(SWAGGER), true);
    // Made once: the next request answers the same document.
    assert.deepEqual((await t.call('GET', '/api/openapi.json', { token: null })).body, first.body);
  });
});
