// The server's footprint: start-to-ready (process start until GET /ready answers 200) and resident
// memory at rest, for an empty server, after one request of each area, after a JavaScript and a
// Python step and once their workers are released; then the same server with 10,000 running
// recipes (webhook, schedule and polling triggers mixed): start-to-ready, memory, one webhook's
// cost beside the empty server's, the scheduler's CPU at rest, the recipes list and search.
// Baseline in the same run: a bare Fastify server (bench/servers/bare.ts) started the same way.
import { REST_BEFORE_MS } from '../src/idle-memory.ts';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cpuMicros, releaseAtExit, tempDir } from './lib.ts';
import {
  type HookTarget,
  line,
  load1,
  median,
  pairedWebhookCost,
  printPaired,
  type Proc,
  settled,
  sleep,
  WEBHOOK_RATE,
  webhookCost,
  webhookFigure,
} from './webhook-cost.ts';
import { databaseEnv, recordFigure } from './database.ts';
import { freePort } from './platform.ts';

const ADMIN = `bench-admin-${'0'.repeat(40)}`;
// The server as `npm start` runs it: bin/switchboard (the project's Node.js with its flags and
// glibc's allocator settings, which exec's into Node, so the child's pid is the server's), the
// entry src/entry.js (it turns on the compile cache) and `serve`, so start-to-ready, memory and the
// CPU at rest are what a deploy pays.
const SERVE = ['sh', path.resolve(import.meta.dirname, '../bin/switchboard'), 'serve'];
const BARE = path.resolve(import.meta.dirname, 'servers/bare.ts');
/** Workers idle this long are released in the benchmark's servers (the default is longer). */
const IDLE_MS = 3000;

const mb = (kb: number) => kb / 1024;

function status(pid: number): { rssKb: number; threads: number } {
  const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  return { rssKb: field('VmRSS'), threads: field('Threads') };
}

