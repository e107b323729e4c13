// The schema compilers load at the first request that needs one, not at start (src/ajv.ts,
// src/http/validation.ts, src/http/serialization.ts): an idle server holds neither Ajv nor
// fast-json-stringify. Both are CommonJS packages, so once loaded they are in require's cache.
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

let t: TestApp;
before(async () => {
  t = await createTestApp();
  await t.app.ready();
});
after(() => t.close());

describe('schema compilers at first use', () => {
  test('a started app has loaded neither compiler', () => {
    assert.equal(loaded(AJV), false, 'Ajv is loaded at start');
    assert.equal(loaded(FAST_JSON_STRINGIFY), false, 'fast-json-stringify is loaded at start');
    assert.equal(loaded(FASTIFY_AJV_COMPILER), false, "Fastify's default validator compiler is loaded at start");
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
});
