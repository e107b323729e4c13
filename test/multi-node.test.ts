// Three real server processes on one PostgreSQL database, under load: webhooks, token
// regenerations, publishes and consumes spread across them, and one node killed with SIGKILL in
// the middle. Then: every acknowledged webhook is exactly one job (run by some node; the killed
// node's running jobs failed Interrupted by a survivor), every acknowledged message was consumed
// once and in order, a long poll on one node woke for a publish on another at once, and every
// regenerated token was refused by every node within a second. PostgreSQL only.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { tempDir } from './helpers.ts';
import { api, startServer, type Running } from './process-helpers.ts';
import { freshPostgresDatabase, postgresOnly } from './test-database.ts';

const ADMIN = `wrkdev-multinode${'0'.repeat(48)}`;
const LEASE_MS = 3000;

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
    let url = '';
    after(async () => {
      for (const node of nodes)
        if (node.child.exitCode === null && node.child.signalCode === null) node.child.kill('SIGKILL');
      await Promise.all(nodes.map((node) => node.exited));
    });

    test('webhooks, publishes, consumes and token regenerations across three nodes, one killed with SIGKILL', async (t) => {
      url = await freshPostgresDatabase();
      const env = {
        DATABASE_URL: url,
        SWITCHBOARD_ADMIN_TOKEN: ADMIN,
        SWITCHBOARD_SECRET_KEY: randomBytes(32).toString('hex'),
        NODE_LEASE_MS: String(LEASE_MS),
      };
      // The first node migrates and makes the workspace; the others join it.
      for (const name of ['a', 'b', 'c'])
        nodes.push({ ...(await startServer(tempDir(`sb-node-${name}-`), env)), name });
      const [a, b, c] = nodes as [Node, Node, Node];
      const call = (node: Node, method: string, path: string, body?: unknown, token = ADMIN) =>
        api(node.baseUrl, method, path, token, body);

      // A webhook recipe (started on a; every node takes its webhooks), jobs slow enough to be running when c dies.
      const code = {
        number: 0,
        keyword: 'trigger',
        provider: 'workato_webhooks',
        name: 'new_event',
        as: 'hook',
        input: {},
        block: [
          {
            number: 1,
            keyword: 'action',
            provider: 'clock',
            name: 'wait_for_interval',
            as: 'pause',
            input: { interval: '0.05' },
          },
        ],
      };
      const recipe = await call(a, 'POST', '/api/recipes', {
        recipe: { name: 'Across nodes', code: JSON.stringify(code), concurrency: 3 },
      });
      assert.equal(recipe.status, 200);
      const recipeId: number = recipe.body.id;
      assert.deepEqual((await call(a, 'PUT', `/api/recipes/${recipeId}/start`)).body, { success: true });
      const hookPath = new URL((await call(b, 'GET', `/api/recipes/${recipeId}`)).body.webhook_url).pathname;

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
      assert.ok(wakeMs < 500, `the long poll on a woke ${wakeMs} ms after the publish on b`);
      t.diagnostic(`long poll on a woke ${wakeMs} ms after a publish on b`);

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
                5000,
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
        // Kill c once it has acknowledged work and holds running jobs.
        await until(
          'a load in full swing',
          async () => acknowledgedHooks.size >= 120 && acknowledgedMessages.length >= 40,
          30_000,
        );
        const claimedByC = async () => {
          const db = new pg.Client({ connectionString: url });
          await db.connect();
          try {
            return (
              await db.query<{ n: number }>(
                "select count(*)::int as n from jobs where status = 'running' and claimed_by like $1",
                [`%/${c.child.pid}/%`],
              )
            ).rows[0]!.n;
          } finally {
            await db.end();
          }
        };
        await until('c running jobs', async () => (await claimedByC()) > 0, 10_000);
        killed = true;
        c.child.kill('SIGKILL');
        assert.equal(await c.exited, null, 'c was killed');
        // The survivors go on for a while, past c's leases.
        await sleep(LEASE_MS + 1500);
      } finally {
        // Also when a wait above failed: the load stops, so the test ends.
        stop = true;
        await Promise.allSettled(load);
      }
      await Promise.all(load);

      // Every job ends: c's running ones failed Interrupted by a or b within a lease and a heartbeat.
      await until(
        'every job ended',
        async () =>
          (await call(a, 'GET', `/api/recipes/${recipeId}/jobs?status=pending&per_page=1`)).body.job_scope_count === 0,
        30_000,
      );
      const db = new pg.Client({ connectionString: url });
      await db.connect();
      const jobs = (
        await db.query<{
          trigger_output: string;
          status: string;
          error_parts: string | null;
          claimed_by: string | null;
        }>('select trigger_output, status, error_parts, claimed_by from jobs where recipe_id = $1', [recipeId])
      ).rows;
      await db.end();
      const jobsOf = new Map<number, number>();
      let interrupted = 0;
      const runners = new Set<string>();
      for (const job of jobs) {
        const seq = (JSON.parse(job.trigger_output) as { payload: { seq: number } }).payload.seq;
        jobsOf.set(seq, (jobsOf.get(seq) ?? 0) + 1);
        if (job.claimed_by) runners.add(job.claimed_by.split('/')[1]!);
        if (job.status === 'failed') {
          assert.equal(JSON.parse(job.error_parts ?? '{}').error_type, 'Interrupted');
          assert.ok(job.claimed_by?.includes(`/${c.child.pid}/`), "only the killed node's jobs were interrupted");
          interrupted++;
        } else assert.equal(job.status, 'succeeded');
      }
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
      assert.ok(interrupted > 0, "the killed node's running jobs were failed Interrupted");
      assert.ok(runners.size >= 2, 'jobs ran on several nodes');
      const counters = (await call(b, 'GET', `/api/recipes/${recipeId}`)).body;
      assert.equal(
        counters.job_succeeded_count + counters.job_failed_count,
        jobs.length,
        "the recipe's counters match its jobs",
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

      // Revocation: every node refused each old token within a second.
      revocationMs.sort((x, y) => x - y);
      const worst = revocationMs.at(-1)!;
      t.diagnostic(
        `webhooks acknowledged ${acknowledgedHooks.size}, jobs ${jobs.length} (${interrupted} interrupted on the killed node); messages ${acknowledgedMessages.length}; revocations seen ${revocationMs.length}, worst ${worst} ms`,
      );
      assert.ok(worst <= 1000, `every node refused a regenerated client's old token within 1 s (worst ${worst} ms)`);
      for (const node of [a, b]) {
        node.child.kill('SIGTERM');
        assert.equal(await node.exited, 0, `${node.name} stopped cleanly`);
      }
    });
  },
);