/** Spawn a server (`args`: the command, then its arguments) and time it until `probe` answers 200 (polled every 10 ms). */
async function spawnTimed(
  args: string[],
  env: Record<string, string>,
  probe: string,
  port: number,
  answered: (status: number) => boolean = (s) => s === 200,
): Promise<Proc> {
  const started = performance.now();
  const [command, ...rest] = args;
  const child = spawn(command!, rest, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  releaseAtExit(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    // Port 0: the server prints the address it chose (bench/servers/bare.ts).
    const url = port === 0 ? /LISTENING (\S+)/.exec(out)?.[1] : `http://127.0.0.1:${port}`;
    if (url === undefined) {
      await sleep(10);
      continue;
    }
    try {
      if (answered((await fetch(url + probe)).status)) return { child, url, readyMs: performance.now() - started };
    } catch {
      /* not listening yet */
    }
    await sleep(10);
  }
  child.kill('SIGKILL');
  throw new Error(`${args.join(' ')} did not become ready:\n${out}`);
}

async function stop(p: Proc): Promise<void> {
  if (p.child.exitCode !== null) return;
  const exited = new Promise((r) => p.child.once('exit', r));
  p.child.kill('SIGTERM');
  await exited;
}

/** Resident memory once the process has been at rest for `restMs`. */
async function restingRss(pid: number, restMs = 2000): Promise<{ rssMb: number; threads: number }> {
  await sleep(restMs);
  const s = status(pid);
  return { rssMb: mb(s.rssKb), threads: s.threads };
}

function api(url: string) {
  return async (method: string, route: string, body?: unknown) => {
    const res = await fetch(url + route, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${text}`);
    return text === '' ? {} : JSON.parse(text);
  };
}

const webhookRecipe = (name: string, steps: unknown[] = []) => ({
  name,
  code: JSON.stringify({
    number: 0,
    keyword: 'trigger',
    provider: 'workato_webhooks',
    name: 'new_event',
    as: 'hook',
    input: {},
    block: [
      ...steps,
      {
        number: steps.length + 1,
        keyword: 'action',
        provider: 'logger',
        name: 'log_message',
        as: 'log',
        input: { message: 'received' },
      },
    ],
  }),
});

const codeStep = (provider: string, name: string, code: string) => ({
  number: 1,
  keyword: 'action',
  provider,
  name,
  as: 'calc',
  input: { code, code_input: { data: { n: 2 } } },
});

const scheduleRecipe = (name: string, minute: number) => ({
  name,
  code: JSON.stringify({
    number: 0,
    keyword: 'trigger',
    provider: 'clock',
    name: 'scheduled_event',
    as: 'tick',
    // Hourly, spread over the hour: a workspace's schedules rarely fire together.
    input: {
      time_unit: 'days',
      trigger_at: `${String(minute % 24).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`,
      timezone: 'UTC',
    },
    block: [
      { number: 1, keyword: 'action', provider: 'logger', name: 'log_message', as: 'log', input: { message: 'tick' } },
    ],
  }),
});

const pollRecipe = (name: string, upstream: string) => ({
  name,
  code: JSON.stringify({
    number: 0,
    keyword: 'trigger',
    provider: 'rest',
    name: 'new_poll_event',
    as: 'poll',
    input: { request: { method: 'GET', url: `${upstream}/items` }, cursor_field: 'id', since_param: 'after' },
    block: [
      {
        number: 1,
        keyword: 'action',
        provider: 'logger',
        name: 'log_message',
        as: 'log',
        input: { message: 'record' },
      },
    ],
  }),
});

/** Run `work` over `items` with `concurrency` at a time. */
async function pool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

async function jobDone(call: ReturnType<typeof api>, recipeId: number, count: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const jobs = await call('GET', `/api/recipes/${recipeId}/jobs?per_page=10`);
    const items = (jobs.items ?? []) as Array<{ status: string; error?: unknown }>;
    if (items.filter((j) => j.status === 'succeeded').length >= count) return;
    const failed = items.find((j) => j.status === 'failed');
    if (failed) throw new Error(`job failed: ${JSON.stringify(failed)}`);
    await sleep(50);
  }
  throw new Error(`recipe ${recipeId}: no job done in time`);
}

async function timeGet(
  call: ReturnType<typeof api>,
  route: string,
  samples: number,
): Promise<{ p50: number; max: number }> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    await call('GET', route);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length / 2)]!, max: times.at(-1)! };
}

export async function main(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      recipes: { type: 'string', default: '10000' },
      rest: { type: 'string', default: '60' },
      seconds: { type: 'string', default: '5' },
      rounds: { type: 'string', default: '10' },
      'round-seconds': { type: 'string', default: '2' },
      warmup: { type: 'string', default: '10' },
    },
  });
  const recipes = Number(values.recipes);
  const restSeconds = Number(values.rest);
  const seconds = Number(values.seconds);
  const rounds = Number(values.rounds);
  const roundSeconds = Number(values['round-seconds']);
  const warmupSeconds = Number(values.warmup);
  console.log(
    `\nfootprint (${os.cpus().length} CPUs, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')})`,
  );

  // Baseline: a bare Fastify server, started and measured the same way.
  // It has no /ready: any answer means it listens.
  const bare = await spawnTimed([process.execPath, BARE], {}, '/ready', 0, () => true);
  const bareRss = await restingRss(bare.child.pid!);
  line('bare Fastify server (baseline): start-to-ready', `${bare.readyMs.toFixed(0)} ms`, '-');
  line('bare Fastify server (baseline): idle RSS', `${bareRss.rssMb.toFixed(1)} MB`, '-');
  await stop(bare);

  // Upstream of the polling recipes: no records.
  let polls = 0;
  const upstream = createServer((_req, res) => {
    polls++;
    res.setHeader('content-type', 'application/json');
    res.end('[]');
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  releaseAtExit(() => upstream.close());
  const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;

  const dataDir = tempDir('sb-footprint-');
  const database = await databaseEnv();
  const env = (port: number, dir = dataDir) => ({
    DATA_DIR: dir,
    PORT: String(port),
    LOG_LEVEL: 'warn',
    SWITCHBOARD_ADMIN_TOKEN: ADMIN,
    OUTBOUND_ALLOW_LOOPBACK: 'true',
    SANDBOX_IDLE_MS: String(IDLE_MS),
    ...database,
  });
  const start = async (extra: Record<string, string> = {}) => {
    const port = await freePort();
    return spawnTimed(SERVE, { ...env(port), ...extra }, '/ready', port);
  };

  // 1. Empty server: the first start creates the database; the second is what a deploy pays.
  const first = await start();
  await stop(first);
  let sb = await start();
  let call = api(sb.url);
  // Idle: at rest, then long enough for the server to give start-up's garbage back (after 30 s at
  // rest, src/idle-memory.ts).
  const emptyRest = await settled(sb.child.pid!);
  const empty = await restingRss(sb.child.pid!, REST_BEFORE_MS + 3000);
  line('empty server: start-to-ready', `${sb.readyMs.toFixed(0)} ms`, '<= 1000 ms');
  line(`  then until at rest`, `${emptyRest.toFixed(0)} ms`, '-');
  line('empty server: idle RSS', `${empty.rssMb.toFixed(1)} MB (${empty.threads} threads)`, '<= 120 MB');
  recordFigure('empty server start-to-ready ms', sb.readyMs);
  recordFigure('empty server idle RSS MB', empty.rssMb);

  // 2. One request of each area.
  const areas = [
    '/api/users/me',
    '/api/folders',
    '/api/projects',
    '/api/recipes',
    '/api/connections',
    '/api/lookup_tables',
    '/api/data_tables',
    '/api/api_collections',
    '/api/api_clients',
    '/api/event_streams/topics',
    '/api/roles',
    '/api/tags',
    '/api/properties',
    '/api/activity_logs',
    '/api/mcp_servers',
    '/api/openapi.json',
  ];
  for (const route of areas) await fetch(sb.url + route, { headers: { authorization: `Bearer ${ADMIN}` } });
  await fetch(`${sb.url}/docs`);
  const signIn = await fetch(`${sb.url}/console/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `token=${ADMIN}`,
    redirect: 'manual',
  });
  const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;
  for (const page of ['/console/', '/console/recipes', '/console/connections', '/console/lookup_tables'])
    await fetch(sb.url + page, { headers: { cookie } });
  await fetch(`${sb.url}/mcp/none`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  const afterAreas = await restingRss(sb.child.pid!);
  line(
    'after one request of each area: idle RSS',
    `${afterAreas.rssMb.toFixed(1)} MB (${afterAreas.threads} threads)`,
    '-',
  );

  // 3. A JavaScript and a Python step, then their workers released after SANDBOX_IDLE_MS.
  const js = await call('POST', '/api/recipes', {
    recipe: webhookRecipe('JS step', [
      codeStep('js_eval', 'invoke_custom_js_code', 'exports.main = ({ n }) => ({ twice: n * 2 });'),
    ]),
  });
  const py = await call('POST', '/api/recipes', {
    recipe: webhookRecipe('Python step', [
      codeStep('py_eval', 'invoke_custom_py_code', "def main(input):\n    return {'twice': input['n'] * 2}"),
    ]),
  });
  const hook = await call('POST', '/api/recipes', { recipe: webhookRecipe('Webhook') });
  for (const r of [js, py, hook]) await call('PUT', `/api/recipes/${r.id}/start`);
  const urlOf = async (id: number) => (await call('GET', `/api/recipes/${id}`)).webhook_url as string;
  // The path only: the server restarts on another port below.
  const hookPath = new URL(await urlOf(hook.id)).pathname;
  for (const r of [js, py]) {
    await fetch(await urlOf(r.id), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    await jobDone(call, r.id, 1);
  }
  const afterSteps = status(sb.child.pid!);
  line(
    'after a JavaScript and a Python step: RSS',
    `${mb(afterSteps.rssKb).toFixed(1)} MB (${afterSteps.threads} threads)`,
    '-',
  );
  // Released when the process is back to the threads it had before the steps.
  const releaseDeadline = Date.now() + IDLE_MS + 30_000;
  while (status(sb.child.pid!).threads > afterAreas.threads && Date.now() < releaseDeadline) await sleep(100);
  const released = await restingRss(sb.child.pid!);
  line(
    `workers released (SANDBOX_IDLE_MS=${IDLE_MS}): idle RSS`,
    `${released.rssMb.toFixed(1)} MB (${released.threads} threads)`,
    '-',
  );
  recordFigure('empty server RSS after code steps released MB', released.rssMb);
  // What the process keeps for good: after 30 s at rest its collection at rest may run too.
  const releasedAtRest = await restingRss(sb.child.pid!, REST_BEFORE_MS + 5000);
  line(
    `  then ${(REST_BEFORE_MS + 5000) / 1000} s at rest: idle RSS`,
    `${releasedAtRest.rssMb.toFixed(1)} MB (${releasedAtRest.threads} threads)`,
    '-',
  );
  recordFigure('empty server RSS after code steps released, at rest MB', releasedAtRest.rssMb);

  const [emptyWebhook] = await webhookCost([{ proc: sb, hookUrl: sb.url + hookPath }], seconds);
  line('empty server: one webhook and its job, server CPU', webhookFigure(emptyWebhook!), '-');
  const emptyCpu0 = cpuMicros(sb.child.pid);
  await sleep(Math.min(restSeconds, 10) * 1000);
  const emptyRestCpu = ((cpuMicros(sb.child.pid)! - emptyCpu0!) / (Math.min(restSeconds, 10) * 1e6)) * 100;
  line('empty server: CPU at rest', `${emptyRestCpu.toFixed(2)} % of a core`, '-');

  // The code steps' recipes stop: a running recipe with a Python step loads its interpreter at
  // start, and that memory is measured above, not as the cost of 10,000 recipes.
  for (const r of [js, py]) await call('PUT', `/api/recipes/${r.id}/stop`);

  // 4. 10,000 running recipes: webhook, schedule and polling triggers mixed.
  const created0 = performance.now();
  const indexes = Array.from({ length: recipes }, (_, i) => i);
  await pool(indexes, 8, async (i) => {
    const kind = i % 3;
    const recipe =
      kind === 0
        ? webhookRecipe(`Webhook ${i}`)
        : kind === 1
          ? scheduleRecipe(`Schedule ${i}`, i)
          : pollRecipe(`Poll ${i}`, upstreamUrl);
    const created = await call('POST', '/api/recipes', { recipe });
    await call('PUT', `/api/recipes/${created.id}/start`);
  });
  console.log(
    `(created and started ${recipes} recipes in ${((performance.now() - created0) / 1000).toFixed(1)} s; ${polls} polls so far; load ${load1()})`,
  );
  await stop(sb);

  polls = 0;
  sb = await start();
  call = api(sb.url);
  const pollsAtReady = polls;
  const restAfter = await settled(sb.child.pid!);
  const pollsUntilRest = polls;
  // A webhook's cost beside an empty server's: a second, empty server (its own data directory and
  // database, one webhook recipe) runs beside this one, and the two are measured in alternating
  // rounds (pairedWebhookCost). Both are at rest between windows, so neither's work lands in the
  // other's window; the polls of the recipes here do (about 11 a second), and are counted. It starts
  // now, so that both servers rest through the wait below and both have had their collection at rest
  // (src/idle-memory.ts) before the first round: a server after that collection runs with a young
  // generation of 1 MB (many more scavenges for the same webhooks), so two servers compared must
  // both be before it or both after.
  const companionPort = await freePort();
  const companion = await spawnTimed(
    SERVE,
    { ...env(companionPort, tempDir('sb-footprint-empty-')), ...(await databaseEnv()) },
    '/ready',
    companionPort,
  );
  const companionCall = api(companion.url);
  const companionHook = await companionCall('POST', '/api/recipes', { recipe: webhookRecipe('Webhook') });
  await companionCall('PUT', `/api/recipes/${companionHook.id}/start`);
  const companionTarget: HookTarget = {
    label: 'empty server',
    proc: companion,
    hookUrl: (await companionCall('GET', `/api/recipes/${companionHook.id}`)).webhook_url as string,
  };
  await settled(companion.child.pid!);
  const full = await restingRss(sb.child.pid!, REST_BEFORE_MS + 5000);
  line(`${recipes} running recipes: start-to-ready`, `${sb.readyMs.toFixed(0)} ms`, '<= 5000 ms');
  line(`  then until at rest (triggers armed in the background)`, `${restAfter.toFixed(0)} ms`, '-');
  line(`${recipes} running recipes: idle RSS`, `${full.rssMb.toFixed(1)} MB (${full.threads} threads)`, '<= 300 MB');
  console.log(`(polls before ready: ${pollsAtReady}; until at rest: ${pollsUntilRest}; 5 s later: ${polls})`);
  recordFigure(`${recipes} recipes start-to-ready ms`, sb.readyMs);
  recordFigure(`${recipes} recipes idle RSS MB`, full.rssMb);

  console.log(
    `(${rounds} rounds of ${roundSeconds} s at ${WEBHOOK_RATE}/s to each server at once, after a warm-up window of ${warmupSeconds} s)`,
  );
  const withPolls = await pairedWebhookCost(
    companionTarget,
    { label: `${recipes} recipes`, proc: sb, hookUrl: sb.url + hookPath },
    rounds,
    roundSeconds,
    () => polls,
    warmupSeconds,
  );
  printPaired(`${recipes} running recipes, polls in the windows`, withPolls);
  if (withPolls.ratio !== null) recordFigure(`${recipes} recipes webhook CPU µs`, median(withPolls.b));

  polls = 0;
  const cpu0 = cpuMicros(sb.child.pid);
  await sleep(restSeconds * 1000);
  const restCpu = ((cpuMicros(sb.child.pid)! - cpu0!) / (restSeconds * 1e6)) * 100;
  line(
    `${recipes} running recipes: CPU at rest with the polls (${restSeconds} s, ${polls} polls)`,
    `${restCpu.toFixed(2)} % of a core`,
    '<= 1 %',
  );
  recordFigure(`${recipes} recipes CPU at rest %`, restCpu);

  const list = await timeGet(call, '/api/recipes?per_page=100', 20);
  line(
    `${recipes} running recipes: GET /api/recipes?per_page=100`,
    `p50 ${list.p50.toFixed(1)} ms, max ${list.max.toFixed(1)} ms`,
    '-',
  );
  const deep = await timeGet(call, `/api/recipes?per_page=100&page=${Math.max(1, Math.floor(recipes / 100) - 1)}`, 10);
  line(
    `${recipes} running recipes: the list's last pages`,
    `p50 ${deep.p50.toFixed(1)} ms, max ${deep.max.toFixed(1)} ms`,
    '-',
  );
  const filtered = await timeGet(call, '/api/recipes?per_page=100&adapter_names_any=clock', 10);
  line(
    `${recipes} running recipes: filter by connector (clock)`,
    `p50 ${filtered.p50.toFixed(1)} ms, max ${filtered.max.toFixed(1)} ms`,
    '-',
  );
  const searchTimes: number[] = [];
  const searchCookie = await consoleCookie(sb.url);
  for (let i = 0; i < 10; i++) {
    const t0 = performance.now();
    const res = await fetch(`${sb.url}/console/recipes?q=Schedule%2099`, { headers: { cookie: searchCookie } });
    await res.text();
    searchTimes.push(performance.now() - t0);
  }
  searchTimes.sort((a, b) => a - b);
  line(
    `${recipes} running recipes: console search by name`,
    `p50 ${searchTimes[5]!.toFixed(1)} ms, max ${searchTimes.at(-1)!.toFixed(1)} ms`,
    '-',
  );
  recordFigure(`${recipes} recipes list p50 ms`, list.p50);
  await stop(sb);

  // The scheduler alone: the same recipes, every trigger armed (each polling recipe's timer, each
  // schedule's next firing), but the polling interval at 30 days, so that the first polls, spread
  // over one interval, fall outside the window (expected: 3,333 × 60 s / 30 days, under one). The
  // polls in the window are counted and printed; the figure is what the timers cost, not the polls.
  // The window opens once the server has had its collection at rest (after REST_BEFORE_MS at rest,
  // src/idle-memory.ts): that collection runs once after a start (two full collections of the heap,
  // about 0.2–0.5 s of CPU with 10,000 recipes) and is not the scheduler's work: a window of 20 s
  // opened 5 s after rest would end about 30 s after the start and take that collection in or not
  // by a second either way. The no-poll rounds below then compare two servers both after it.
  sb = await start({ TRIGGER_POLL_SECONDS: String(30 * 86_400) });
  await settled(sb.child.pid!);
  await sleep(REST_BEFORE_MS + 5000);
  polls = 0;
  const schedulerCpu0 = cpuMicros(sb.child.pid);
  await sleep(restSeconds * 1000);
  const schedulerCpu = ((cpuMicros(sb.child.pid)! - schedulerCpu0!) / (restSeconds * 1e6)) * 100;
  line(
    `${recipes} running recipes: CPU at rest, scheduler alone (${restSeconds} s, ${polls} polls)`,
    `${schedulerCpu.toFixed(2)} % of a core`,
    '<= 1 %',
  );
  recordFigure(`${recipes} recipes scheduler CPU at rest %`, schedulerCpu);
  // A webhook's routing and job beside the same recipes with no poll in the window (above, the
  // polls' own CPU, about 11 a second, falls into the webhooks' window).
  const quiet = await pairedWebhookCost(
    companionTarget,
    { label: `${recipes} recipes, no poll`, proc: sb, hookUrl: sb.url + hookPath },
    rounds,
    roundSeconds,
    () => polls,
    warmupSeconds,
  );
  printPaired(`${recipes} running recipes, no poll`, quiet);
  if (quiet.ratio !== null) recordFigure(`${recipes} recipes webhook CPU no poll ratio %`, quiet.ratio * 100);
  await stop(sb);
  await stop(companion);
  // The polls' keep-alive connections would hold the benchmark open.
  upstream.closeAllConnections();
  upstream.close();
}

async function consoleCookie(url: string): Promise<string> {
  const res = await fetch(`${url}/console/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `token=${ADMIN}`,
    redirect: 'manual',
  });
  return (res.headers.get('set-cookie') ?? '').split(';')[0]!;
}
