// Connectors. `npm run bench -- connectors [--jobs N --saas-only --custom-only --seconds N --connections N --calls N --concurrency N]`:
// - SaaS connectors (saas-connectors.ts): a Salesforce SOQL search and a Slack post through their
//   stand-ins, jobs/s beside the HTTP connector making the same request (`--saas-only`: this alone);
// - jobs (`customConnectorJobs`): a server of its own runs webhook recipes whose step is a custom
//   connector's action calling a local HTTP server, beside the same GET made by the built-in HTTP
//   connector in the same run: the first custom step of the fresh server, each step's time (p50,
//   p99, from the job lines) and jobs/s of both;
// - the Ruby runtime alone (`runtimeCalls`): the first call of a fresh process, the cost of a call
//   beside the same HTTP request made directly, a switch of workspace on one interpreter, each
//   worker's memory.
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { Pool, request } from 'undici';
import { createDirectHost } from '../src/connectors/sdk/direct-host.ts';
import { installedRubySnapshotFile } from '../src/connectors/sdk/ruby-sandbox.ts';
import { createConnectorRuntime } from '../src/connectors/sdk/runtime.ts';
import { load, loadOptions, tempDir } from './lib.ts';
import { queryRows } from './database.ts';
import { drained, finishedJobs } from './jobs.ts';
import { startSwitchboard } from './platform.ts';
import { saasConnectorsBench } from './saas-connectors.ts';

const CONNECTOR = String.raw`{
  title: 'Bench',
  connection: {
    authorization: { type: 'api_key', apply: lambda { |connection| headers('X-Api-Key' => connection['key']) } },
    base_uri: lambda { |connection| connection['base'] }
  },
  test: lambda { |_connection| get('/items/0') },
  actions: {
    get_item: {
      execute: lambda do |connection, input|
        item = get("/items/#{input['id']}")
        { id: item['id'], name: item['name'].upcase }
      end
    }
  }
}`;

function option(args: string[], name: string, fallback: number): number {
  const at = args.indexOf(`--${name}`);
  return at >= 0 && args[at + 1] ? Number(args[at + 1]) : fallback;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

const ms = (n: number) => `${n.toFixed(2)} ms`;

/** N calls, `concurrency` at a time: each call's latency and the calls per second. */
async function drive(calls: number, concurrency: number, one: (i: number) => Promise<void>) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    [...Array(concurrency)].map(async () => {
      while (next < calls) {
        const i = next++;
        const t = performance.now();
        await one(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), perSecond: calls / seconds };
}

/**
 * CPU time of each thread of a process so far (Linux: /proc/PID/task/TID/stat, utime + stime in
 * clock ticks of 10 ms), by the thread's name; an empty map where /proc is not there.
 */
function threadCpuMs(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return byName;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // The name is in parentheses and may hold spaces; the fields after it are fixed.
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(fields[11]) + Number(fields[12]);
      const key = tid === String(pid) ? 'main' : name;
      byName.set(key, (byName.get(key) ?? 0) + ticks * 10);
    } catch {
      /* the thread ended */
    }
  }
  return byName;
}

/** What each thread (by name) spent between two readings, per job, in ms. */
function cpuPerJob(before: Map<string, number>, after: Map<string, number>, jobs: number): string {
  if (after.size === 0 || jobs === 0) return 'not measured (no /proc)';
  let total = 0;
  const parts: string[] = [];
  for (const [name, ms] of [...after].sort((a, b) => b[1] - a[1])) {
    const spent = ms - (before.get(name) ?? 0);
    total += spent;
    if (spent / jobs >= 0.005) parts.push(`${name} ${(spent / jobs).toFixed(3)}`);
  }
  return `${(total / jobs).toFixed(3)} ms (${parts.join(', ')})`;
}

