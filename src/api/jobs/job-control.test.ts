import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { action, fire, log, webhookRecipe } from '../../../test/recipes.ts';

describe('job control', () => {
  let t: TestApp;
  const held: ServerResponse[] = [];
  const upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => held.push(res));
  });
  before(async () => {
    t = await createTestApp();
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    for (const res of held) res.end('{}');
    upstream.closeAllConnections();
    await new Promise((resolve) => upstream.close(resolve));
    await t.close();
  });

  test('POST /api/recipes/:recipe_id/repeat_jobs: a finished job runs again as a new job, is_repeat with its master', async () => {
    const { id, path } = await webhookRecipe(t, [log('say', 'hello')]);
    const job = await fire(t, path, { n: 1 });
    const original = (await t.call('GET', `/api/recipes/${id}/jobs`)).body.items[0];
    assert.equal(job.status, 'succeeded');
    const res = await t.call('POST', `/api/recipes/${id}/repeat_jobs`, {
      body: { job_ids: [original.id, 'j-nothere-000000'] },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.results[0].status, 'enqueued');
    assert.deepEqual(res.body.results[1], {
      job_id: 'j-nothere-000000',
      status: 'failed',
      error: 'no such job of this recipe',
    });
    await t.engine.idle();
    const again = await t.call('GET', `/api/recipes/${id}/jobs/${res.body.results[0].new_job_id}`);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.status, 'succeeded');
    assert.equal(again.body.is_repeat, true);
    assert.equal(again.body.master_job_id, original.id);
    assert.deepEqual(
      again.body.lines.map((l: { recipe_line_number: number }) => l.recipe_line_number),
      [0, 1],
    );
    const recipe = await t.call('GET', `/api/recipes/${id}`);
    assert.equal(recipe.body.job_succeeded_count, 2);

    assert.equal((await t.call('PUT', `/api/recipes/${id}/stop`)).status, 200);
    const stopped = await t.call('POST', `/api/recipes/${id}/repeat_jobs`, { body: { job_ids: [original.id] } });
    assert.deepEqual(stopped.body.results, [
      { job_id: original.id, status: 'failed', error: 'the recipe is stopped: start it to run jobs again' },
    ]);
    assert.equal((await t.call('POST', `/api/recipes/${id}/repeat_jobs`, { body: {} })).status, 400);
    assert.equal(
      (
        await t.call('POST', `/api/recipes/${id}/repeat_jobs`, {
          body: { job_ids: Array.from({ length: 26 }, (_, i) => `j-${i}`) },
        })
      ).status,
      400,
    );
    assert.equal((await t.call('POST', `/api/recipes/${id}/repeat_jobs`, { body: { job_ids: 'j-1' } })).status, 400);
    assert.equal((await t.call('POST', '/api/recipes/999999/repeat_jobs', { body: { job_ids: ['j-1'] } })).status, 404);
    const readOnly = await t.tokenFor('Read only');
    assert.equal(
      (await t.call('POST', `/api/recipes/${id}/repeat_jobs`, { token: readOnly, body: { job_ids: [original.id] } }))
        .status,
      403,
    );
  });

  test('POST /api/recipes/:recipe_id/cancel_jobs: queued jobs are canceled at once, a running one before its next step', async () => {
    const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/slow`;
    const { id, path } = await webhookRecipe(
      t,
      [
        action('rest', 'make_request_v2', 'call', { request: { method: 'GET', url }, response: {} }),
        log('after', 'not reached'),
      ],
      { concurrency: 1 },
    );
    for (let n = 0; n < 3; n += 1)
      assert.equal((await t.app.inject({ method: 'POST', url: path, payload: { n } })).statusCode, 200);
    const deadline = Date.now() + 5000;
    while (held.length === 0) {
      assert.ok(Date.now() < deadline, 'the first job reaches the upstream');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const res = await t.call('POST', `/api/recipes/${id}/cancel_jobs`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.results.map((r: { status: string }) => r.status).sort(), [
      'canceled',
      'canceled',
      'canceling',
    ]);
    held.shift()?.end('{"ok":true}');
    await t.engine.idle();
    const jobs = await t.call('GET', `/api/recipes/${id}/jobs`);
    assert.deepEqual(
      jobs.body.items.map((j: { status: string }) => j.status),
      ['failed', 'failed', 'failed'],
    );
    const details = await Promise.all(
      jobs.body.items.map((j: { id: string }) => t.call('GET', `/api/recipes/${id}/jobs/${j.id}`)),
    );
    const errors = details.map((d) => d.body.error).sort();
    assert.deepEqual(errors, [
      'Canceled: the job was canceled',
      'Canceled: the job was canceled before it ran',
      'Canceled: the job was canceled before it ran',
    ]);
    const running = details.find((d) => d.body.error === 'Canceled: the job was canceled');
    assert.deepEqual(
      running!.body.lines.map((l: { recipe_line_number: number }) => l.recipe_line_number),
      [0, 1],
      'the step after the cancel did not run',
    );
    const recipe = await t.call('GET', `/api/recipes/${id}`);
    assert.equal(recipe.body.job_failed_count, 3);
    const again = await t.call('POST', `/api/recipes/${id}/cancel_jobs`, {
      body: { job_ids: [jobs.body.items[0].id] },
    });
    assert.deepEqual(again.body.results, [
      { job_id: jobs.body.items[0].id, status: 'failed', error: 'the job has already ended' },
    ]);
    assert.deepEqual((await t.call('POST', `/api/recipes/${id}/cancel_jobs`)).body, { results: [] });
  });
});
