// npm run bench -- retention: the database's size under a steady job load with a short retention.
// The app runs in this process, with a clock the benchmark moves: each round posts a batch of
// webhooks to a recipe (a foreach over ten items: 12 lines a job), waits for the jobs, then moves
// the clock on by a fraction of JOB_RETENTION_HOURS (1 hour), and waits for the background sweep
// (every 20 ms of real time) to delete what expired. It prints, per round, the jobs and lines
// kept and the database's size. On SQLite: the file's size, its log's size and its free pages;
// once the retained history is full, the file stays flat (the sweep's freed pages hold the new
// rows). On PostgreSQL (`--database postgres`): pg_database_size(current_database()) and the dead
// rows its statistics count; deleted rows' space is reused only once (auto)vacuum has passed, so
// the size depends on when autovacuum ran, and after the last round a plain VACUUM is run and the
// size printed again.
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { prepare } from '../src/prepare.ts';
import { manualClock, toStored } from '../src/time.ts';
import { databaseEnv, databaseSize, queryRows, recordFigure } from './database.ts';
import { tempDir } from './lib.ts';

const ADMIN = 'bench-retention-admin-token-0123456789abcdef';
const pill = (...p: string[]) =>
  `_dp('${JSON.stringify({ pill_type: 'output', provider: 'workato_webhooks', line: 'hook', path: ['payload', ...p] })}')`;
