// A step's input or output over 100,000 characters: its line keeps the size only, the value is kept
// whole beside it (job_line_values), the job page offers it as a download to whoever may read the
// job, and the jobs' retention deletes it with the job.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../test/helpers.ts';
import { action, dp, log, pill, webhookRecipe } from '../../test/recipes.ts';
import { manualClock } from '../time.ts';

const HOUR = 3600_000;
const clock = manualClock('2026-03-01T08:00:00.000Z');
let t: TestApp;
before(async () => {
  t = await createTestApp({ clock, env: { JOB_RETENTION_HOURS: '24', JOBS_SWEEP_INTERVAL_MS: '10' } });
});
after(async () => t.close());

function cookieFrom(setCookie: unknown): string {
  const header = [setCookie].flat()[0];
  assert.equal(typeof header, 'string', 'a Set-Cookie header');
  return (header as string).split(';')[0] as string;
}

async function get(url: string, cookie?: string) {
  return t.app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });
}

async function signIn(token: string): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/console/sign-in',
    payload: new URLSearchParams({ token }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assert.equal(res.statusCode, 303, res.body);
  return cookieFrom(res.headers['set-cookie']);
}

async function valueRows(jobId: number): Promise<number> {
  const row = await t.ctx.db
    .selectFrom('job_line_values')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('job_id', '=', jobId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('large step values on the console', () => {
  // ~300 KB of JSON with text a byte-for-byte comparison would catch mangled: quotes, escapes,
  // non-ASCII, an astral character.
  const items = Array.from({ length: 2400 }, (_, i) => ({
    n: i,
    name: `Ünïcødé "item" ${i} 🚀 \\ tab\t`,
    notes: 'x'.repeat(80),
  }));
  const doc = { order: 'A-9', items };
  const expectedOutput = JSON.stringify({ document: doc });
  let recipe: { id: number; path: string };
  let admin: string;
  let handle: string;
  let jobId: number;
  let base: string;

  before(async () => {
    recipe = await webhookRecipe(t, [
      action('json_parser', 'parse_json_v2', 'parsed', {
        document: pill('workato_webhooks', 'hook', 'payload', 'doc'),
      }),
    ]);
    admin = await signIn(t.adminToken);
    const res = await t.app.inject({ method: 'POST', url: recipe.path, payload: { doc: JSON.stringify(doc) } });
    assert.equal(res.statusCode, 200, res.body);
    await t.engine.idle();
    const job = await t.ctx.db
      .selectFrom('jobs')
      .select(['id', 'handle', 'status'])
      .where('recipe_id', '=', recipe.id)
      .executeTakeFirstOrThrow();
    assert.equal(job.status, 'succeeded');
    handle = job.handle;
    jobId = job.id;
    base = `/console/recipes/${recipe.id}/jobs/${handle}`;
  });

  test('the job page offers the whole output and input of a step over 100,000 characters as downloads', async () => {
    assert.ok(expectedOutput.length > 290_000 && expectedOutput.length < 400_000, `${expectedOutput.length}`);
    const page = await get(base, admin);
    assert.equal(page.statusCode, 200);
    assert.doesNotMatch(page.body, /Only its size was kept/);
    assert.match(page.body, new RegExp(`<a href="${base}/lines/1/output" download>Download the full value</a>`));
    assert.match(page.body, new RegExp(`<a href="${base}/lines/1/input" download>Download the full value</a>`));
    assert.match(page.body, new RegExp(`<a href="${base}/trigger-output" download>`), "the trigger's event as before");
    assert.equal(await valueRows(jobId), 2, "the step's input and output; the trigger's event is the job's own");
  });

  test('the download is the whole value, byte for byte', async () => {
    const res = await get(`${base}/lines/1/output`, admin);
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json; charset=utf-8/);
    assert.equal(
      res.headers['content-disposition'],
      `attachment; filename="${handle.replace(/[^A-Za-z0-9_-]/g, '')}-line-1-output.json"`,
    );
    assert.ok(res.rawPayload.equals(Buffer.from(expectedOutput, 'utf8')), 'the same bytes');
    assert.match(String(res.headers['content-security-policy']), /default-src 'none'|default-src 'self'/);
    const input = await get(`${base}/lines/1/input`, admin);
    assert.equal(input.statusCode, 200);
    assert.deepEqual(JSON.parse(input.body), { document: JSON.stringify(doc) });
  });

  test("the jobs API's lines carry no input or output (unchanged)", async () => {
    const res = await t.call('GET', `/api/recipes/${recipe.id}/jobs/${handle}`);
    assert.equal(res.status, 200);
    assert.equal((res.body.lines as unknown[]).length, 2);
    for (const line of res.body.lines as Array<Record<string, unknown>>) {
      assert.equal('input' in line, false);
      assert.equal('output' in line, false);
    }
  });

  test('only who may read the job: a reader of the workspace yes; another workspace, a stranger: no', async () => {
    const reader = await signIn(await t.tokenFor('Read only'));
    assert.equal((await get(`${base}/lines/1/output`, reader)).statusCode, 200);
    const other = await t.newWorkspace('Elsewhere');
    const stranger = await signIn(other.adminToken);
    const refused = await get(`${base}/lines/1/output`, stranger);
    assert.equal(refused.statusCode, 404);
    assert.ok(!refused.body.includes('Ünïcødé'), 'nothing of the value');
    const signedOut = await get(`${base}/lines/1/output`);
    assert.notEqual(signedOut.statusCode, 200);
    assert.ok(!signedOut.body.includes('Ünïcødé'));
  });

  test('bad or unknown addresses: 400 or 404, never a 500', async () => {
    for (const [url, status] of [
      [`${base}/lines/0/output`, 404], // the trigger's line: its event is the job's (trigger-output)
      [`${base}/lines/2/output`, 404],
      [`${base}/lines/1/error`, 400],
      [`${base}/lines/one/output`, 400],
      [`${base}/lines/-1/output`, 400],
      [`${base}/lines/99999999999/output`, 400],
      [`/console/recipes/${recipe.id}/jobs/j-nope/lines/1/output`, 404],
      [`/console/recipes/999999/jobs/${handle}/lines/1/output`, 404],
    ] as const) {
      const res = await get(url, admin);
      assert.equal(res.statusCode, status, `${url}: ${res.body.slice(0, 200)}`);
      assert.doesNotMatch(res.body, /at .*\.ts:\d+/, 'no stack trace');
    }
  });

  test('a job waiting for a workflow task offers them already, and after it goes on', async () => {
    const waiting = await webhookRecipe(t, [
      action('json_parser', 'parse_json_v2', 'parsed', {
        document: pill('workato_webhooks', 'hook', 'payload', 'doc'),
      }),
      action('workato_workflow_task', 'human_review_on_existing_record', 'review', {
        name: 'Check the order',
        email: 'ana@example.com',
        record_id: 'R-1',
      }),
      log('after', `#{${dp('workato_workflow_task', 'review', 'status')}}`),
    ]);
    const res = await t.app.inject({ method: 'POST', url: waiting.path, payload: { doc: JSON.stringify(doc) } });
    assert.equal(res.statusCode, 200, res.body);
    await t.engine.idle();
    const job = await t.ctx.db
      .selectFrom('jobs')
      .select(['id', 'handle', 'status'])
      .where('recipe_id', '=', waiting.id)
      .executeTakeFirstOrThrow();
    assert.equal(job.status, 'waiting');
    const link = `/console/recipes/${waiting.id}/jobs/${job.handle}/lines/1/output`;
    assert.match((await get(`/console/recipes/${waiting.id}/jobs/${job.handle}`, admin)).body, new RegExp(link));
    const whileWaiting = await get(link, admin);
    assert.equal(whileWaiting.statusCode, 200);
    assert.ok(whileWaiting.rawPayload.equals(Buffer.from(expectedOutput, 'utf8')));

    const tasks = await t.call('GET', `/api/workflow_tasks?recipe_id=${waiting.id}&status=open`);
    assert.equal(tasks.body.items.length, 1, tasks.text);
    const done = await t.call('POST', `/api/workflow_tasks/${tasks.body.items[0].id}/complete`, {
      body: { status: 'approved' },
    });
    assert.equal(done.status, 200, done.text);
    await t.engine.idle();
    const ended = await t.ctx.db.selectFrom('jobs').select('status').where('id', '=', job.id).executeTakeFirstOrThrow();
    assert.equal(ended.status, 'succeeded');
    assert.equal(await valueRows(job.id), 2, 'kept once');
    const after = await get(link, admin);
    assert.ok(after.rawPayload.equals(Buffer.from(expectedOutput, 'utf8')));
  });

  test('retention deletes the values with their job', async () => {
    clock.advance(25 * HOUR);
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const left = await t.ctx.db.selectFrom('jobs').select('id').where('id', '=', jobId).executeTakeFirst();
      if (!left) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(await valueRows(jobId), 0, 'no value left');
    // 25 hours on, the console's session has ended too: sign in again.
    assert.equal((await get(`${base}/lines/1/output`, await signIn(t.adminToken))).statusCode, 404);
  });
});
