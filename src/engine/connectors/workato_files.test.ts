// The workato_files connector through real jobs, and the file routes (list, download, delete)
// through HTTP: files written by a step are read by another step and by the API.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { action, fire, pill, webhookRecipe } from '../../../test/recipes.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp({ env: { FILE_MAX_BYTES: String(600 * 1024) } });
});
after(async () => {
  await t.close();
});

const files = (name: string, as: string, input: Record<string, unknown>) => action('workato_files', name, as, input);
const payload = (...path: string[]) => pill('workato_webhooks', 'hook', 'payload', ...path);
const out = (as: string, ...path: string[]) => pill('workato_files', as, ...path);

async function stored(path: string): Promise<{ status: number; text: string }> {
  const res = await t.call('GET', `/api/files/content?path=${encodeURIComponent(path)}`);
  return { status: res.status, text: res.text };
}

describe('workato_files actions', () => {
  test('store_file, get_file_contents, append_to_file, search_files, move_file, delete_file', async () => {
    const { path } = await webhookRecipe(t, [
      files('store_file', 'store', { file_path: '/reports', file_name: payload('name'), content: payload('csv') }),
      files('get_file_contents', 'read', { file_path: out('store', 'path') }),
      files('append_to_file', 'append', { file_path: '/reports/q1.csv', content: 'c,3\n' }),
      files('search_files', 'search', { file_path: '/reports' }),
      files('move_file', 'move', { file_path: '/reports/q1.csv', new_file_path: '/archive/q1.csv' }),
      files('get_file_contents', 'again', { file_path: '/archive/q1.csv' }),
      files('delete_file', 'delete', { file_path: '/archive/q1.csv' }),
    ]);
    const job = await fire(t, path, { name: 'q1.csv', csv: 'a,1\nb,2\n' });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const info = job.output(1) as Record<string, unknown>;
    assert.equal(info.path, '/reports/q1.csv');
    assert.equal(info.name, 'q1.csv');
    assert.equal(info.size, 8);
    const read = job.output(2) as Record<string, unknown>;
    assert.equal(read.content, 'a,1\nb,2\n');
    assert.equal(read.size, 8);
    assert.equal((job.output(3) as { size: number }).size, 12);
    const search = job.output(4) as { files: Array<{ path: string }>; count: number };
    assert.deepEqual(
      search.files.map((f) => f.path),
      ['/reports/q1.csv'],
    );
    assert.equal((job.output(6) as { content: string }).content, 'a,1\nb,2\nc,3\n');
    assert.deepEqual(job.output(7), { success: true, path: '/archive/q1.csv' });
    assert.equal((await stored('/archive/q1.csv')).status, 404);
  });

  test("a file over FILE_MAX_BYTES is the step's error and nothing is stored; so is an append past it", async () => {
    const { path } = await webhookRecipe(t, [
      files('store_file', 'store', { file_path: '/big.txt', content: payload('content') }),
    ]);
    const job = await fire(t, path, { content: 'x'.repeat(600 * 1024 + 1) });
    assert.equal(job.status, 'failed');
    assert.equal(job.errorType, 'File too large');
    assert.match(job.error ?? '', /at most 614400 bytes/);
    assert.equal((await stored('/big.txt')).status, 404);

    const ok = await fire(t, path, { content: 'y'.repeat(600 * 1024) });
    assert.equal(ok.status, 'succeeded', ok.error ?? '');
    const { path: appendPath } = await webhookRecipe(t, [
      files('append_to_file', 'more', { file_path: '/big.txt', content: 'z' }),
    ]);
    const appended = await fire(t, appendPath, {});
    assert.equal(appended.status, 'failed');
    const content = await stored('/big.txt');
    assert.equal(content.text.length, 600 * 1024, 'the file is as it was');
    assert.ok(content.text.endsWith('y'));
  });

  test("a file that exists is refused unless overwrite is set; an unknown file and a bad path are the step's errors", async () => {
    const write = (extra: Record<string, unknown>) =>
      files('store_file', 'store', { file_path: '/once.txt', content: payload('v'), ...extra });
    const first = await webhookRecipe(t, [write({})]);
    assert.equal((await fire(t, first.path, { v: 'one' })).status, 'succeeded');
    const again = await fire(t, first.path, { v: 'two' });
    assert.equal(again.status, 'failed');
    assert.match(again.error ?? '', /already exists/);
    const over = await webhookRecipe(t, [write({ overwrite: 'true' })]);
    assert.equal((await fire(t, over.path, { v: 'three' })).status, 'succeeded');
    assert.equal((await stored('/once.txt')).text, 'three');

    const missing = await webhookRecipe(t, [files('get_file_contents', 'read', { file_path: '/nope.txt' })]);
    const miss = await fire(t, missing.path, {});
    assert.equal(miss.status, 'failed');
    assert.equal(miss.errorType, 'Not found');
    const bad = await webhookRecipe(t, [files('store_file', 'store', { file_path: '/a/../b.txt', content: 'x' })]);
    const refused = await fire(t, bad.path, {});
    assert.equal(refused.status, 'failed');
    assert.match(refused.error ?? '', /segment that is not allowed/);
  });
});

