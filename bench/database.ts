// `--database postgres`: the benchmarks that start Switchboard run once on SQLite and once on
// PostgreSQL, in the same process, and print both figures. PostgreSQL is BENCH_DATABASE_URL (the
// maintenance database of a server the benchmark may create databases on) or a server started on
// loopback in a temporary directory (installed from Debian's packages), with fsync on,
// max_wal_size raised as the README's production section advises, and its log written to a steady
// size before the first measurement (settleWriteAheadLog); every Switchboard started gets a new
// database of its own.
import fs from 'node:fs';
import pg from 'pg';
import { startPostgresCluster, type PostgresCluster } from '../test/postgres-cluster.ts';
import { releaseAtExit } from './lib.ts';

export type BenchDatabase = 'sqlite' | 'postgres';

let current: BenchDatabase = 'sqlite';
let currentPair = 1;
let server: { url: string; cluster?: PostgresCluster } | undefined;
let counter = 0;

/** The database the servers started from now on use; `pair`: which of `--pairs` runs this is. */
export function useDatabase(database: BenchDatabase, pair = 1): void {
  current = database;
  currentPair = pair;
}

export function currentDatabase(): BenchDatabase {
  return current;
}

/**
 * `--database postgres` (or `--database=postgres`) among the arguments; `--pairs N`: the benchmark
 * runs N times on each database, alternated (SQLite, PostgreSQL, SQLite, ...), so that a drift of
 * the machine lands on both; and the arguments without them.
 */
export function databaseOption(args: string[]): { postgres: boolean; pairs: number; rest: string[] } {
  const rest: string[] = [];
  let postgres = false;
  let pairs = 1;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--database') {
      postgres = args[i + 1] === 'postgres';
      i++;
    } else if (arg.startsWith('--database=')) postgres = arg.slice('--database='.length) === 'postgres';
    else if (arg === '--pairs' || arg.startsWith('--pairs=')) {
      const given = arg === '--pairs' ? args[++i] : arg.slice('--pairs='.length);
      pairs = Number(given);
      if (!Number.isInteger(pairs) || pairs < 1 || pairs > 50)
        throw new Error('--pairs takes a whole number from 1 to 50');
    } else rest.push(arg);
  }
  return { postgres, pairs, rest };
}

