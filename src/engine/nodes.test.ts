// Two engines (two nodes) taking jobs from one PostgreSQL database: a recipe's concurrency holds
// across them, every job runs once, and a running job whose node stopped renewing its claim is
// failed Interrupted by the other node once the claim has expired. Three engines polling one
// polling trigger: one poll per interval across them. PostgreSQL only: on SQLite one
// process owns the database and counts its recipes' running jobs itself.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../test/helpers.ts';
import { jobRow } from '../../test/job-rows.ts';
import { action, createRecipe, numbered, startRecipe, webhookRecipe } from '../../test/recipes.ts';
import { postgresOnly } from '../../test/test-database.ts';
import { findRecipeById } from '../api/recipes/recipes.store.ts';
import { insertJob, newJobHandle, renewJobLeases } from '../api/jobs/queue.store.ts';
import { createServiceContext } from '../context.ts';
import { toStored } from '../time.ts';
import { createEngine, type RecipeEngine } from './engine.ts';

describe('jobs on two nodes sharing the database', { skip: postgresOnly('row locks and leases between nodes') }, () => {
  let t: TestApp;
  let other: RecipeEngine;
  before(async () => {
    // One worker each: a concurrency of 2 is reached only with both nodes running a job.
    t = await createTestApp({ engine: { leaseMs: 1500, workers: 1 } });
    // Another node: its own context (its own node id) over the same database and notifier.
    const ctx = createServiceContext({
      db: t.ctx.db,
      config: t.ctx.config,
      secretBox: t.ctx.secretBox,
      log: t.ctx.log,
      notifier: t.ctx.notifier,
    });
    other = createEngine(ctx, { pollMs: 50, leaseMs: 1500, workers: 1 });
    await other.start();
  });
  after(async () => {
    await other.close(1000);
    await t.close();
  });

  for (const concurrency of [1, 2]) {
    test(`concurrency ${concurrency} holds across both nodes, and every job runs once`, async () => {
      const { id, path } = await webhookRecipe(
        t,
        [action('clock', 'wait_for_interval', 'pause', { interval: '0.03' })],
        { concurrency },
      );
      let runningNow = 0;
      let peak = 0;
      const started: string[] = [];
      const byNode = new Map<RecipeEngine, number>();
      for (const engine of [t.engine, other]) {
        engine.events.on('job.started', (e) => {
          if (e.recipeId !== id) return;
          started.push(e.jobId);
          byNode.set(engine, (byNode.get(engine) ?? 0) + 1);
          peak = Math.max(peak, ++runningNow);
        });
        engine.events.on('job.succeeded', (e) => {
          if (e.recipeId === id) runningNow--;
        });
      }
      for (let n = 0; n < 12; n++)
        assert.equal((await t.app.inject({ method: 'POST', url: path, payload: { n } })).statusCode, 200);
      other.kick();
      await t.engine.idle(20_000);
      await other.idle(20_000);
      if (concurrency === 2) assert.equal(byNode.size, 2, 'both nodes ran jobs of the recipe');
      assert.equal(peak, concurrency, 'never more running at once than the concurrency');
      assert.equal(started.length, 12);
      assert.equal(new Set(started).size, 12, 'no job started twice');
      assert.equal((await t.call('GET', `/api/recipes/${id}`)).body.job_succeeded_count, 12);
    });
  }

  test('a running job whose node stopped renewing its claim is failed Interrupted by the other node', async () => {
    const { id } = await webhookRecipe(t, [action('clock', 'wait_for_interval', 'pause', { interval: '0.01' })]);
    const row = await findRecipeById(t.ctx.db, id);
    assert.ok(row);
    const base = jobRow(id, { title: 'left running' });
    // A dead node's job, its claim running out in 300 ms; and a live node's, renewed far ahead.
    const deadHandle = newJobHandle();
    await insertJob(t.ctx.db, {
      ...base,
      handle: deadHandle,
      status: 'running',
      claimed_by: 'dead-node/1/0',
      lease_expires_at: toStored(new Date(Date.now() + 300)),
    });
    const liveHandle = newJobHandle();
    await insertJob(t.ctx.db, {
      ...base,
      handle: liveHandle,
      status: 'running',
      claimed_by: 'live-node/2/0',
      lease_expires_at: toStored(new Date(Date.now() + 3_600_000)),
    });
    const statusOf = async (handle: string) =>
      await t.ctx.db
        .selectFrom('jobs')
        .select(['status', 'error_parts'])
        .where('handle', '=', handle)
        .executeTakeFirstOrThrow();
    // Within the claim and a heartbeat (1.5 s lease: a heartbeat every 0.5 s).
    const deadline = Date.now() + 3000;
    while ((await statusOf(deadHandle)).status === 'running') {
      assert.ok(Date.now() < deadline, "the dead node's job was failed within a lease and a heartbeat");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const dead = await statusOf(deadHandle);
    assert.equal(dead.status, 'failed');
    assert.equal(JSON.parse(dead.error_parts ?? '{}').error_type, 'Interrupted');
    assert.equal((await statusOf(liveHandle)).status, 'running', 'a job whose claim holds is left alone');
    assert.equal(
      (await t.call('GET', `/api/recipes/${id}`)).body.job_failed_count,
      1,
      'counted once, though both nodes looked',
    );
    await t.ctx.db.deleteFrom('jobs').where('handle', '=', liveHandle).execute();
  });

  test(
    'a renewal of the claims skips a job whose end is being recorded instead of waiting for it',
    { timeout: 30_000 },
    async () => {
      const { id } = await webhookRecipe(t, [action('clock', 'wait_for_interval', 'pause', { interval: '0.01' })]);
      const stamp = toStored(new Date());
      const claim = (handle: string) =>
        insertJob(t.ctx.db, {
          ...jobRow(id, { handle, status: 'running', title: 'claimed', created_at: stamp, started_at: stamp }),
          claimed_by: 'renewing-node/3/0',
          lease_expires_at: stamp,
        });
      const ending = await claim(newJobHandle());
      const running = await claim(newJobHandle());
      const later = toStored(new Date(Date.now() + 60_000));
      // The end of one job holds its row while the renewal runs: it renews the other and returns.
      await t.ctx.db.transaction().execute(async (trx) => {
        await trx.updateTable('jobs').set({ status: 'succeeded' }).where('id', '=', ending).execute();
        await renewJobLeases(t.ctx.db, 'renewing-node/3/0', later);
      });
      const leases = await t.ctx.db
        .selectFrom('jobs')
        .select(['id', 'lease_expires_at'])
        .where('id', 'in', [ending, running])
        .orderBy('id')
        .execute();
      assert.deepEqual(
        leases.map((job) => job.lease_expires_at),
        [stamp, later],
      );
    },
  );
});

describe('job ends and lookup-table writes on two nodes', { skip: postgresOnly('row locks between nodes') }, () => {
  let t: TestApp;
  let other: RecipeEngine;
  before(async () => {
    t = await createTestApp({ engine: { leaseMs: 30_000, workers: 8 } });
    const ctx = createServiceContext({
      db: t.ctx.db,
      config: t.ctx.config,
      secretBox: t.ctx.secretBox,
      log: t.ctx.log,
      notifier: t.ctx.notifier,
    });
    other = createEngine(ctx, { pollMs: 50, workers: 8 });
    await other.start();
  });
  after(async () => {
    await other.close(1000);
    await t.close();
  });

  test('jobs ending on both nodes while their steps write one lookup table: every job ends, none left running', async () => {
    const table = await t.call('POST', '/api/lookup_tables', {
      body: { name: 'Written by both nodes', schema: [{ label: 'n' }] },
    });
    assert.equal(table.status, 200, table.text);
    const add = (as: string) =>
      action('lookup_table', 'add_entry', as, {
        lookup_table_id: String(table.body.id),
        parameters: {
          col1: `#{_dp('{"pill_type":"output","provider":"workato_webhooks","line":"hook","path":["payload","n"]}')}`,
        },
      });
    const { id, path } = await webhookRecipe(t, [add('first'), add('second')], { concurrency: 10 });
    const JOBS = 300;
    await Promise.all(
      Array.from({ length: JOBS }, async (_, n) => {
        const res = await t.app.inject({ method: 'POST', url: path, payload: { n } });
        assert.equal(res.statusCode, 200);
        other.kick();
      }),
    );
    await t.engine.idle(60_000);
    await other.idle(60_000);
    const statuses = await t.ctx.db
      .selectFrom('jobs')
      .select(['status', 'error'])
      .where('recipe_id', '=', id)
      .execute();
    assert.deepEqual(
      statuses.filter((job) => job.status !== 'succeeded'),
      [],
      'every job succeeded: none left running or failed by a deadlock',
    );
    assert.equal(statuses.length, JOBS);
    const rows = await t.ctx.db
      .selectFrom('lookup_table_rows')
      .select('col1')
      .where('table_id', '=', table.body.id)
      .execute();
    const written = new Map<string, number>();
    for (const row of rows) written.set(String(row.col1), (written.get(String(row.col1)) ?? 0) + 1);
    assert.equal(written.size, JOBS, "every job's rows are there");
    assert.ok(
      [...written.values()].every((n) => n === 2),
      'each job wrote its two rows once',
    );
  });
});

describe('a polling trigger on three nodes sharing the database', { skip: postgresOnly('turns between nodes') }, () => {
  const INTERVAL_MS = 500;
  let t: TestApp;
  const others: RecipeEngine[] = [];
  const requests: number[] = [];
  const upstream = createServer((_req, res) => {
    requests.push(Date.now());
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify([{ id: 1 }, { id: 2 }]));
  });
  before(async () => {
    t = await createTestApp({ engine: { triggerPollMs: INTERVAL_MS } });
    for (let n = 0; n < 2; n++) {
      const ctx = createServiceContext({
        db: t.ctx.db,
        config: t.ctx.config,
        secretBox: t.ctx.secretBox,
        log: t.ctx.log,
        notifier: t.ctx.notifier,
      });
      const engine = createEngine(ctx, { pollMs: 50, triggerPollMs: INTERVAL_MS });
      await engine.start();
      others.push(engine);
    }
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    for (const engine of others) await engine.close(1000);
    await t.close();
    upstream.closeAllConnections();
    await new Promise((resolve) => upstream.close(resolve));
  });

  test('the URL is asked once per interval across the nodes, and each record is one job', async () => {
    const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/items`;
    const id = await createRecipe(
      t,
      numbered({
        keyword: 'trigger',
        provider: 'rest',
        name: 'new_poll_event',
        as: 'poll',
        input: { request: { method: 'GET', url }, cursor_field: 'id' },
        block: [],
      }),
    );
    // Started on the first node; the others arm it from the notification, each at its own time.
    await startRecipe(t, id);
    const POLLS = 16;
    const deadline = Date.now() + 60_000;
    while (requests.length < POLLS) {
      assert.ok(Date.now() < deadline, `${POLLS} polls within 60 s (${requests.length})`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await t.call('PUT', `/api/recipes/${id}/stop`);
    // Turns start at least an interval apart; a request leaves its node some time after its turn
    // started (up to `late`, generous for a loaded machine), so n polls span at least (n - 1)
    // intervals less `late`. Three nodes each polling every interval would span about a third of
    // that, well below it.
    const late = 3000;
    const spanMs = requests[POLLS - 1]! - requests[0]!;
    assert.ok(
      spanMs + late >= (POLLS - 1) * INTERVAL_MS,
      `${POLLS} polls within ${spanMs} ms: more than one per interval of ${INTERVAL_MS} ms across the nodes`,
    );
    const jobs = await t.ctx.db.selectFrom('jobs').select('trigger_output').where('recipe_id', '=', id).execute();
    assert.deepEqual(jobs.map((job) => JSON.parse(job.trigger_output).id).sort(), [1, 2], 'each record once');
  });
});