describe('GET /api/files, GET /api/files/content, DELETE /api/files', () => {
  test('list a directory (or its tree), download, delete; bad input and unknown files are 4xx', async () => {
    const { path } = await webhookRecipe(t, [
      files('store_file', 's1', { file_path: '/api/one.txt', content: 'first' }),
      files('store_file', 's2', { file_path: '/api/sub/two.txt', content: 'second' }),
      files('store_file', 's3', { file_path: '/apiother/three.txt', content: 'third' }),
    ]);
    assert.equal((await fire(t, path, {})).status, 'succeeded');
    const flat = await t.call('GET', '/api/files?directory=/api');
    assert.equal(flat.status, 200, flat.text);
    assert.deepEqual(
      flat.body.data.map((f: { path: string }) => f.path),
      ['/api/one.txt'],
    );
    const tree = await t.call('GET', '/api/files?directory=/api&recursive=true');
    assert.deepEqual(
      tree.body.data.map((f: { path: string }) => f.path),
      ['/api/one.txt', '/api/sub/two.txt'],
    );
    const download = await t.call('GET', '/api/files/content?path=/api/sub/two.txt');
    assert.equal(download.status, 200);
    assert.equal(download.text, 'second');
    assert.match(String(download.headers['content-type']), /application\/octet-stream/);
    assert.deepEqual((await t.call('DELETE', '/api/files?path=/api/sub/two.txt')).body, { success: true });
    assert.equal((await t.call('GET', '/api/files/content?path=/api/sub/two.txt')).status, 404);
    assert.equal((await t.call('DELETE', '/api/files?path=/api/sub/two.txt')).status, 404);
    const chunks = await t.ctx.db.selectFrom('file_chunks').select('file_id').execute();
    const rows = await t.ctx.db.selectFrom('files').select('id').execute();
    assert.ok(
      chunks.every((c) => rows.some((r) => r.id === c.file_id)),
      'no chunk outlives its file',
    );
    assert.equal((await t.call('GET', '/api/files/content')).status, 400);
    assert.equal((await t.call('GET', '/api/files/content?path=/a/../b')).status, 400);
    assert.equal((await t.call('GET', '/api/files?recursive=maybe')).status, 400);
    const reader = await t.tokenFor('Read only');
    assert.equal((await t.call('DELETE', '/api/files?path=/api/one.txt', { token: reader })).status, 403);
    assert.equal((await t.call('GET', '/api/files', { token: null })).status, 401);
    const prod = await t.tokenFor('Admin', 'prod');
    assert.deepEqual(
      (await t.call('GET', '/api/files?recursive=true', { token: prod })).body.data,
      [],
      'files belong to their environment',
    );
  });
});