async function postgresServer(): Promise<string> {
  if (server) return server.url;
  const given = process.env.BENCH_DATABASE_URL?.trim();
  if (given) {
    server = { url: given };
    return given;
  }
  const cluster = await startPostgresCluster({
    shared_buffers: '256MB',
    max_wal_size: '8GB',
    // BENCH_PG_STATEMENTS=1: pg_stat_statements loaded (statements inside functions counted too),
    // so that a benchmark can print where the server's time went. Off by default: it costs a little.
    ...(statementsTracked()
      ? { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all' }
      : {}),
    ...explainSettings(),
  });
  cluster.start();
  releaseAtExit(() => {
    const explainTo = process.env.BENCH_PG_EXPLAIN?.trim();
    try {
      if (explainTo) fs.copyFileSync(cluster.logFile, explainTo);
    } finally {
      cluster.remove();
    }
  });
  server = { url: cluster.url, cluster };
  const warmUp = await settleWriteAheadLog(cluster.url);
  process.stdout.write(
    `PostgreSQL ${cluster.url.replace(/\/postgres$/, '')} (started for the benchmark, fsync on, max_wal_size 8GB; ${warmUp})\n`,
  );
  return cluster.url;
}

/**
 * BENCH_PG_EXPLAIN=<file>: the server the benchmark starts logs the plan of a sample of its
 * statements, those inside functions too, with their buffers and times (auto_explain, a fraction
 * BENCH_PG_EXPLAIN_RATE of them, 0.003 unless given), and its log is copied to <file> when the
 * benchmark exits. The plans PostgreSQL chose, and what each read, while the load ran.
 */
function explainSettings(): Record<string, string> {
  if (!process.env.BENCH_PG_EXPLAIN?.trim()) return {};
  const rate = Number(process.env.BENCH_PG_EXPLAIN_RATE ?? '0.003');
  if (!(rate > 0 && rate <= 1)) throw new Error('BENCH_PG_EXPLAIN_RATE must be a fraction in (0, 1]');
  return {
    session_preload_libraries: 'auto_explain',
    'auto_explain.log_min_duration': '0',
    'auto_explain.log_analyze': 'on',
    'auto_explain.log_buffers': 'on',
    'auto_explain.log_nested_statements': 'on',
    'auto_explain.sample_rate': String(rate),
  };
}

/**
 * BENCH_PG_STATEMENTS=1 in the environment: the server the benchmark starts loads
 * pg_stat_statements (a server given by BENCH_DATABASE_URL must have it in shared_preload_libraries).
 */
export function statementsTracked(): boolean {
  return process.env.BENCH_PG_STATEMENTS === '1';
}

/**
 * CPU time (user + system, µs) of the benchmark's PostgreSQL server so far: the postmaster, its
 * children alive now (backends, writers) and those it has reaped. Null before a server was used, or
 * when the server's files are not on this machine (a BENCH_DATABASE_URL elsewhere).
 */
export async function postgresCpuMicros(): Promise<number | null> {
  if (!server) return null;
  const [dataDir] = await queryRows<{ data_directory: string }>(
    { dataDir: '', databaseUrl: server.url },
    '',
    'show data_directory',
    [],
  );
  const pidFile = `${dataDir?.data_directory}/postmaster.pid`;
  if (!dataDir || !fs.existsSync(pidFile)) return null;
  const postmaster = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  const statOf = (pid: number | string) => {
    try {
      return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    } catch {
      return [];
    }
  };
  // Fields after the command: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14).
  const own = statOf(postmaster);
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statOf(entry);
    if (Number(fields[1]) === postmaster) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return Number.isFinite(ticks) ? ticks * 10_000 : null;
}

/**
 * The position in the write-ahead log of the PostgreSQL server `target` uses (bytes written since
 * its cluster began): two readings apart give the log a load wrote. Null on SQLite.
 */
export async function postgresWalPosition(target: {
  dataDir: string;
  databaseUrl?: string | undefined;
}): Promise<number | null> {
  if (!target.databaseUrl) return null;
  const [row] = await queryRows<{ n: string }>(
    target,
    '',
    "select (pg_current_wal_lsn() - '0/0'::pg_lsn)::text as n",
    [],
  );
  return Number(row?.n);
}

/** Write-ahead log written before the first measurement, so that the log has a steady size. */
const WARM_UP_WAL_BYTES = 3 * 1024 ** 3;

/**
 * A new cluster's write-ahead log grows by new 16 MB segments, each filled with zeros as it is
 * created; a server that has been running recycles the segments its checkpoints freed instead.
 * The cluster started for a benchmark first writes WARM_UP_WAL_BYTES of log (rows inserted and
 * dropped) and checkpoints, so the measured loads meet a server whose log has reached its steady
 * size, as a production server's has. Returns what it did, for the benchmark's header.
 */
async function settleWriteAheadLog(url: string): Promise<string> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('create table bench_wal_warm_up (body text not null)');
    // About 1.1 KB of log a row (the row, its tuple header and the record's).
    const rows = Math.ceil(WARM_UP_WAL_BYTES / 1100 / 10);
    for (let round = 0; round < 10; round++) {
      await client.query(
        `insert into bench_wal_warm_up select repeat(md5(g::text), 31) from generate_series(1, ${rows}) as g`,
      );
      await client.query('truncate bench_wal_warm_up');
    }
    await client.query('drop table bench_wal_warm_up');
    await client.query('checkpoint');
  } finally {
    await client.end();
  }
  return `its log settled by ${(WARM_UP_WAL_BYTES / 1024 ** 3).toFixed(0)} GB written and a checkpoint first, in ${((performance.now() - started) / 1000).toFixed(1)} s`;
}

/** The databases made by newPostgresDatabase and not dropped yet. */
const made: string[] = [];