/** A fresh process that makes one call and says how long each part took. */
function firstCallOfFreshProcess(base: string): Promise<{ total: number; call: number }> {
  const script = `
    const started = performance.now();
    const { createConnectorRuntime } = await import(${JSON.stringify(path.resolve(import.meta.dirname, '../src/connectors/sdk/runtime.ts'))});
    const { createDirectHost } = await import(${JSON.stringify(path.resolve(import.meta.dirname, '../src/connectors/sdk/direct-host.ts'))});
    const { installedRubySnapshotFile } = await import(${JSON.stringify(path.resolve(import.meta.dirname, '../src/connectors/sdk/ruby-sandbox.ts'))});
    const runtime = createConnectorRuntime({ workers: 1, memoryBytes: 128 * 1024 * 1024, snapshotFiles: [installedRubySnapshotFile()] });
    const host = createDirectHost();
    const t = performance.now();
    const outcome = await runtime.invoke({ source: ${JSON.stringify(CONNECTOR)}, connectorName: 'Bench', workspaceId: 1,
      path: 'actions.get_item.execute', params: { settings: { base: ${JSON.stringify(base)}, key: 'k' }, input: { id: 1 } } }, host);
    if (!outcome.ok) throw new Error(outcome.error.message);
    process.stdout.write(JSON.stringify({ call: performance.now() - t, sinceStart: performance.now() - started }));
    await runtime.close(); await host.close();
  `;
  // A file, not `-e`: worker threads inherit the process's options, and `--input-type` is refused there.
  const file = path.join(tempDir('sb-bench-connectors-'), 'first-call.mjs');
  writeFileSync(file, script);
  const launched = performance.now();
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [file], { timeout: 120_000 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`${error.message}\n${stderr}`));
      const out = JSON.parse(stdout) as { call: number; sinceStart: number };
      resolve({ total: performance.now() - launched, call: out.call });
    });
  });
}

export async function main(args: string[]): Promise<void> {
  if (!args.includes('--custom-only')) await saasConnectorsBench(args.filter((a) => a !== '--saas-only'));
  if (args.includes('--saas-only')) return;
  args = args.filter((a) => a !== '--custom-only');
  const own = /^--(calls|concurrency|sequential|jobs)$/;
  const loadArgs = loadOptions(
    args.filter((a, i) => a !== '--saas-only' && !own.test(a) && !own.test(args[i - 1] ?? '')),
  );
  await customConnectorJobs({ ...loadArgs, sequential: option(args, 'sequential', 100) });
  await runtimeCalls(args);
}

