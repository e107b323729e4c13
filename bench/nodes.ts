// npm run bench -- nodes: several Switchboard nodes on one PostgreSQL database (started on
// loopback, or BENCH_DATABASE_URL). Prints jobs per second with one node, then with two nodes on
// the same database (the webhooks split between them), and how long until every node refuses the
// old token of a developer API client whose token was regenerated on one of them (p50, p99).
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { newPostgresDatabase, queryRows, useDatabase } from './database.ts';
import { load } from './lib.ts';
import { startSwitchboard } from './platform.ts';

type Node = Awaited<ReturnType<typeof startSwitchboard>>;

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
      provider: 'workato_variable',
      name: 'declare_variable',
      as: 'vars',
      input: { variables: { schema: JSON.stringify([{ name: 'total', type: 'integer' }]), data: { total: '5' } } },
    },
    { number: 2, keyword: 'action', provider: 'logger', name: 'log_message', as: 'one', input: { message: 'first' } },
    { number: 3, keyword: 'action', provider: 'logger', name: 'log_message', as: 'two', input: { message: 'second' } },
  ],
};

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function drained(node: Node, recipeId: number): Promise<void> {
  for (;;) {
    if ((await node.api('GET', `/api/recipes/${recipeId}/jobs?status=pending&per_page=1`)).job_scope_count === 0)
      return;
    await sleep(200);
  }
}

/** Webhooks at full speed for `seconds`, split over the nodes; jobs per second from the first call to the last job done. */
async function jobsPerSecond(
  nodes: Node[],
  seconds: number,
  connections: number,
): Promise<{ jobs: number; perSecond: number; byNode: Map<string, number> }> {
  const [first] = nodes as [Node];
  const recipe = await first.api('POST', '/api/recipes', {
    recipe: { name: `Nodes ${nodes.length}`, code: JSON.stringify(code), concurrency: 10 },
  });
  await first.api('PUT', `/api/recipes/${recipe.id}/start`);
  await sleep(200);
  const hookPath = new URL((await first.api('GET', `/api/recipes/${recipe.id}`)).webhook_url).pathname;
  const t0 = Date.now();
  await Promise.all(
    nodes.map((node) =>
      load({
        url: node.url + hookPath,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"n":1}',
        seconds,
        connections: Math.max(1, Math.round(connections / nodes.length)),
      }),
    ),
  );
  await drained(first, recipe.id);
  const jobs = await queryRows<{ completed_at: string; claimed_by: string | null }>(
    first,
    '',
    'select completed_at, claimed_by from jobs where recipe_id = $1',
    [recipe.id],
  );
  const lastDone = Math.max(...jobs.map((j) => Date.parse(j.completed_at)));
  const byNode = new Map<string, number>();
  for (const job of jobs) byNode.set(job.claimed_by ?? '?', (byNode.get(job.claimed_by ?? '?') ?? 0) + 1);
  return { jobs: jobs.length, perSecond: jobs.length / ((lastDone - t0) / 1000), byNode };
}

export async function main(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      seconds: { type: 'string', default: '10' },
      connections: { type: 'string', default: '32' },
      rounds: { type: 'string', default: '100' },
    },
  });
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  const rounds = Number(values.rounds);
  useDatabase('postgres');
  const env = {
    SWITCHBOARD_SECRET_KEY: randomBytes(32).toString('hex'),
    JOB_BACKLOG_PER_RECIPE: '10000000',
    JOB_BACKLOG_PER_WORKSPACE: '100000000',
  };
  const started: Node[] = [];
  try {
    const single = await startSwitchboard(env);
    started.push(single);
    const one = await jobsPerSecond([single], seconds, connections);
    single.process.kill('SIGTERM');

    const url = await newPostgresDatabase();
    const a = await startSwitchboard({ ...env, DATABASE_URL: url });
    started.push(a);
    const b = await startSwitchboard({ ...env, DATABASE_URL: url });
    started.push(b);
    const two = await jobsPerSecond([a, b], seconds, connections);

    // Revocation: regenerate on a, ask both nodes with the old token until each refuses it.
    const roles = await a.api('GET', '/api/developer_api_client_roles');
    const admin = (roles.result.items as Array<{ id: number; name: string }>).find((r) => r.name === 'Admin')!;
    const client = await a.api('POST', '/api/developer_api_clients', {
      name: 'bench rotation',
      api_privilege_group_id: admin.id,
      all_folders: true,
    });
    let token: string = client.result.token.value;
    const seen: number[] = [];
    const ask = async (node: Node, bearer: string) =>
      (
        await fetch(`${node.url}/api/developer_api_clients?per_page=1`, {
          headers: { authorization: `Bearer ${bearer}` },
        })
      ).status;
    for (let round = 0; round < rounds; round++) {
      // Both nodes have the token in their caches before it is regenerated.
      for (const node of [a, b]) if ((await ask(node, token)) !== 200) throw new Error('the current token was refused');
      const old = token;
      const at = performance.now();
      token = (await a.api('POST', `/api/developer_api_clients/${client.result.id}/regenerate`)).result.token.value;
      await Promise.all(
        [a, b].map(async (node) => {
          while ((await ask(node, old)) !== 401) await sleep(1);
          seen.push(performance.now() - at);
        }),
      );
    }
    seen.sort((x, y) => x - y);

    console.log(
      `\nseveral nodes on one PostgreSQL (loopback, fsync on; the nodes, the database and the load generator share this machine's cores), 3-step webhook recipe, ${connections} connections, ${seconds} s`,
    );
    console.log(`one node:  ${one.perSecond.toFixed(0)} jobs/s (${one.jobs} jobs)`);
    console.log(
      `two nodes: ${two.perSecond.toFixed(0)} jobs/s (${two.jobs} jobs; run by node: ${[...two.byNode.values()].join(' / ')})  ${((100 * two.perSecond) / one.perSecond).toFixed(0)}% of one node`,
    );
    console.log(
      `token regenerated on one node, refused by both: ${seen.length} observations over ${rounds} regenerations, p50 ${percentile(seen, 50).toFixed(1)} ms, p99 ${percentile(seen, 99).toFixed(1)} ms, max ${seen.at(-1)!.toFixed(1)} ms (target p99 <= 1000 ms)`,
    );
  } finally {
    for (const node of started) node.process.kill('SIGTERM');
  }
}