/** A new, empty database on the benchmark's PostgreSQL server; its connection string. */
export async function newPostgresDatabase(): Promise<string> {
  const url = await postgresServer();
  const name = `sb_bench_${process.pid}_${++counter}`;
  made.push(name);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/**
 * Between two runs on PostgreSQL (`--pairs`): drop every database newPostgresDatabase made (their
 * servers have stopped), so that the server's background work on them does not fall into the next
 * run, then (a server started for the benchmark) checkpoint, so that the next run starts where the
 * first did, after settleWriteAheadLog's checkpoint, rather than in the middle of a timed one.
 */
export async function resetPostgresServer(): Promise<void> {
  if (!server) return;
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  try {
    for (let name = made.pop(); name !== undefined; name = made.pop())
      await admin.query(`drop database if exists ${name} with (force)`);
    // Only on the server started for the benchmark: a BENCH_DATABASE_URL's user may not checkpoint.
    if (server.cluster) await admin.query('checkpoint');
  } finally {
    await admin.end();
  }
}

/** The environment a Switchboard started now needs for its database (nothing for SQLite). */
export async function databaseEnv(): Promise<Record<string, string>> {
  return current === 'postgres' ? { DATABASE_URL: await newPostgresDatabase() } : {};
}

/** Rows of a query on a server's database: SQLite's file under its data directory, or its PostgreSQL database. */
export async function queryRows<R>(
  target: { dataDir: string; databaseUrl?: string | undefined },
  sqlite: string,
  postgres: string,
  params: unknown[],
): Promise<R[]> {
  if (target.databaseUrl) {
    const client = new pg.Client({ connectionString: target.databaseUrl });
    await client.connect();
    try {
      return (await client.query(postgres, params)).rows as R[];
    } finally {
      await client.end();
    }
  }
  const { DatabaseSync } = await import('node:sqlite');
  const path = await import('node:path');
  const db = new DatabaseSync(path.join(target.dataDir, 'switchboard.sqlite'), { readOnly: true });
  try {
    return db.prepare(sqlite).all(...(params as never[])) as R[];
  } finally {
    db.close();
  }
}

/**
 * The size of a server's database, in bytes: on SQLite its file and the file's write-ahead log
 * (each, under the data directory); on PostgreSQL `pg_database_size(current_database())`, the
 * database's files (tables, indexes, TOAST, free space not yet returned), without the server's WAL.
 */
export async function databaseSize(target: {
  dataDir: string;
  databaseUrl?: string | undefined;
}): Promise<{ bytes: number; walBytes?: number }> {
  if (target.databaseUrl) {
    const [row] = await queryRows<{ bytes: string }>(
      target,
      '',
      'select pg_database_size(current_database()) as bytes',
      [],
    );
    return { bytes: Number(row?.bytes) };
  }
  const path = await import('node:path');
  const file = path.join(target.dataDir, 'switchboard.sqlite');
  const sizeOf = (f: string) => (fs.existsSync(f) ? fs.statSync(f).size : 0);
  return { bytes: sizeOf(file), walBytes: sizeOf(`${file}-wal`) };
}

/** Figures a benchmark reports for the comparison that `--database postgres` prints at the end. */
const figures: Array<{ database: BenchDatabase; pair: number; name: string; value: number }> = [];

export function recordFigure(name: string, value: number): void {
  figures.push({ database: current, pair: currentPair, name, value });
}

/** Whole numbers from 100 up; seconds, milliseconds and megabytes below that keep their decimals. */
function figure(value: number): string {
  const abs = Math.abs(value);
  return value.toFixed(abs >= 100 || abs === 0 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Each figure recorded on both databases: PostgreSQL's beside SQLite's, and the ratio. With several
 * pairs, each pair's line, then the medians of each database's figures and the median of the
 * pairs' ratios (each ratio compares two runs made one after the other).
 */
export function comparison(): string[] {
  const out: string[] = [];
  const line = (name: string, sqlite: string, postgres: string, ratio: string) =>
    `${name.padEnd(36)} SQLite ${sqlite.padStart(9)}   PostgreSQL ${postgres.padStart(9)}   PostgreSQL/SQLite ${ratio}`;
  const percent = (ratio: number) => `${(100 * ratio).toFixed(0)}%`;
  for (const name of new Set(figures.map((f) => f.name))) {
    const pairs: Array<{ pair: number; sqlite: number; postgres: number }> = [];
    for (const pair of new Set(figures.map((f) => f.pair))) {
      const of = (database: BenchDatabase) =>
        figures.find((f) => f.name === name && f.database === database && f.pair === pair)?.value;
      const sqlite = of('sqlite');
      const postgres = of('postgres');
      if (sqlite !== undefined && postgres !== undefined) pairs.push({ pair, sqlite, postgres });
    }
    if (pairs.length === 1) {
      const [{ sqlite, postgres }] = pairs as [(typeof pairs)[number]];
      out.push(line(name, figure(sqlite), figure(postgres), percent(postgres / sqlite)));
    } else if (pairs.length > 1) {
      for (const { pair, sqlite, postgres } of pairs)
        out.push(line(`${name}, pair ${pair}`, figure(sqlite), figure(postgres), percent(postgres / sqlite)));
      out.push(
        line(
          `${name}, median of ${pairs.length} pairs`,
          figure(median(pairs.map((p) => p.sqlite))),
          figure(median(pairs.map((p) => p.postgres))),
          `${percent(median(pairs.map((p) => p.postgres / p.sqlite)))} (median of the pairs' ratios)`,
        ),
      );
    }
  }
  return out;
}