/** Until the recipe has no job waiting or running (polled often: the jobs here take milliseconds). */
async function settled(sb: Awaited<ReturnType<typeof startSwitchboard>>, recipeId: number): Promise<void> {
  for (;;) {
    const pending = await sb.api('GET', `/api/recipes/${recipeId}/jobs?status=pending&per_page=1`);
    if (pending.job_scope_count === 0) return;
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Where the same request goes: a local API answering one item. */
async function itemServer(): Promise<{ base: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ id: Number(req.url?.split('/').pop()), name: 'widget' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Jobs of a webhook recipe whose one step is the custom connector's `get_item` (Ruby, through its
 * connection), beside a recipe whose step is the HTTP connector's GET of the same URL, one server,
 * same run. The first custom job is fired as soon as its recipe starts on the fresh server (the
 * Ruby interpreter loads then).
 */
export async function customConnectorJobs(options: {
  seconds: number;
  connections: number;
  sequential: number;
}): Promise<void> {
  const api = await itemServer();
  let sb = await startSwitchboard({
    JOB_BACKLOG_PER_RECIPE: process.env.JOB_BACKLOG_PER_RECIPE ?? '10000000',
    JOB_BACKLOG_PER_WORKSPACE: process.env.JOB_BACKLOG_PER_WORKSPACE ?? '100000000',
    ...(process.env.CONNECTOR_WORKERS ? { CONNECTOR_WORKERS: process.env.CONNECTOR_WORKERS } : {}),
  });
  try {
    const connector = await sb.api('POST', '/api/custom_connectors', { title: 'Bench items', code: CONNECTOR });
    await sb.api('POST', `/api/custom_connectors/${connector.data.id}/release`);
    const provider = connector.data.name as string;
    const connection = await sb.api('POST', '/api/connections', {
      name: 'Bench items',
      provider,
      input: { base: api.base, key: 'k' },
    });
    if (connection.authorization_status !== 'success')
      throw new Error(`the connection did not authorize: ${connection.authorization_error}`);
    const pill = `_dp('${JSON.stringify({ pill_type: 'output', provider: 'workato_webhooks', line: 'hook', path: ['payload', 'id'] })}')`;
    const recipeOf = (step: Record<string, unknown>, config: unknown[]) => ({
      code: JSON.stringify({
        number: 0,
        keyword: 'trigger',
        provider: 'workato_webhooks',
        name: 'new_event',
        as: 'hook',
        input: {},
        block: [{ number: 1, keyword: 'action', as: 'step', ...step }],
      }),
      config: JSON.stringify([{ keyword: 'application', provider: 'workato_webhooks', account_id: null }, ...config]),
      concurrency: 10,
    });
    const kinds = [
      {
        name: 'custom connector action (Ruby)',
        recipe: recipeOf({ provider, name: 'get_item', input: { id: `#{${pill}}` } }, [
          { keyword: 'application', provider, account_id: connection.id },
        ]),
      },
      {
        name: 'HTTP connector GET (baseline)',
        recipe: recipeOf(
          {
            provider: 'rest',
            name: 'make_request_v2',
            input: { request: { method: 'GET', url: `${api.base}/items/#{${pill}}`, headers: { 'X-Api-Key': 'k' } } },
          },
          [],
        ),
      },
    ];
    const body = JSON.stringify({ id: 7 });
    const headers = { 'content-type': 'application/json' };
    const recipes: Array<{ name: string; id: number; hook: string }> = [];
    for (const kind of kinds) {
      const created = await sb.api('POST', '/api/recipes', { recipe: { name: `Bench ${kind.name}`, ...kind.recipe } });
      const started = await sb.api('PUT', `/api/recipes/${created.id}/start`);
      if (!started.success) throw new Error(`recipe did not start: ${JSON.stringify(started)}`);
      recipes.push({ name: kind.name, id: created.id as number, hook: '' });
    }
    // A fresh server on the same data: its recipes run, no interpreter is loaded yet.
    const exited = once(sb.process, 'exit');
    sb.process.kill('SIGTERM');
    await exited;
    // BENCH_SERVER_NODE_OPTIONS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) profiles this server alone.
    sb = await startSwitchboard(
      {
        ...(process.env.CONNECTOR_WORKERS ? { CONNECTOR_WORKERS: process.env.CONNECTOR_WORKERS } : {}),
        ...(process.env.BENCH_SERVER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_SERVER_NODE_OPTIONS } : {}),
      },
      sb.dataDir,
    );
    for (const r of recipes) r.hook = (await sb.api('GET', `/api/recipes/${r.id}`)).webhook_url as string;
    const [custom, http] = recipes as [(typeof recipes)[0], (typeof recipes)[0]];
    const fireAndWait = async (recipe: (typeof recipes)[0]) => {
      await fetch(recipe.hook, { method: 'POST', headers, body });
      await settled(sb, recipe.id);
    };
    const fired = Date.now();
    await fireAndWait(custom);
    const firstJobMs = Date.now() - fired;
    const steps = async (recipeId: number, from: number, to = Infinity) =>
      (
        await queryRows<{ created_at: string; started_at: string; completed_at: string }>(
          sb,
          'select j.created_at, l.started_at, l.completed_at from job_line_rows l join jobs j on j.id = l.job_id where j.recipe_id = ? and l.recipe_line_number = 1 order by j.id',
          'select j.created_at, l.started_at, l.completed_at from job_line_rows l join jobs j on j.id = l.job_id where j.recipe_id = $1 and l.recipe_line_number = 1 order by j.id',
          [recipeId],
        )
      )
        .filter((l) => Date.parse(l.created_at) >= from && Date.parse(l.created_at) < to)
        .map((l) => Date.parse(l.completed_at) - Date.parse(l.started_at));
    const firstStep = (await steps(custom.id, 0))[0] ?? NaN;

    // One job at a time, the two recipes taking turns: each step's own time, nothing queued beside it.
    const oneByOne = Date.now();
    for (let i = 0; i < options.sequential; i += 1) {
      await fireAndWait(custom);
      await fireAndWait(http);
    }
    const customSteps = await steps(custom.id, oneByOne);
    const httpSteps = await steps(http.id, oneByOne);

    // At full speed, one recipe after the other, twice: a flood (autocannon: a refused webhook, 429
    // with Retry-After once the recipe's backlog is full, is sent again at once, so most of the
    // server's work is refusals), then clients that pause 100 ms after a 429 (the backlog stays full,
    // the jobs' own work is what is measured).
    type Result = { name: string; jobs: number; refused: number; perSecond: number; p50: number; cpu: string };
    const fullSpeed = async (r: (typeof kindsMade)[number], send: () => Promise<number>): Promise<Result> => {
      const t0 = Date.now();
      const cpuBefore = threadCpuMs(sb.process.pid!);
      const refused = await send();
      await drained(sb, r.id);
      const jobs = (await finishedJobs(sb, r.id)).filter((j) => Date.parse(j.created_at) >= t0);
      const lastDone = Math.max(...jobs.map((j) => Date.parse(j.completed_at ?? j.created_at)));
      const failed = jobs.filter((j) => j.status !== 'succeeded').length;
      if (failed > 0) throw new Error(`${failed} jobs of ${r.name} did not succeed`);
      // Read after the jobs' queries above too: they are the benchmark's, a few ms over thousands of jobs.
      const cpu = cpuPerJob(cpuBefore, threadCpuMs(sb.process.pid!), jobs.length);
      return {
        cpu,
        name: r.name,
        jobs: jobs.length,
        refused,
        perSecond: jobs.length / ((lastDone - t0) / 1000),
        p50: percentile(await steps(r.id, t0), 50),
      };
    };
    const kindsMade = [custom, http];
    const flood: Result[] = [];
    const paced: Result[] = [];
    for (const r of kindsMade)
      flood.push(
        await fullSpeed(r, async () => {
          const loaded = await load({ url: r.hook, method: 'POST', headers, body, ...options });
          return loaded.non2xx;
        }),
      );
    for (const r of kindsMade)
      paced.push(
        await fullSpeed(r, () => sendPausingOnRefusal(r.hook, headers, body, options.seconds, options.connections)),
      );
    console.log(`\njobs whose one step calls a local HTTP server: a custom connector's action (Ruby) beside the HTTP connector's GET, one server
first custom connector step of a fresh server: ${firstStep} ms (webhook to job done: ${firstJobMs} ms; target <= 2000 ms)
one job at a time (${options.sequential} each, taking turns): custom step p50 ${percentile(customSteps, 50)} ms, p99 ${percentile(customSteps, 99)} ms; HTTP connector step p50 ${percentile(httpSteps, 50)} ms, p99 ${percentile(httpSteps, 99)} ms
  extra cost of the custom step: p50 +${percentile(customSteps, 50) - percentile(httpSteps, 50)} ms (target <= 2 ms; job lines are timed to the millisecond)
at full speed, ${options.connections} keep-alive connections, ${options.seconds} s each:`);
    for (const [label, results] of [
      ['a flood: each refused webhook (429, backlog full) sent again at once', flood],
      ['clients that pause 100 ms after a 429', paced],
    ] as const) {
      const [fast, slow] = results as [Result, Result];
      console.log(`  ${label}:`);
      for (const r of results)
        console.log(
          `    ${r.name.padEnd(32)} ${r.perSecond.toFixed(0)} jobs/s (${r.jobs} jobs, ${r.refused} webhooks refused), step p50 ${r.p50} ms\n      the server's CPU per job, all threads: ${r.cpu}`,
        );
      console.log(
        `    custom connector jobs/s ${(fast.perSecond / slow.perSecond).toFixed(2)} of the HTTP connector's (target >= 0.5)`,
      );
    }
  } finally {
    sb.process.kill('SIGTERM');
    await api.close();
  }
}

/** The Ruby runtime alone, in this process. */
async function runtimeCalls(args: string[]): Promise<void> {
  const calls = option(args, 'calls', 2000);
  const concurrency = option(args, 'concurrency', 2);
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ id: Number(req.url?.split('/').pop()), name: 'widget' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

  const first = await firstCallOfFreshProcess(base);
  process.stdout.write(
    `first custom-connector call of a fresh process: ${ms(first.call)} from the runtime's creation (${ms(first.total)} from the process launch; target: 2000 ms)\n`,
  );

  const runtime = createConnectorRuntime({
    workers: concurrency,
    memoryBytes: 128 * 1024 * 1024,
    snapshotFiles: [installedRubySnapshotFile()],
  });
  const host = createDirectHost();
  const single = createConnectorRuntime({
    workers: 1,
    memoryBytes: 128 * 1024 * 1024,
    snapshotFiles: [installedRubySnapshotFile()],
  });
  const invoke = (workspaceId: number, id: number, on = runtime) =>
    on
      .invoke(
        {
          source: CONNECTOR,
          connectorName: 'Bench',
          workspaceId,
          path: 'actions.get_item.execute',
          params: { settings: { base, key: 'k' }, input: { id } },
        },
        host,
      )
      .then((outcome) => {
        if (!outcome.ok) throw new Error(outcome.error.message);
      });
  try {
    // Warm: every worker started, the module's code compiled by the optimizing tier.
    await drive(200, concurrency, (i) => invoke(1, i));
    const direct = await drive(calls, concurrency, async (i) => {
      const response = await request(`${base}/items/${i}`, { headers: { 'x-api-key': 'k' } });
      await response.body.json();
    });
    const ruby = await drive(calls, concurrency, (i) => invoke(1, i));
    // The same calls with the request answered at once by the host (no network, no wait for this
    // thread): what the interpreter and the hand-overs cost per call.
    const body = new TextEncoder().encode(JSON.stringify({ id: 1, name: 'widget' }));
    const answering = {
      http: (r: { url: string }) =>
        Promise.resolve({ status: 200, headers: { 'content-type': 'application/json' }, body, url: r.url }),
    };
    const answered = (i: number) =>
      single
        .invoke(
          {
            source: CONNECTOR,
            connectorName: 'Bench',
            workspaceId: 1,
            path: 'actions.get_item.execute',
            params: { settings: { base, key: 'k' }, input: { id: i } },
          },
          answering,
        )
        .then((outcome) => {
          if (!outcome.ok) throw new Error(outcome.error.message);
        });
    await drive(100, 1, answered);
    const inWorker = await drive(calls, 1, answered);
    // Two workspaces on two workers each keep their own (a free worker that served the same key is
    // preferred); on one worker, every call of the other workspace first restores the snapshot.
    const switching = await drive(Math.min(calls, 300), 1, (i) => invoke(i % 2 === 0 ? 1 : 2, i, single));
    process.stdout.write(
      [
        `the same GET made directly (undici):          p50 ${ms(direct.p50)}  p99 ${ms(direct.p99)}  ${direct.perSecond.toFixed(0)}/s`,
        `custom connector action (Ruby, ${concurrency} workers):   p50 ${ms(ruby.p50)}  p99 ${ms(ruby.p99)}  ${ruby.perSecond.toFixed(0)}/s`,
        `  cost of the Ruby call over the direct GET:  p50 +${ms(ruby.p50 - direct.p50)} (target +2 ms), calls/s ${(ruby.perSecond / direct.perSecond).toFixed(2)} of it (target 0.5)`,
        `the same call, its request answered at once by the host, one at a time: p50 ${ms(inWorker.p50)}  p99 ${ms(inWorker.p99)}  ${inWorker.perSecond.toFixed(0)}/s`,
        `calls alternating between two workspaces (a snapshot restore each), one worker: p50 ${ms(switching.p50)}  p99 ${ms(switching.p99)}`,
      ].join('\n') + '\n',
    );
    for (const [i, m] of (await runtime.workerMemory()).entries())
      process.stdout.write(
        `Ruby worker ${i + 1}: ${(m.wasmBytes / 1048576).toFixed(0)} MB WebAssembly memory + ${(m.heapBytes / 1048576).toFixed(0)} MB JavaScript heap (goal: 150 MB)\n`,
      );
    process.stdout.write(`this process's resident memory: ${(process.memoryUsage().rss / 1048576).toFixed(0)} MB\n`);
  } finally {
    await single.close();
    await runtime.close();
    await host.close();
    server.close();
  }
}

/**
 * POSTs `body` to `url` for `seconds` on `connections` keep-alive connections, each sending its next
 * webhook when the last is answered and pausing 100 ms after a refusal (429: the recipe's backlog is
 * full), as a client that honours back-pressure does. Returns the number of refusals; any other
 * answer than 200 or 429 fails the benchmark.
 */
async function sendPausingOnRefusal(
  url: string,
  headers: Record<string, string>,
  body: string,
  seconds: number,
  connections: number,
): Promise<number> {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections });
  const end = Date.now() + seconds * 1000;
  let refused = 0;
  try {
    await Promise.all(
      [...Array(connections)].map(async () => {
        while (Date.now() < end) {
          const res = await pool.request({ path: target.pathname + target.search, method: 'POST', headers, body });
          await res.body.dump();
          if (res.statusCode === 429) {
            refused++;
            await new Promise((resolve) => setTimeout(resolve, 100));
          } else if (res.statusCode !== 200) throw new Error(`webhook answered ${res.statusCode}`);
        }
      }),
    );
  } finally {
    await pool.close();
  }
  return refused;
}
