// The job list's search (GET /console/recipes/:id/jobs with q and date): a job by its id, jobs by
// words of their title, with a status, a jump to a day; a title search reads a bounded window of
// jobs and goes on from its edge. Jobs are written as the engine stores them, one a day.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { consoleSignIn, createTestApp, type ConsoleBrowser, type TestApp } from '../../test/helpers.ts';
import { createRecipe, log, webhookTrigger } from '../../test/recipes.ts';
import { jobRow } from '../../test/job-rows.ts';
import { searchJobTitles } from '../api/jobs/job-search.store.ts';

let t: TestApp;
let admin: ConsoleBrowser;
let recipeId: number;
let otherRecipe: number;
const handles: string[] = [];
const DAY = 86_400_000;
const FIRST = Date.parse('2026-03-01T12:00:00.000Z');

before(async () => {
  t = await createTestApp();
  admin = await consoleSignIn(t, t.adminToken);
  recipeId = await createRecipe(t, webhookTrigger([log('note', 'hello')]), { name: 'Orders' });
  otherRecipe = await createRecipe(t, webhookTrigger([log('note', 'hello')]), { name: 'Other' });
  // Job i started on day i (2026-03-01 + i), titled "Order A-<i>"; every fifth failed.
  const rows = Array.from({ length: 30 }, (_, i) => {
    const at = new Date(FIRST + i * DAY).toISOString();
    return jobRow(recipeId, {
      title: `HTTP: new event: Order A-${i}`,
      status: i % 5 === 4 ? 'failed' : 'succeeded',
      started_at: at,
      created_at: at,
      completed_at: at,
    });
  });
  for (const row of rows) handles.push(row.handle);
  await t.ctx.db
    .insertInto('jobs')
    .values([
      ...rows,
      jobRow(recipeId, { title: 'Order A-1 (test case)', is_test: 1, status: 'succeeded' }),
      jobRow(otherRecipe, { title: 'Order A-1 of another recipe', status: 'succeeded' }),
    ])
    .execute();
});
after(() => t.close());

const titlesIn = (page: string) => [...page.matchAll(/<td><a href="[^"]+">([^<]+)<\/a>/g)].map((m) => m[1]);
const url = (query: string) => `/console/recipes/${recipeId}/jobs?${query}`;

describe('GET /console/recipes/:id/jobs: search', () => {
  test('the list offers the search: an id or title words, a day', async () => {
    const page = (await admin.get(url(''))).body;
    assert.match(page, /<form method="get" action="\/console\/recipes\/\d+\/jobs" class="job-search" role="search">/);
    assert.match(page, /<label for="job-q">Job id or words of its title<\/label>/);
    assert.match(page, /<label for="job-date">Started on or before \(UTC\)<\/label><input id="job-date" type="date"/);
  });

  test('a job by its id (handle or number): that job alone', async () => {
    const handle = handles[7] as string;
    const page = (await admin.get(url(`q=${handle}`))).body;
    assert.deepEqual(titlesIn(page), ['HTTP: new event: Order A-7']);
    assert.match(page, new RegExp(`The job with the id “${handle}”`));
    const row = await t.ctx.db.selectFrom('jobs').select('id').where('handle', '=', handle).executeTakeFirstOrThrow();
    assert.deepEqual(titlesIn((await admin.get(url(`q=${row.id}`))).body), ['HTTP: new event: Order A-7']);
    // Another recipe's job is not found by its id here.
    const other = await t.ctx.db
      .selectFrom('jobs')
      .select('handle')
      .where('recipe_id', '=', otherRecipe)
      .executeTakeFirstOrThrow();
    assert.deepEqual(titlesIn((await admin.get(url(`q=${other.handle}`))).body), []);
  });

  test('words of the title, case-insensitive, newest first; test-case jobs and other recipes apart', async () => {
    const page = (await admin.get(url('q=order%20a-1'))).body;
    assert.deepEqual(titlesIn(page), [
      ...[19, 18, 17, 16, 15, 14, 13, 12, 11, 10].map((i) => `HTTP: new event: Order A-${i}`),
      'HTTP: new event: Order A-1',
    ]);
    assert.doesNotMatch(page, /test case|another recipe/);
    assert.deepEqual(titlesIn((await admin.get(url('q=order%20a-1&tests=true'))).body), ['Order A-1 (test case)']);
    // % and _ are taken as they are typed.
    assert.deepEqual(titlesIn((await admin.get(url('q=A-%25'))).body), []);
    assert.match((await admin.get(url('q=A-%25'))).body, /No job here\./);
  });

  test('with a status: the failed ones of the words', async () => {
    const page = (await admin.get(url('q=a-1&status=failed'))).body;
    assert.deepEqual(titlesIn(page), ['HTTP: new event: Order A-19', 'HTTP: new event: Order A-14']);
    // The status tabs keep the search.
    assert.match(page, /href="\/console\/recipes\/\d+\/jobs\?status=succeeded&amp;q=a-1"/);
  });

  test('a jump to a day: the jobs started on or before it, with or without words', async () => {
    // Day 2026-03-11 is job 10's.
    const page = (await admin.get(url('date=2026-03-11'))).body;
    assert.equal(titlesIn(page)[0], 'HTTP: new event: Order A-10');
    assert.equal(titlesIn(page).length, 11);
    assert.deepEqual(titlesIn((await admin.get(url('date=2026-03-11&q=a-1'))).body), [
      'HTTP: new event: Order A-10',
      'HTTP: new event: Order A-1',
    ]);
    assert.deepEqual(titlesIn((await admin.get(url('date=2026-02-01'))).body), []);
    assert.match((await admin.get(url('date=2026-02-01'))).body, /No job here\./);
  });

  test('bad input is a 400 or 404 page and changes nothing', async () => {
    for (const bad of ['date=2026-02-30', 'date=11.03.2026', 'date=2026-3-1', `q=${'x'.repeat(201)}`]) {
      const res = await admin.get(url(bad));
      assert.equal(res.statusCode, 400, bad);
      assert.match(String(res.headers['content-type']), /^text\/html/);
    }
    const unknown = await admin.get(url('q=a&after=j-nope'));
    assert.equal(unknown.statusCode, 404);
    assert.equal((await admin.get(`/console/recipes/999999/jobs?q=a`)).statusCode, 404);
  });
});

describe('searchJobTitles: a bounded window of jobs a page', () => {
  test('a window reads that many jobs back, says where it stopped, and the next goes on from there', async () => {
    const search = { text: 'order a-', testJobs: 'exclude' as const };
    // The newest ten jobs: the test-case job (started now, not a match here) and jobs 29 to 21.
    const first = await searchJobTitles(t.ctx.db, recipeId, search, null, 100, 10);
    assert.deepEqual(
      first.rows.map((r) => r.title),
      [29, 28, 27, 26, 25, 24, 23, 22, 21].map((i) => `HTTP: new event: Order A-${i}`),
    );
    assert.equal(first.edge?.handle, handles[21]);
    const next = await searchJobTitles(t.ctx.db, recipeId, search, first.edge, 100, 10);
    assert.deepEqual(
      next.rows.map((r) => r.title),
      [20, 19, 18, 17, 16, 15, 14, 13, 12, 11].map((i) => `HTTP: new event: Order A-${i}`),
    );
    // A window holding fewer jobs than its size reaches the end: no edge.
    const last = await searchJobTitles(t.ctx.db, recipeId, search, next.edge, 100, 20);
    assert.equal(last.rows.length, 11);
    assert.equal(last.edge, null);
  });
});
