// Three real server processes on one PostgreSQL database, as the README starts them. Two start at
// the same moment on an empty database (one workspace, one admin client, both up), the third
// later. A schedule every minute fires once a minute and a polling trigger polls once a second
// across the three. Then load: webhooks whose jobs write a lookup table, token regenerations,
// publishes and consumes spread across the nodes, and one node killed with SIGKILL while it holds
// a running job. Then a graceful stop (SIGTERM) of a node with running jobs, which finish. Then:
// every acknowledged webhook is exactly one job; the killed node's running jobs, and only they,
// were failed Interrupted by a survivor; every other job succeeded, its lookup-table row written
// (no job left running by a deadlock of the nodes' writes); every acknowledged message was
// consumed once and in order, a long poll on one node woke for a publish on another at once, and
// every regenerated token was refused by every node. Every wait is for a condition; latencies
// are printed, and checked by the benchmarks (`npm run bench -- nodes`, `pubsub`). PostgreSQL only.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { tempDir } from './helpers.ts';
import { api, startServer, type Running } from './process-helpers.ts';
import { action, condition, numbered, pill, type StepDoc } from './recipes.ts';
import { emptyPostgresDatabase, postgresOnly } from './test-database.ts';

const ADMIN = `wrkdev-multinode${'0'.repeat(48)}`;
const LEASE_MS = 3000;
const MINUTE = 60_000;

type Node = Running & { name: string };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(50);
  }
}

