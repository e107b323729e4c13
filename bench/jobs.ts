// npm run bench -- jobs: a webhook recipe with five steps (a variable, an if, a lookup, a foreach
// over ten items, a logger) driven at full speed. Prints acknowledged webhooks per second,
// completed jobs per second (every job recorded with its lines), and the webhook-to-job-done
// latency (job created -> job completed, from the jobs table), beside a bare Fastify route.
// The lookup is the lookup_table connector's get_entry on a real table (a query per job).
// `--overload`: first the sustainable rate (full speed, jobs done per second), then webhooks
// offered at twice that rate to a second recipe; prints accepted and refused (429) events, lost
// ones (accepted, with no finished job) and the accepted events' webhook-to-done latency.
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { cpuMicros, load, loadOptions, percentile, phases, row, startChild } from './lib.ts';
import { postgresCpuMicros, postgresWalPosition, queryRows, recordFigure, statementsTracked } from './database.ts';
import { startSwitchboard } from './platform.ts';
import { createPySandbox, installedPythonSnapshotFile } from '../src/engine/sandbox/py-sandbox.ts';

const pill = (...p: string[]) =>
  `_dp('${JSON.stringify({ pill_type: 'output', provider: 'workato_webhooks', line: 'hook', path: ['payload', ...p] })}')`;
const variable = `_dp('${JSON.stringify({ pill_type: 'output', provider: 'workato_variable', line: 'vars', path: ['total'] })}')`;
const tier = `_dp('${JSON.stringify({ pill_type: 'output', provider: 'lookup_table', line: 'tier', path: ['entry', 'col2'] })}')`;
const item = `_dp('${JSON.stringify({ pill_type: 'output', provider: 'foreach', line: 'each', path: ['sku'] })}')`;

const code = (tableId: number) => ({
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
      input: {
        variables: {
          schema: JSON.stringify([
            { name: 'total', type: 'integer' },
            { name: 'tier', type: 'string' },
          ]),
          data: { total: `#{${pill('total')}}` },
        },
      },
    },
    {
      number: 2,
      keyword: 'if',
      input: {
        type: 'compound',
        operand: 'and',
        conditions: [{ operand: 'greater_than', lhs: `#{${variable}}`, rhs: '100' }],
      },
      block: [
        {
          number: 3,
          keyword: 'action',
          provider: 'lookup_table',
          name: 'get_entry',
          as: 'tier',
          input: { lookup_table_id: String(tableId), parameters: { col1: `#{${pill('customer')}}` } },
        },
      ],
    },
    {
      number: 4,
      keyword: 'foreach',
      as: 'each',
      source: `#{${pill('items')}}`,
      block: [
        {
          number: 5,
          keyword: 'action',
          provider: 'logger',
          name: 'log_message',
          as: 'line',
          input: { message: `item #{${item}}` },
        },
      ],
    },
    {
      number: 6,
      keyword: 'action',
      provider: 'logger',
      name: 'log_message',
      as: 'done',
      input: { message: `order #{${pill('id')}} tier #{${tier}}` },
    },
  ],
});

/**
 * The engine's throughput is measured without admission control: at full speed webhooks arrive
 * faster than jobs finish, and the backlog limits would turn most of them into 429s (that is what
 * `--overload` measures). A limit set in the environment is kept.
 */