const item = `_dp('${JSON.stringify({ pill_type: 'output', provider: 'foreach', line: 'each', path: ['sku'] })}')`;
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
      keyword: 'foreach',
      as: 'each',
      source: `#{${pill('items')}}`,
      block: [
        {
          number: 2,
          keyword: 'action',
          provider: 'logger',
          name: 'log_message',
          as: 'line',
          input: { message: `item #{${item}}` },
        },
      ],
    },
    {
      number: 3,
      keyword: 'action',
      provider: 'logger',
      name: 'log_message',
      as: 'done',
      input: { message: `order #{${pill('id')}}` },
    },
  ],
};

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      rounds: { type: 'string', default: '30' },
      jobs: { type: 'string', default: '1000' },
      keep: { type: 'boolean', default: false },
    },
  });
  const rounds = Number(values.rounds);
  const perRound = Number(values.jobs);
  for (const [name, v] of Object.entries({ rounds, jobs: perRound })) {
    if (!Number.isInteger(v) || v < 1) throw new Error(`--${name} must be a positive whole number`);
  }
  const retentionHours = 1;
  const stepMs = 10 * 60_000;

  const dataDir = tempDir('switchboard-bench-', { keep: values.keep });
  const config = loadConfig({
    ...(await databaseEnv()),
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    SWITCHBOARD_ADMIN_TOKEN: ADMIN,
    JOB_RETENTION_HOURS: String(retentionHours),
    JOBS_SWEEP_INTERVAL_MS: '20',
    // Room for a whole round pending at once: each round's jobs are all kept, none refused (429).
    JOB_BACKLOG_PER_RECIPE: String(Math.max(500, perRound)),
    ...(process.env.SQLITE_SYNCHRONOUS ? { SQLITE_SYNCHRONOUS: process.env.SQLITE_SYNCHRONOUS } : {}),
  });
  const logger = createLogger('silent');
  const clock = manualClock(new Date());
  const { database, secretBox } = await prepare(config, logger);
  const app = await buildApp({ config, database, secretBox, logger, clock });
  await app.ready();
  const db = database.db;
  const onPostgres = database.dialect === 'postgres';
  const target = { dataDir, databaseUrl: config.databaseUrl };
  /** SQLite's free pages in the file; PostgreSQL's dead rows (not yet vacuumed) in jobs and job_line_sets, as its statistics count them. */
  const reusable = async () =>
    Number(
      (
        await queryRows<{ n: number | string }>(
          target,
          'select freelist_count as n from pragma_freelist_count()',
          "select coalesce(sum(n_dead_tup), 0) as n from pg_stat_user_tables where relname in ('jobs', 'job_line_sets')",
          [],
        )
      )[0]?.n ?? 0,
    );
  const call = async (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) => {
    const res = await app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${ADMIN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { payload: JSON.stringify(body) } : {}),
    });
    return JSON.parse(res.body || '{}') as Record<string, unknown>;
  };
  try {
    const created = await call('POST', '/api/recipes', {
      recipe: { name: 'Retention bench', code: JSON.stringify(code), concurrency: 10 },
    });
    const started = await call('PUT', `/api/recipes/${created.id}/start`);
    if (!started.success) throw new Error(`recipe did not start: ${JSON.stringify(started)}`);
    const hook = new URL((await call('GET', `/api/recipes/${created.id}`)).webhook_url as string).pathname;
    const payload = JSON.stringify({ id: 'A-1', items: Array.from({ length: 10 }, (_, i) => ({ sku: `S-${i}` })) });

    const where = onPostgres
      ? "PostgreSQL: database size = pg_database_size(current_database()), autovacuum at the server's defaults"
      : `SQLite: database file = switchboard.sqlite, SQLITE_SYNCHRONOUS=${config.sqliteSynchronous}`;
    console.log(
      `\njob retention: ${rounds} rounds of ${perRound} webhook jobs (12 lines each), the clock moved ${stepMs / 60_000} min a round, JOB_RETENTION_HOURS=${retentionHours} (about ${Math.ceil((retentionHours * 3600_000) / stepMs)} rounds kept); ${where}`,
    );
    console.log(
      onPostgres
        ? 'round  jobs kept  lines kept  database size   dead rows  sweep wait'
        : 'round  jobs kept  lines kept  database file  log (-wal)  free pages  sweep wait',
    );
    const empty = (await databaseSize(target)).bytes;
    console.log(`    0          0           0  ${mb(empty).padStart(13)}  (migrated, no job yet)`);
    const t0 = Date.now();
    let accepted = 0;
    let refused = 0;
    let largest = 0;
    let last = 0;
    for (let round = 1; round <= rounds; round++) {
      for (let i = 0; i < perRound; i += 50) {
        const replies = await Promise.all(
          Array.from({ length: Math.min(50, perRound - i) }, () =>
            app.inject({ method: 'POST', url: hook, headers: { 'content-type': 'application/json' }, payload }),
          ),
        );
        for (const reply of replies) {
          if (reply.statusCode < 300) accepted++;
          else refused++;
        }
      }
      while ((await call('GET', `/api/recipes/${created.id}/jobs?status=pending&per_page=1`)).job_scope_count !== 0)
        await new Promise((r) => setTimeout(r, 20));
      clock.advance(stepMs);
      // Wait for the sweep to delete every job that ended before the cutoff.
      const cutoff = toStored(new Date(clock.now().getTime() - retentionHours * 3600_000));
      const waitStart = Date.now();
      for (;;) {
        const expired = await db
          .selectFrom('jobs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('completed_at', '<', cutoff)
          .executeTakeFirstOrThrow();
        if (Number(expired.n) === 0) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      const sweepWait = Date.now() - waitStart;
      const jobs = Number(
        (
          await db
            .selectFrom('jobs')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
      const lines = Number(
        (
          await db
            .selectFrom('job_line_rows')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
      const size = await databaseSize(target);
      const free = await reusable();
      last = size.bytes;
      largest = Math.max(largest, size.bytes);
      const kept = `${String(round).padStart(5)}  ${String(jobs).padStart(9)}  ${String(lines).padStart(10)}`;
      console.log(
        onPostgres
          ? `${kept}  ${mb(size.bytes).padStart(13)}  ${String(free).padStart(10)}  ${String(sweepWait).padStart(7)} ms`
          : `${kept}  ${mb(size.bytes).padStart(13)}  ${mb(size.walBytes ?? 0).padStart(10)}  ${String(free).padStart(10)}  ${String(sweepWait).padStart(7)} ms`,
      );
    }
    const seconds = (Date.now() - t0) / 1000;
    console.log(
      `${accepted} jobs in ${seconds.toFixed(1)} s (${rounds * perRound} webhooks posted, ${refused} refused)`,
    );
    if (onPostgres) {
      // Autovacuum wakes on real time (autovacuum_naptime), while the rounds compress hours of the moved clock into seconds.
      const passes = await queryRows<{ relname: string; autovacuum_count: string; naptime: string }>(
        target,
        '',
        "select relname, autovacuum_count, current_setting('autovacuum_naptime') as naptime from pg_stat_user_tables where relname in ('jobs', 'job_line_sets') order by relname",
        [],
      );
      console.log(
        `autovacuum during the rounds (autovacuum_naptime=${passes[0]?.naptime ?? '?'}, ${seconds.toFixed(0)} s of real time for ${((rounds * stepMs) / 3600_000).toFixed(1)} h of the moved clock): ${passes.map((p) => `${p.relname} ${p.autovacuum_count} passes`).join(', ')}`,
      );
      // A plain VACUUM marks the deleted rows' space reusable; it returns to the system only empty pages at a table's end.
      await sql`vacuum`.execute(db);
      console.log(
        `after a plain VACUUM: database size ${mb((await databaseSize(target)).bytes)}, dead rows ${await reusable()} (the statistics may lag by a moment)`,
      );
    }
    recordFigure('jobs/s, rounds with the sweep', accepted / seconds);
    recordFigure('database MB, before any job', empty / 1024 / 1024);
    recordFigure('database MB, last round', last / 1024 / 1024);
    recordFigure('database MB, largest round', largest / 1024 / 1024);
  } finally {
    await app.close();
    await db.destroy();
  }
}