describe(
  'several nodes sharing one PostgreSQL database',
  { skip: postgresOnly('three server processes on one PostgreSQL database') },
  () => {
    const nodes: Node[] = [];
    // A stand-in for the polling trigger's service: every request's time.
    const polls: number[] = [];
    const upstream = createServer((_req, res) => {
      polls.push(Date.now());
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ items: [{ id: 1 }] }));
    });
    after(async () => {
      for (const node of nodes)
        if (node.child.exitCode === null && node.child.signalCode === null) node.child.kill('SIGKILL');
      await Promise.all(nodes.map((node) => node.exited));
      upstream.closeAllConnections();
      await new Promise((resolve) => upstream.close(resolve));
    });

    test('three nodes: started together, schedules and polls once, load, one killed with SIGKILL, one stopped with SIGTERM', async (t) => {
      const url = await emptyPostgresDatabase();
      const sql = async <R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> => {
        const db = new pg.Client({ connectionString: url });
        await db.connect();
        try {
          return (await db.query<R>(text, values)).rows;
        } finally {
          await db.end();
        }
      };
      await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
      const env = {
        DATABASE_URL: url,
        SWITCHBOARD_ADMIN_TOKEN: ADMIN,
        SWITCHBOARD_SECRET_KEY: randomBytes(32).toString('hex'),
        NODE_LEASE_MS: String(LEASE_MS),
        SHUTDOWN_TIMEOUT_MS: '20000',
        TRIGGER_POLL_SECONDS: '1',
      };
      const start = async (name: string) => {
        const node = { ...(await startServer(tempDir(`sb-node-${name}-`), env)), name };
        nodes.push(node);
        return node;
      };
      // Two nodes at the same moment on an empty database: each migrates and looks for the first
      // workspace; it is made once, with one admin client, and both start.
      const [a, b] = (await Promise.all([start('a'), start('b')])) as [Node, Node];
      assert.deepEqual(await sql('select name from workspaces'), [{ name: 'Switchboard' }], 'one workspace');
      assert.deepEqual(
        await sql('select name from developer_api_clients'),
        [{ name: 'Admin (SWITCHBOARD_ADMIN_TOKEN)' }],
        'one admin client',
      );
      const call = (node: Node, method: string, path: string, body?: unknown, token = ADMIN) =>
        api(node.baseUrl, method, path, token, body);
      const created = async (node: Node, name: string, code: StepDoc, concurrency = 1) => {
        const recipe = await call(node, 'POST', '/api/recipes', {
          recipe: { name, code: JSON.stringify(code), concurrency },
        });
        assert.equal(recipe.status, 200, JSON.stringify(recipe.body));
        const id: number = recipe.body.id;
        assert.deepEqual((await call(node, 'PUT', `/api/recipes/${id}/start`)).body, { success: true });
        return id;
      };

      // A schedule every minute, started on a (b arms it from the notification); a polling trigger
      // every second, started on b. The third node starts later and arms both from its own start.
      const scheduleId = await created(
        a,
        'Every minute',
        numbered({
          keyword: 'trigger',
          provider: 'clock',
          name: 'scheduled_event',
          as: 'tick',
          input: { time_unit: 'minutes', trigger_every: '1', timezone: 'UTC' },
          block: [],
        }),
      );
      const scheduleStartedAt = Date.now();
      const pollId = await created(
        b,
        'Every second',
        numbered({
          keyword: 'trigger',
          provider: 'rest',
          name: 'new_poll_event',
          as: 'poll',
          input: {
            request: { method: 'GET', url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/items` },
            records_path: 'items',
            cursor_field: 'id',
          },
          block: [],
        }),
      );
      const c = await start('c');
      assert.equal((await call(c, 'GET', '/api/users/me')).status, 200, 'a node started later joins');

      // Lookup tables: one the jobs write, one that holds the held jobs until released.
      const table = async (name: string, label: string) => {
        const made = await call(a, 'POST', '/api/lookup_tables', { name, schema: [{ label }] });
        assert.equal(made.status, 200, JSON.stringify(made.body));
        return made.body.id as number;
      };
      const writtenId = await table('Written by jobs', 'seq');
      const gateId = await table('Gate', 'name');
      // A webhook recipe (every node takes its webhooks) whose jobs pause and write their row.
      const recipeId = await created(
        a,
        'Across nodes',
        numbered({
          keyword: 'trigger',
          provider: 'workato_webhooks',
          name: 'new_event',
          as: 'hook',
          input: {},
          block: [
            action('clock', 'wait_for_interval', 'pause', { interval: '0.05' }),
            action('lookup_table', 'add_entry', 'row', {
              lookup_table_id: String(writtenId),
              parameters: { col1: pill('workato_webhooks', 'hook', 'payload', 'seq') },
            }),
          ],
        }),
        3,
      );
      // Jobs that run until the gate holds a row named release: running for as long as the test wants.
      const heldId = await created(
        b,
        'Held',
        numbered({
          keyword: 'trigger',
          provider: 'workato_webhooks',
          name: 'new_event',
          as: 'hook',
          input: {},
          block: [
            {
              keyword: 'repeat',
              as: 'hold',
              block: [
                action('clock', 'wait_for_interval', 'pause', { interval: '0.1' }),
                { keyword: 'while_condition', input: condition('blank', "=lookup('Gate', 'name' => 'release')") },
              ],
            },
          ],
        }),
        10,
      );
      const pathOf = async (id: number) =>
        new URL((await call(b, 'GET', `/api/recipes/${id}`)).body.webhook_url).pathname;
      const hookPath = await pathOf(recipeId);
      const heldPath = await pathOf(heldId);
      const pidOf = (node: Node) => `/${node.child.pid}/`;
      /**
       * Send held jobs to `node` until it runs one (any node may claim a job; the one that received it
       * mostly does). Held jobs end only when the gate opens, so every one sent is running or queued.
       */
      const holdJobOn = async (node: Node) => {
        for (let n = 0; n < 8; n++) {
          const res = await fetch(node.baseUrl + heldPath, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ held: n }),
          });
          assert.equal(res.status, 200);
          await until(
            'the held jobs claimed',
            async () =>
              (await sql("select id from jobs where recipe_id = $1 and status = 'queued'", [heldId])).length === 0,
            20_000,
          );
          const running = await sql<{ claimed_by: string }>(
            "select claimed_by from jobs where recipe_id = $1 and status = 'running'",
            [heldId],
          );
          if (running.some((job) => job.claimed_by.includes(pidOf(node)))) return;
        }
        throw new Error(`no held job ran on ${node.name}`);
      };

      const topic = await call(b, 'POST', '/api/event_streams/topics', { name: 'Across nodes' });
      assert.equal(topic.status, 200);
      const topicId: number = topic.body.data.id;

      // A developer API client whose token is regenerated again and again on one node.
      const roles = await call(a, 'GET', '/api/developer_api_client_roles');
      const adminRole = (roles.body.result.items as Array<{ id: number; name: string }>).find(
        (r) => r.name === 'Admin',
      );
      assert.ok(adminRole, 'an admin role');
      const client = await call(c, 'POST', '/api/developer_api_clients', {
        name: 'rotating',
        api_privilege_group_id: adminRole.id,
        all_folders: true,
      });
      assert.equal(client.status, 200, JSON.stringify(client.body));
      const clientId: number = client.body.result.id;
      let currentToken: string = client.body.result.token.value;
      for (const node of nodes)
        assert.equal(
          (await call(node, 'GET', '/api/developer_api_clients', undefined, currentToken)).status,
          200,
          `token works on ${node.name}`,
        );

      // A long poll on a wakes for a publish on b at once.
      const waiting = call(a, 'POST', `/api/v1/topics/${topicId}/consume`, { batch_size: 10, timeout_secs: 10 });
      await sleep(300);
      const publishedAt = Date.now();
      const first = await call(b, 'POST', `/api/v1/topics/${topicId}/publish`, { producer: -1, n: 0 });
      assert.equal(first.status, 200);
      const woke = await waiting;
      const wakeMs = Date.now() - publishedAt;
      assert.equal(woke.status, 200);
      assert.deepEqual(
        woke.body.messages.map((m: { payload: unknown }) => m.payload),
        [{ producer: -1, n: 0 }],
      );
      // Woken by the publish, not ended by its 10 s timeout (how fast: `npm run bench -- pubsub`).
      assert.ok(wakeMs < 5000, `the long poll on a woke ${wakeMs} ms after the publish on b`);
      t.diagnostic(`long poll on a woke ${wakeMs} ms after a publish on b`);

      // The schedule's second tick comes with all three nodes up: one job per tick.
      await until(
        'the schedule fired twice',
        async () => (await sql('select id from jobs where recipe_id = $1', [scheduleId])).length >= 2,
        2 * MINUTE,
      );

      // The load. Webhooks round-robin over the live nodes; two producers publish in order on b and c;
      // a consumer on a follows the topic; the client's token is regenerated on b, and every node is
      // asked with the old token until it refuses it.
      let killed = false;
      let stop = false;
      const live = () => (killed ? [a, b] : nodes);
      const acknowledgedHooks = new Set<number>();
      let hookSeq = 0;
      const sendHooks = async () => {
        while (!stop) {
          const seq = hookSeq++;
          const targets = live();
          const node = targets[seq % targets.length]!;
          try {
            const res = await fetch(node.baseUrl + hookPath, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ seq }),
            });
            if (res.status === 200 && ((await res.json()) as { status: string }).status === 'ok')
              acknowledgedHooks.add(seq);
          } catch {
            // cut by the kill: not acknowledged
          }
        }
      };
      const acknowledgedMessages: Array<{ id: string; producer: number; n: number }> = [];
      const produce = async (producer: number, node: Node) => {
        for (let n = 1; !stop; n++) {
          if (node === c && killed) return;
          try {
            const res = await call(node, 'POST', `/api/v1/topics/${topicId}/publish`, { producer, n });
            if (res.status === 200) acknowledgedMessages.push({ id: res.body.message_id, producer, n });
          } catch {
            return;
          }
          await sleep(5);
        }
      };
      const consumed: Array<{ message_id: string; payload: { producer: number; n: number } }> = [];
      let cursor: string = first.body.message_id;
      const consume = async () => {
        while (!stop) {
          const res = await call(a, 'POST', `/api/v1/topics/${topicId}/consume`, {
            batch_size: 50,
            after_message_id: cursor,
            timeout_secs: 1,
          });
          assert.equal(res.status, 200);
          for (const message of res.body.messages) consumed.push(message);
          if (res.body.messages.length > 0) cursor = res.body.messages.at(-1).message_id;
        }
      };
      const revocationMs: number[] = [];
      const rotate = async () => {
        for (let round = 0; !stop && round < 20; round++) {
          const old = currentToken;
          const fresh = await call(b, 'POST', `/api/developer_api_clients/${clientId}/regenerate`);
          assert.equal(fresh.status, 200);
          currentToken = fresh.body.result.token.value;
          const at = Date.now();
          await Promise.all(
            live().map(async (node) => {
              await until(
                `the old token refused by ${node.name}`,
                async () => {
                  try {
                    return (
                      (await call(node, 'GET', '/api/developer_api_clients?per_page=1', undefined, old)).status === 401
                    );
                  } catch {
                    return killed && node === c;
                  }
                },
                10_000,
              );
              revocationMs.push(Date.now() - at);
              if (node === c) return;
              assert.equal(
                (await call(node, 'GET', '/api/developer_api_clients?per_page=1', undefined, currentToken)).status,
                200,
                `the new token works on ${node.name}`,
              );
            }),
          );
          await sleep(50);
        }
      };
      const load = [...Array.from({ length: 6 }, sendHooks), produce(1, b), produce(2, c), consume(), rotate()];

      try {
        await until(
          'a load in full swing',
          async () => acknowledgedHooks.size >= 120 && acknowledgedMessages.length >= 40,
          30_000,
        );
        // c holds a job that cannot end before the gate opens, so it has a running job when killed.
        await holdJobOn(c);
        killed = true;
        c.child.kill('SIGKILL');
        assert.equal(await c.exited, null, 'c was killed');
        // The survivors go on under load until one of them has failed c's running jobs (once their
        // lease has run out): no job is left running on c.
        await until(
          "c's running jobs failed by a survivor",
          async () =>
            (await sql("select id from jobs where status = 'running' and claimed_by like $1", [`%${pidOf(c)}%`]))
              .length === 0,
          30_000,
        );
      } finally {
        // Also when a wait above failed: the load stops, so the test ends.
        stop = true;
        await Promise.allSettled(load);
      }
      await Promise.all(load);

      // A graceful stop of b while it runs a held job: the job is running when b gets SIGTERM, the
      // gate opens while b stops, and b finishes and records its jobs before it exits.
      await holdJobOn(b);
      b.child.kill('SIGTERM');
      const release = await call(a, 'POST', `/api/lookup_tables/${gateId}/rows`, { data: { name: 'release' } });
      assert.equal(release.status, 200, JSON.stringify(release.body));
      assert.equal(await b.exited, 0, `b stopped cleanly:\n${b.output().slice(-2000)}`);

      // Every job ends: c's running ones failed Interrupted by a within a lease and a heartbeat.
      for (const id of [recipeId, heldId])
        await until(
          'every job ended',
          async () =>
            (await call(a, 'GET', `/api/recipes/${id}/jobs?status=pending&per_page=1`)).body.job_scope_count === 0,
          30_000,
        );
      const jobs = await sql<{
        recipe_id: number;
        trigger_output: string;
        status: string;
        error_parts: string | null;
        claimed_by: string | null;
      }>(
        'select recipe_id::int as recipe_id, trigger_output, status, error_parts, claimed_by from jobs where recipe_id = any($1)',
        [[recipeId, heldId]],
      );
      const jobsOf = new Map<number, number>();
      const interruptedOf = new Map<number, number>([
        [recipeId, 0],
        [heldId, 0],
      ]);
      const runners = new Set<string>();
      let ranOnB = 0;
      for (const job of jobs) {
        if (job.claimed_by) runners.add(job.claimed_by.split('/')[1]!);
        if (job.status === 'failed') {
          assert.equal(JSON.parse(job.error_parts ?? '{}').error_type, 'Interrupted');
          assert.ok(job.claimed_by?.includes(pidOf(c)), "only the killed node's jobs were interrupted");
          interruptedOf.set(job.recipe_id, interruptedOf.get(job.recipe_id)! + 1);
        } else assert.equal(job.status, 'succeeded', 'every other job succeeded (none left running)');
        if (job.recipe_id === heldId && job.claimed_by?.includes(pidOf(b))) ranOnB++;
        if (job.recipe_id !== recipeId) continue;
        const seq = (JSON.parse(job.trigger_output) as { payload: { seq: number } }).payload.seq;
        jobsOf.set(seq, (jobsOf.get(seq) ?? 0) + 1);
      }
      assert.ok(interruptedOf.get(heldId)! >= 1, "the killed node's held job was failed Interrupted");
      assert.ok(ranOnB >= 1, 'b was running a held job when it stopped; it succeeded');
      assert.deepEqual(
        [...acknowledgedHooks].filter((seq) => !jobsOf.has(seq)),
        [],
        'every acknowledged webhook has its job',
      );
      assert.deepEqual(
        [...jobsOf].filter(([, n]) => n > 1),
        [],
        'no webhook has two jobs',
      );
      assert.ok(runners.size >= 3, 'jobs ran on every node');
      // Each succeeded job wrote its row: the nodes' job ends and lookup-table writes met without loss.
      const rows = new Set(
        (await sql<{ col1: string }>('select col1 from lookup_table_rows where table_id = $1', [writtenId])).map(
          (r) => r.col1,
        ),
      );
      const succeededSeqs = jobs
        .filter((job) => job.recipe_id === recipeId && job.status === 'succeeded')
        .map((job) => String((JSON.parse(job.trigger_output) as { payload: { seq: number } }).payload.seq));
      assert.deepEqual(
        succeededSeqs.filter((seq) => !rows.has(seq)),
        [],
        'every succeeded job wrote its lookup-table row',
      );
      for (const id of [recipeId, heldId]) {
        const counters = (await call(a, 'GET', `/api/recipes/${id}`)).body;
        assert.equal(
          counters.job_succeeded_count + counters.job_failed_count,
          jobs.filter((job) => job.recipe_id === id).length,
          "the recipe's counters match its jobs",
        );
      }

      // The schedule: one job per minute, each a minute after the one before, whichever node fired it.
      assert.deepEqual((await call(a, 'PUT', `/api/recipes/${scheduleId}/stop`)).body, { success: true });
      const ticks = (
        await sql<{ trigger_output: string }>('select trigger_output from jobs where recipe_id = $1', [scheduleId])
      )
        .map((job) => Date.parse((JSON.parse(job.trigger_output) as { scheduled_time: string }).scheduled_time))
        .sort((x, y) => x - y);
      assert.ok(ticks.length >= 2, 'the schedule fired at least twice');
      assert.ok(ticks[0]! >= scheduleStartedAt - 1000, 'first at its start');
      assert.deepEqual(
        ticks.slice(1).map((at, i) => at - ticks[i]!),
        ticks.slice(1).map(() => MINUTE),
        'one firing per minute across the nodes',
      );
      // The polling trigger: its turns start at least a second apart, and a request leaves its node
      // some time after its turn started (up to `late`, generous for a loaded machine: over the
      // minutes of the test, three nodes polling each on its own would ask about three times a second).
      assert.deepEqual((await call(a, 'PUT', `/api/recipes/${pollId}/stop`)).body, { success: true });
      const late = 10_000;
      const pollSpan = polls.at(-1)! - polls[0]!;
      assert.ok(polls.length >= 10, `the URL was polled (${polls.length} times)`);
      assert.ok(
        (polls.length - 1) * 1000 <= pollSpan + late,
        `${polls.length} polls in ${pollSpan} ms: at most one a second across the nodes`,
      );
      assert.equal(
        (await sql('select id from jobs where recipe_id = $1', [pollId])).length,
        1,
        'the record became one job',
      );

      // Messages: every acknowledged one consumed once, in publish order (each producer's in its order).
      for (;;) {
        const rest = await call(a, 'POST', `/api/v1/topics/${topicId}/consume`, {
          batch_size: 50,
          after_message_id: cursor,
        });
        assert.equal(rest.status, 200);
        consumed.push(...rest.body.messages);
        if (rest.body.messages.length < 50) break;
        cursor = rest.body.messages.at(-1).message_id;
      }
      const ids = consumed.map((m) => m.message_id);
      assert.equal(new Set(ids).size, ids.length, 'no message consumed twice');
      for (let i = 1; i < ids.length; i++) assert.ok(ids[i]! > ids[i - 1]!, 'consumed in order');
      const consumedIds = new Set(ids);
      assert.deepEqual(
        acknowledgedMessages.filter((m) => !consumedIds.has(m.id)),
        [],
        'every acknowledged message was consumed',
      );
      for (const producer of [1, 2]) {
        const ns = consumed.filter((m) => m.payload.producer === producer).map((m) => m.payload.n);
        assert.deepEqual(
          ns,
          [...ns].sort((x, y) => x - y),
          `producer ${producer}'s messages in its order`,
        );
      }

      // Revocation: every node refused each old token (each wait above); how fast is a figure here
      // and a target of `npm run bench -- nodes`, not a condition of a test on a shared machine.
      revocationMs.sort((x, y) => x - y);
      const worst = revocationMs.at(-1)!;
      const [deadlocks] = await sql<{ n: string }>(
        'select deadlocks::text as n from pg_stat_database where datname = current_database()',
      );
      t.diagnostic(
        `webhooks acknowledged ${acknowledgedHooks.size}, jobs ${jobs.length} (${interruptedOf.get(recipeId)} + ${interruptedOf.get(heldId)} held interrupted on the killed node); schedule ticks ${ticks.length}; polls ${polls.length} in ${pollSpan} ms; messages ${acknowledgedMessages.length}; revocations seen ${revocationMs.length}, worst ${worst} ms; deadlocks ${deadlocks?.n}`,
      );
      a.child.kill('SIGTERM');
      assert.equal(await a.exited, 0, 'a stopped cleanly');
    });
  },
);