export async function run(options: { seconds: number; connections: number }): Promise<void> {
  const sb = await startSwitchboard({
    SQLITE_SYNCHRONOUS: process.env.SQLITE_SYNCHRONOUS ?? 'FULL',
    // The largest values the settings take.
    JOB_BACKLOG_PER_RECIPE: process.env.JOB_BACKLOG_PER_RECIPE ?? '10000000',
    JOB_BACKLOG_PER_WORKSPACE: process.env.JOB_BACKLOG_PER_WORKSPACE ?? '100000000',
  });
  const bare = await startChild([path.resolve(import.meta.dirname, 'servers/bare.ts')]);
  try {
    const table = await sb.api('POST', '/api/lookup_tables', {
      name: 'Customer tiers',
      schema: [{ label: 'customer' }, { label: 'tier' }],
    });
    for (const [customer, level] of [
      ['A', 'gold'],
      ['B', 'silver'],
      ['C', 'bronze'],
    ])
      await sb.api('POST', `/api/lookup_tables/${table.id}/rows`, { data: { customer, tier: level } });
    const created = await sb.api('POST', '/api/recipes', {
      recipe: { name: 'Bench orders', code: JSON.stringify(code(table.id as number)), concurrency: 10 },
    });
    const started = await sb.api('PUT', `/api/recipes/${created.id}/start`);
    if (!started.success) throw new Error(`recipe did not start: ${JSON.stringify(started)}`);
    const hook = (await sb.api('GET', `/api/recipes/${created.id}`)).webhook_url as string;
    const body = JSON.stringify({
      id: 'A-1',
      total: 250,
      customer: 'A',
      items: Array.from({ length: 10 }, (_, i) => ({ sku: `S-${i}` })),
    });
    const headers = { 'content-type': 'application/json' };
    // PostgreSQL: transactions committed (a statement in autocommit is one), a measure of round trips a job.
    const commits = async () =>
      sb.databaseUrl
        ? Number(
            (
              await queryRows<{ n: number }>(
                sb,
                'select 0 as n',
                'select xact_commit as n from pg_stat_database where datname = current_database()',
                [],
              )
            )[0]!.n,
          )
        : null;
    const tracked = sb.databaseUrl !== undefined && statementsTracked();
    if (tracked) {
      await queryRows(sb, '', 'create extension if not exists pg_stat_statements', []);
      await queryRows(sb, '', 'select pg_stat_statements_reset()', []);
    }
    const commits0 = await commits();
    const wal0 = await postgresWalPosition(sb);
    const t0 = Date.now();
    const cpu0 = cpuMicros(sb.process.pid);
    const pgCpu0 = sb.databaseUrl ? await postgresCpuMicros() : null;
    const ours = await load({
      url: hook,
      method: 'POST',
      headers,
      body,
      seconds: options.seconds,
      connections: options.connections,
    });
    // Wait for the queue to drain: every acknowledged event is a job that must finish.
    for (;;) {
      const pending = await sb.api('GET', `/api/recipes/${created.id}/jobs?status=pending&per_page=1`);
      if (pending.job_scope_count === 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const cpu1 = cpuMicros(sb.process.pid);
    const pgCpu1 = sb.databaseUrl ? await postgresCpuMicros() : null;
    const wal1 = await postgresWalPosition(sb);
    const statements = tracked
      ? await queryRows<{ calls: number; total_ms: number; rows: number; query: string }>(
          sb,
          '',
          `select calls::int, total_exec_time::float8 as total_ms, rows::int, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) as query
             from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())
             order by total_exec_time desc limit 14`,
          [],
        )
      : [];
    const baseline = await load({
      url: `${bare.url}/token`,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1',
      seconds: options.seconds,
      connections: options.connections,
    });
    // The statistics reach pg_stat_database within a second of each transaction; the load above took longer.
    const commits1 = await commits();
    const jobs = (await finishedJobs(sb, created.id as number)) as Array<{
      created_at: string;
      completed_at: string;
      status: string;
    }>;
    const count = async (where: string) =>
      Number(
        (
          await queryRows<{ n: number }>(
            sb,
            `select count(*) as n from job_line_rows l join jobs j on j.id = l.job_id where j.recipe_id = ?${where}`,
            `select count(*)::int as n from job_line_rows l join jobs j on j.id = l.job_id where j.recipe_id = $1${where}`,
            [created.id],
          )
        )[0]!.n,
      );
    const lines = await count('');
    // Every job looked its customer up in the table: the last step logged the tier it found.
    const found = await count(" and l.recipe_line_number = 6 and l.input like '%tier gold%'");
    const latencies = jobs.map((j) => Date.parse(j.completed_at) - Date.parse(j.created_at)).sort((a, b) => a - b);
    const doneAt = jobs.map((j) => Date.parse(j.completed_at));
    const lastDone = Math.max(...doneAt);
    const failed = jobs.filter((j) => j.status !== 'succeeded').length;
    console.log(
      `\njobs, webhook recipe with 5 steps (a lookup table read per job), ${options.connections} keep-alive connections, ${options.seconds} s (LOG_LEVEL=warn, ${sb.databaseUrl ? 'PostgreSQL' : `SQLite, SQLITE_SYNCHRONOUS=${process.env.SQLITE_SYNCHRONOUS ?? 'FULL'}`})`,
    );
    console.log(row('POST webhook (acknowledged once stored)', ours));
    console.log(row('bare Fastify POST route', baseline));
    console.log(
      `jobs completed: ${jobs.length} (${failed} not succeeded), ${lines} lines recorded (${(lines / Math.max(1, jobs.length)).toFixed(1)} a job), ${found} found their tier in the lookup table, ${(jobs.length / ((lastDone - t0) / 1000)).toFixed(0)} jobs/s from first call to last job done (target >= 2000)`,
    );
    recordFigure('jobs/s', jobs.length / ((lastDone - t0) / 1000));
    console.log(phases(doneAt, t0, options.seconds));
    if (cpu0 !== null && cpu1 !== null)
      console.log(
        `server CPU per job (webhook, run, record; user + system): ${((cpu1 - cpu0) / jobs.length).toFixed(0)} us`,
      );
    console.log(
      `webhook-to-job-done latency: p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms`,
    );
    if (commits0 !== null && commits1 !== null)
      console.log(
        `PostgreSQL transactions committed per job (each statement in autocommit is one; webhook, run, record): ${((commits1 - commits0) / jobs.length).toFixed(2)}`,
      );
    if (pgCpu0 !== null && pgCpu1 !== null)
      console.log(
        `PostgreSQL server CPU per job (every backend and the server's own processes; user + system): ${((pgCpu1 - pgCpu0) / jobs.length).toFixed(0)} us`,
      );
    if (wal0 !== null && wal1 !== null)
      console.log(
        `PostgreSQL write-ahead log per job (the whole cluster's, its background work included): ${((wal1 - wal0) / 1024 / jobs.length).toFixed(1)} KB`,
      );
    if (statements.length > 0) {
      console.log('PostgreSQL statements by execution time (pg_stat_statements; inside functions too), per job:');
      for (const s of statements)
        console.log(
          `  ${(s.calls / jobs.length).toFixed(3).padStart(7)} calls ${((1000 * s.total_ms) / jobs.length).toFixed(0).padStart(5)} us ${(s.rows / Math.max(1, s.calls)).toFixed(1).padStart(6)} rows/call  ${s.query}`,
        );
    }
  } finally {
    sb.process.kill('SIGTERM');
    bare.process.kill('SIGTERM');
  }
}

type Switchboard = Awaited<ReturnType<typeof startSwitchboard>>;

async function benchRecipe(sb: Switchboard, tableId: number, name: string): Promise<{ id: number; hook: string }> {
  const created = await sb.api('POST', '/api/recipes', {
    recipe: { name, code: JSON.stringify(code(tableId)), concurrency: 10 },
  });
  const started = await sb.api('PUT', `/api/recipes/${created.id}/start`);
  if (!started.success) throw new Error(`recipe did not start: ${JSON.stringify(started)}`);
  return { id: created.id as number, hook: (await sb.api('GET', `/api/recipes/${created.id}`)).webhook_url as string };
}

export async function drained(sb: Switchboard, recipeId: number): Promise<void> {
  for (;;) {
    const pending = await sb.api('GET', `/api/recipes/${recipeId}/jobs?status=pending&per_page=1`);
    if (pending.job_scope_count === 0) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

export function finishedJobs(
  sb: Switchboard,
  recipeId: number,
): Promise<Array<{ created_at: string; completed_at: string | null; status: string }>> {
  return queryRows(
    sb,
    'select created_at, completed_at, status from jobs where recipe_id = ?',
    'select created_at, completed_at, status from jobs where recipe_id = $1',
    [recipeId],
  );
}

export async function overload(options: { seconds: number; connections: number }): Promise<void> {
  const sync = process.env.SQLITE_SYNCHRONOUS ?? 'FULL';
  const sb = await startSwitchboard({ SQLITE_SYNCHRONOUS: sync });
  try {
    const table = await sb.api('POST', '/api/lookup_tables', {
      name: 'Customer tiers',
      schema: [{ label: 'customer' }, { label: 'tier' }],
    });
    for (const [customer, level] of [
      ['A', 'gold'],
      ['B', 'silver'],
      ['C', 'bronze'],
    ])
      await sb.api('POST', `/api/lookup_tables/${table.id}/rows`, { data: { customer, tier: level } });
    const body = JSON.stringify({
      id: 'A-1',
      total: 250,
      customer: 'A',
      items: Array.from({ length: 10 }, (_, i) => ({ sku: `S-${i}` })),
    });
    const headers = { 'content-type': 'application/json' };

    // 1. The sustainable rate: webhooks at full speed, then jobs done per second until the last one.
    const measured = await benchRecipe(sb, table.id as number, 'Bench orders (sustainable rate)');
    const t0 = Date.now();
    await load({
      url: measured.hook,
      method: 'POST',
      headers,
      body,
      seconds: options.seconds,
      connections: options.connections,
    });
    await drained(sb, measured.id);
    const first = await finishedJobs(sb, measured.id);
    const lastDone = Math.max(...first.map((j) => Date.parse(j.completed_at ?? '')));
    const sustainable = first.length / ((lastDone - t0) / 1000);

    // 2. Twice that rate, offered at a fixed pace whatever the answers (429s included).
    const offered = Math.round(2 * sustainable);
    const target = await benchRecipe(sb, table.id as number, 'Bench orders (overload)');
    // A fixed number of requests rather than a duration, so that every one is answered and counted.
    const result = await autocannon({
      url: target.hook,
      method: 'POST',
      headers,
      body,
      connections: Math.max(64, options.connections * 2),
      amount: offered * options.seconds,
      overallRate: offered,
    });
    await drained(sb, target.id);
    const jobs = await finishedJobs(sb, target.id);
    const codes = result.statusCodeStats as unknown as Record<string, { count: number }>;
    const accepted = Number(codes['200']?.count ?? 0);
    const refused = Number(codes['429']?.count ?? 0);
    const other = Object.entries(codes)
      .filter(([code]) => code !== '200' && code !== '429')
      .reduce((n, [, c]) => n + Number(c.count), 0);
    const done = jobs.filter((j) => j.completed_at !== null);
    const latencies = done
      .map((j) => Date.parse(j.completed_at as string) - Date.parse(j.created_at))
      .sort((a, b) => a - b);
    const sent = accepted + refused + other + result.errors;
    console.log(
      `\njobs under overload, webhook recipe with 5 steps, ${options.seconds} s a phase (LOG_LEVEL=warn, SQLITE_SYNCHRONOUS=${sync}, JOB_BACKLOG_PER_RECIPE=${process.env.JOB_BACKLOG_PER_RECIPE ?? 'default'})`,
    );
    console.log(
      `sustainable rate (full speed, ${options.connections} connections, first call to last job done): ${sustainable.toFixed(0)} jobs/s (${first.length} jobs)`,
    );
    console.log(
      `offered: ${offered} webhooks/s for ${options.seconds} s (twice the sustainable rate); sent ${sent} in ${result.duration.toFixed(1)} s`,
    );
    console.log(
      `accepted (200): ${accepted}   refused (429): ${refused}   other answers: ${other}   transport errors: ${result.errors}`,
    );
    console.log(
      `jobs stored: ${jobs.length}, finished: ${done.length} (${done.filter((j) => j.status !== 'succeeded').length} not succeeded); lost (accepted, no finished job): ${Math.max(0, accepted - done.length)}; jobs without an accepted webhook: ${Math.max(0, jobs.length - accepted)}`,
    );
    console.log(
      `accepted events' webhook-to-job-done latency: p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms, max ${latencies.at(-1) ?? 0} ms (target p99 <= 1000 ms)`,
    );
  } finally {
    sb.process.kill('SIGTERM');
  }
}

type Lang = 'js' | 'py' | 'rb';
const LANG = {
  js: {
    title: 'JavaScript',
    step: {
      provider: 'js_eval',
      name: 'invoke_custom_js_code',
      code: 'exports.main = ({ items }) => ({ total: items.reduce((s, i) => s + i.price * i.qty, 0), count: items.length });',
    },
    target: 1,
  },
  py: {
    title: 'Python',
    step: {
      provider: 'py_eval',
      name: 'invoke_custom_py_code',
      code: "def main(input):\n    items = input['items']\n    return {'total': sum(i['price'] * i['qty'] for i in items), 'count': len(items)}",
    },
    target: 5,
  },
  rb: {
    title: 'Ruby',
    step: {
      provider: 'workato_custom_code',
      name: 'invoke_custom_ruby_code',
      code: "items = input['items']\n{ total: items.sum { |i| i['price'] * i['qty'] }, count: items.size }",
    },
    target: 5,
  },
} as const;

const codeRecipe = (lang: Lang, withCode: boolean) => ({
  number: 0,
  keyword: 'trigger',
  provider: 'workato_webhooks',
  name: 'new_event',
  as: 'hook',
  input: {},
  block: [
    withCode
      ? {
          number: 1,
          keyword: 'action',
          provider: LANG[lang].step.provider,
          name: LANG[lang].step.name,
          as: 'calc',
          input: { code: LANG[lang].step.code, code_input: { data: { items: `=${pill('items')}` } } },
        }
      : {
          number: 1,
          keyword: 'action',
          provider: 'logger',
          name: 'log_message',
          as: 'calc',
          input: { message: `items #{${pill('id')}}` },
        },
    {
      number: 2,
      keyword: 'action',
      provider: 'logger',
      name: 'log_message',
      as: 'done',
      input: { message: `order #{${pill('id')}}` },
    },
  ],
});

/**
 * `--js` / `--py` / `--ruby`: a two-step webhook recipe whose first step is a JavaScript (Python, Ruby) step, at
 * full speed, beside the same recipe with a logger in its place (the baseline, same run). Prints
 * jobs/s of each, the code step's own time (p50, p99, from its job lines) and that of the first
 * code step of the fresh server, fired as soon as the recipe is started (it waits for the
 * sandbox's worker to load QuickJS, Pyodide or Ruby; Python's and Ruby's start loading when the recipe starts).
 */
export async function codeSteps(lang: Lang, options: { seconds: number; connections: number }): Promise<void> {
  const { title, target } = LANG[lang];
  const sb = await startSwitchboard({
    SQLITE_SYNCHRONOUS: process.env.SQLITE_SYNCHRONOUS ?? 'FULL',
    JOB_BACKLOG_PER_RECIPE: process.env.JOB_BACKLOG_PER_RECIPE ?? '10000000',
    JOB_BACKLOG_PER_WORKSPACE: process.env.JOB_BACKLOG_PER_WORKSPACE ?? '100000000',
  });
  try {
    const body = JSON.stringify({
      id: 'A-1',
      items: Array.from({ length: 10 }, (_, i) => ({ sku: `S-${i}`, price: i + 0.5, qty: 2 })),
    });
    const headers = { 'content-type': 'application/json' };
    const results: Array<{ name: string; id: number; jobsPerSecond: number; jobs: number; failed: number }> = [];
    let firstJobMs = 0;
    for (const withJs of [true, false]) {
      const created = await sb.api('POST', '/api/recipes', {
        recipe: {
          name: withJs ? `Bench ${title} step` : 'Bench logger step',
          code: JSON.stringify(codeRecipe(lang, withJs)),
          concurrency: 10,
        },
      });
      const startedAt = Date.now();
      const started = await sb.api('PUT', `/api/recipes/${created.id}/start`);
      if (!started.success) throw new Error(`recipe did not start: ${JSON.stringify(started)}`);
      const hook = (await sb.api('GET', `/api/recipes/${created.id}`)).webhook_url as string;
      if (withJs) {
        // The first code step of this server, alone, fired right after the recipe started.
        await fetch(hook, { method: 'POST', headers, body });
        await drained(sb, created.id as number);
        firstJobMs = Date.now() - startedAt;
      }
      const t0 = Date.now();
      await load({
        url: hook,
        method: 'POST',
        headers,
        body,
        seconds: options.seconds,
        connections: options.connections,
      });
      await drained(sb, created.id as number);
      const jobs = (await finishedJobs(sb, created.id as number)).filter((j) => Date.parse(j.created_at) >= t0);
      const lastDone = Math.max(...jobs.map((j) => Date.parse(j.completed_at ?? j.created_at)));
      results.push({
        name: withJs ? `${title} step` : 'logger step (baseline)',
        id: created.id as number,
        jobs: jobs.length,
        failed: jobs.filter((j) => j.status !== 'succeeded').length,
        jobsPerSecond: jobs.length / ((lastDone - t0) / 1000),
      });
    }
    const steps = await queryRows<{ started_at: string; completed_at: string }>(
      sb,
      'select l.started_at, l.completed_at from job_line_rows l join jobs j on j.id = l.job_id where j.recipe_id = ? and l.recipe_line_number = 1 order by j.id',
      'select l.started_at, l.completed_at from job_line_rows l join jobs j on j.id = l.job_id where j.recipe_id = $1 and l.recipe_line_number = 1 order by j.id',
      [results[0]!.id],
    );
    const durations = steps.map((l) => Date.parse(l.completed_at) - Date.parse(l.started_at));
    const first = durations[0] ?? 0;
    const rest = durations.slice(1).sort((a, b) => a - b);
    console.log(`
jobs with a ${title} step (webhook, ${title}, logger), ${options.connections} keep-alive connections, ${options.seconds} s each`);
    for (const r of results)
      console.log(
        `${r.name.padEnd(24)} ${r.jobsPerSecond.toFixed(0)} jobs/s (${r.jobs} jobs, ${r.failed} not succeeded)${r.name === 'JavaScript step' ? ' (target >= 1000)' : ''}`,
      );
    console.log(
      `${title} step time: first on a fresh server ${first} ms (recipe started to first job done: ${firstJobMs} ms; target <= 2000 for a first Python or Ruby step${lang === 'py' ? `; the interpreter's snapshot of the installation ${existsSync(installedPythonSnapshotFile()) ? 'is there' : 'is missing: a full load'}` : ''}); then p50 ${percentile(rest, 50)} ms, p99 ${percentile(rest, 99)} ms (target <= ${target} ms; lines are timed to the millisecond)`,
    );
    if (lang === 'py') {
      // The same server restarted on its data directory: the running recipe's Python sandbox loads
      // at start, from the interpreter snapshot the first run kept.
      const exited = once(sb.process, 'exit');
      sb.process.kill('SIGTERM');
      await exited;
      const t0 = Date.now();
      const again = await startSwitchboard({}, sb.dataDir);
      try {
        const readyMs = Date.now() - t0;
        const hook = (await again.api('GET', `/api/recipes/${results[0]!.id}`)).webhook_url as string;
        const fired = Date.now();
        await fetch(hook, { method: 'POST', headers, body });
        await drained(again, results[0]!.id);
        console.log(
          `after a restart (the snapshot of the data directory or of the installation): server ready in ${readyMs} ms, then first Python job done ${Date.now() - fired} ms after its webhook (target <= 2000)`,
        );
      } finally {
        again.process.kill('SIGTERM');
      }
    }
  } finally {
    sb.process.kill('SIGTERM');
  }
}

/**
 * `--py`, after the jobs: the Python sandbox alone (the engine's pool of two workers and a spare),
 * steps one after the other, step i of recipe i % n. With one recipe every step runs on its loaded
 * worker; with two, each has a worker of its own; with four taking turns, the recipes share three
 * workers, so each step waits for a worker loaded afresh (a worker runs one recipe's steps only):
 * 40 steps there, 400 otherwise.
 */
async function pythonTenants(): Promise<void> {
  const code =
    "import json\ndef main(input):\n    return {'total': sum(i['price'] * i['qty'] for i in input['items'])}";
  const input = { items: Array.from({ length: 10 }, (_, i) => ({ price: i + 0.5, qty: 2 })) };
  const limits = { timeoutMs: 30_000, memoryBytes: 128 * 1024 * 1024 };
  console.log('\nthe Python sandbox alone: steps in a row, of 1, 2, 3 and 4 recipes taking turns');
  for (const recipes of [1, 2, 3, 4]) {
    // Six interpreters (PYTHON_INTERPRETERS=6), so that four recipes taking turns each keep one.
    const sandbox = createPySandbox({ workers: 2, interpreters: 6, snapshotFiles: [installedPythonSnapshotFile()] });
    try {
      // Every recipe's first step (a worker loaded for it) is left out of the figures below.
      for (let r = 0; r < recipes; r += 1) await sandbox.run(code, input, limits, `bench/${r}`);
      const took: number[] = [];
      const steps = recipes > 2 ? 40 : 400;
      const started = performance.now();
      for (let i = 0; i < steps; i += 1) {
        const t0 = performance.now();
        const result = await sandbox.run(code, input, limits, `bench/${i % recipes}`);
        if (!result.ok) throw new Error(`a step failed: ${result.message}`);
        took.push(performance.now() - t0);
      }
      const seconds = (performance.now() - started) / 1000;
      took.sort((a, b) => a - b);
      console.log(
        `${String(recipes).padStart(2)} recipe(s), ${steps} steps: step p50 ${percentile(took, 50).toFixed(2)} ms, p99 ${percentile(took, 99).toFixed(1)} ms, ${(steps / seconds).toFixed(1)} steps/s`,
      );
    } finally {
      await sandbox.close();
    }
  }
}

export async function main(args: string[]): Promise<void> {
  const overloaded = args.includes('--overload');
  const lang: Lang | null = args.includes('--js')
    ? 'js'
    : args.includes('--py')
      ? 'py'
      : args.includes('--ruby')
        ? 'rb'
        : null;
  const options = loadOptions(args.filter((a) => !['--overload', '--js', '--py', '--ruby'].includes(a)));
  await (overloaded ? overload(options) : lang ? codeSteps(lang, options) : run(options));
  if (lang === 'py') await pythonTenants();
}
