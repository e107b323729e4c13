// Shareable file links: made by a recipe's create_shareable_link step, used through HTTP without a
// token (GET downloads, PUT uploads a new file, POST appends), refused when changed, expired, used
// for what they do not allow, or too large; bad step input is the step's clear error.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { action, fire, webhookRecipe } from '../../../test/recipes.ts';
import { shareableLink } from './shared-links.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp({ env: { FILE_MAX_BYTES: '4096' } });
});
after(() => t.close());

const files = (name: string, as: string, input: Record<string, unknown>) => action('workato_files', name, as, input);

/** The link a recipe made with these inputs (a file stored first at /shared/report.csv). */
async function link(input: Record<string, unknown>) {
  const { path } = await webhookRecipe(t, [
    files('store_file', 'store', { file_path: '/shared/report.csv', content: 'a,1\n', overwrite: 'true' }),
    files('create_shareable_link', 'share', input),
  ]);
  return fire(t, path, {});
}

const pathOf = (url: string) => new URL(url).pathname;
const send = (method: 'GET' | 'PUT' | 'POST', url: string, body?: string, type = 'text/csv') =>
  t.app.inject({
    method,
    url: pathOf(url),
    payload: body,
    headers: body === undefined ? {} : { 'content-type': type },
  });

describe('workato_files create_shareable_link', () => {
  test('a download link gives the file to a caller without a token, until it expires', async () => {
    const job = await link({ file_path: '/shared/report.csv' });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const out = job.output(2) as Record<string, unknown>;
    assert.equal(out.file_path, '/shared/report.csv');
    assert.equal(out.expires_in, 900);
    assert.equal(out.scope, 'download');
    const url = out.shareable_link as string;
    assert.ok(url.startsWith(`${t.ctx.config.publicBaseUrl}/api/files/shared/`), url);
    const res = await send('GET', url);
    assert.equal(res.statusCode, 200);
    assert.equal(res.body, 'a,1\n');
    assert.match(String(res.headers['content-disposition']), /filename="report.csv"/);

    // Not for writing; changed by one character; past its expiry; under another key: refused.
    const put = await send('PUT', url, 'x');
    assert.equal(put.statusCode, 405);
    assert.equal(put.json().message, 'This link allows download only');
    const token = url.split('/').pop() as string;
    const flipped = url.slice(0, -token.length) + token.slice(0, -2) + (token.endsWith('A') ? 'BB' : 'AA');
    assert.equal((await send('GET', flipped)).statusCode, 404);
    assert.equal((await send('GET', `${url}.extra`)).statusCode, 404);
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/files/shared/garbage' })).statusCode, 404);
    const expired = shareableLink(t.ctx, {
      scope: { workspaceId: t.workspaceId, environmentId: await envId() },
      path: '/shared/report.csv',
      allows: 'download',
      expiresAt: Math.floor(Date.now() / 1000) - 1,
    });
    const gone = await send('GET', expired);
    assert.equal(gone.statusCode, 404);
    assert.equal(gone.json().message, 'The link is not valid or has expired');
  });

  test('an upload link makes a new file once; an append link adds to its file; both within FILE_MAX_BYTES', async () => {
    const up = await link({ scope: 'upload', file_path: '/inbox', file_name: 'new.txt', expires_in: '60' });
    assert.equal(up.status, 'succeeded', up.error ?? '');
    const upOut = up.output(2) as Record<string, unknown>;
    assert.equal(upOut.file_path, '/inbox/new.txt');
    assert.equal(upOut.expires_in, 60);
    const url = upOut.shareable_link as string;
    const created = await send('PUT', url, 'hello', 'application/octet-stream');
    assert.equal(created.statusCode, 200, created.body);
    assert.deepEqual(created.json(), { path: '/inbox/new.txt', size: 5 });
    assert.equal((await t.call('GET', '/api/files/content?path=/inbox/new.txt')).text, 'hello');
    const again = await send('PUT', url, 'twice', 'application/octet-stream');
    assert.equal(again.statusCode, 422);
    assert.equal((await send('GET', url)).statusCode, 405);

    const app = await link({ scope: 'append', file_path: '/shared/report.csv' });
    const appendUrl = (app.output(2) as Record<string, string>).shareable_link as string;
    const appended = await send('POST', appendUrl, 'b,2\n');
    assert.equal(appended.statusCode, 200, appended.body);
    assert.deepEqual(appended.json(), { path: '/shared/report.csv', size: 8 });
    assert.equal((await t.call('GET', '/api/files/content?path=/shared/report.csv')).text, 'a,1\nb,2\n');
    const tooBig = await send('POST', appendUrl, 'x'.repeat(5000));
    assert.equal(tooBig.statusCode, 413);
    assert.equal((await t.call('GET', '/api/files/content?path=/shared/report.csv')).text, 'a,1\nb,2\n');
    // The file deleted since: the link does not make it anew.
    assert.equal((await t.call('DELETE', '/api/files?path=/shared/report.csv')).status, 200);
    assert.equal((await send('POST', appendUrl, 'c,3\n')).statusCode, 404);
  });

  test('bad input: the step fails with a clear error and no link', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        { file_path: '/shared/report.csv', scope: 'delete' },
        'Bad request: scope must be one of download, upload, append',
      ],
      [
        { file_path: '/shared/report.csv', expires_in: '0' },
        'Bad request: expires_in must be a whole number of seconds from 1 to 604800',
      ],
      [
        { file_path: '/shared/report.csv', expires_in: '604801' },
        'Bad request: expires_in must be a whole number of seconds from 1 to 604800',
      ],
      [
        { file_path: '/shared/report.csv', expires_in: 'soon' },
        'Bad request: expires_in must be a whole number of seconds from 1 to 604800',
      ],
      [{ file_path: '/inbox', scope: 'upload' }, 'Bad request: file_name is required for an upload link'],
      [
        { file_path: '/shared', file_name: 'report.csv', scope: 'upload' },
        'File exists: /shared/report.csv already exists; an upload link makes a new file',
      ],
    ];
    for (const [input, error] of cases) {
      const job = await link(input);
      assert.equal(job.status, 'failed', JSON.stringify(input));
      assert.equal(job.error, error);
    }
    const missing = await link({ file_path: '/shared/nothing.csv' });
    assert.equal(missing.status, 'failed');
    assert.equal(missing.errorType, 'Not found');
  });
});

async function envId(): Promise<number> {
  const row = await t.ctx.db
    .selectFrom('files')
    .select('environment_id')
    .where('path', '=', '/shared/report.csv')
    .executeTakeFirstOrThrow();
  return row.environment_id;
}
