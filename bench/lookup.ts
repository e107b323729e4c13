// npm run bench -- lookup [--rows N] [--lookups N] [--adds N] [--concurrency N] [--keep]
//
// Fills a lookup table with 1,000,000 rows (directly through the store, in large transactions),
// starts the real server on a loopback port with its data in a temporary DATA_DIR, and measures
// through HTTP (keep-alive, from a worker thread): lookup latency by one column and by two,
// and rows added per second by concurrent POSTs. The same lookups run directly in SQL in the
// same run, and the same POSTs to a route that does not touch the database, for comparison.
// Row adds also report the server's CPU time per add (from /proc: the main thread, where SQLite
// runs too, and the process less the client thread), which other load on the machine disturbs
// far less than adds per second. SQLITE_SYNCHRONOUS is read from the environment (default FULL).
// With `--database postgres` it runs once on each database (bench/database.ts); on PostgreSQL the
// direct SQL runs on a client connection of its own (a round trip each, prepared by name).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DatabaseSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { prepare } from '../src/prepare.ts';
import { SQLITE_FILENAME } from '../src/db/index.ts';
import { createServiceContext, type ServiceContext } from '../src/context.ts';
import { findEnvironmentByType } from '../src/workspaces/workspaces.store.ts';
import { addRow } from '../src/api/lookup_tables/lookup_tables.service.ts';
import { LookupRow, RowBody, TableParams } from '../src/api/lookup_tables/lookup_tables.schemas.ts';
import {
  insertRows,
  planFilters,
  probeQuery,
  rowsQuery,
  type CellFilter,
  type Cells,
} from '../src/api/lookup_tables/lookup_tables.store.ts';
import { threadCpuMs, type ClientJob, type ClientResult } from './http-client.ts';
import { tempDir } from './lib.ts';
import { currentDatabase, databaseEnv, recordFigure } from './database.ts';

const LABELS = ['code', 'name', 'region', 'currency', 'owner'];
const REGIONS = 20;

/** A unique, scattered account code for row i (multiplying by an odd constant permutes 32-bit numbers). */
function codeOf(i: number): string {
  return `A${(Math.imul(i, 0x9e3779b1) >>> 0).toString(16).padStart(8, '0')}`;
}

function rowOf(i: number): Cells {
  return {
    col1: codeOf(i),
    col2: `Customer ${i}`,
    col3: `R${i % REGIONS}`,
    col4: ['EUR', 'USD', 'GBP', 'CZK', 'JPY'][i % 5] as string,
    col5: `owner${i % 5000}`,
  };
}

/** Deterministic pseudo-random row numbers, so that runs compare. */
function sampleRows(count: number, max: number, seed: number): number[] {
  let x = seed >>> 0;
  return Array.from({ length: count }, () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x % max;
  });
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

interface Stats {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
  n: number;
}
function stats(latenciesMs: readonly number[]): Stats {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] as number,
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
    n: sorted.length,
  };
}

const ms = (v: number) => `${v < 0.1 ? v.toFixed(4) : v.toFixed(3)} ms`;
const int = (v: number) => Math.round(v).toLocaleString('en-US');

function runClient(worker: Worker, job: ClientJob): Promise<ClientResult> {
  return new Promise((resolve, reject) => {
    worker.once('message', (message: ClientResult | { error: string }) =>
      'error' in message ? reject(new Error(message.error)) : resolve(message),
    );
    worker.once('error', reject);
    worker.postMessage(job);
  });
}

export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      rows: { type: 'string', default: '1000000' },
      lookups: { type: 'string', default: '20000' },
      adds: { type: 'string', default: '30000' },
      concurrency: { type: 'string', default: '32' },
      keep: { type: 'boolean', default: false },
    },
  });
  const rows = Number(values.rows);
  const lookups = Number(values.lookups);
  const adds = Number(values.adds);
  const concurrency = Number(values.concurrency);
  for (const [name, v] of Object.entries({ rows, lookups, adds, concurrency })) {
    if (!Number.isInteger(v) || v < 1) throw new Error(`--${name} must be a positive whole number`);
  }

  const dataDir = tempDir('switchboard-bench-', { keep: values.keep });
  const onPostgres = currentDatabase() === 'postgres';
  const dbEnv = await databaseEnv();
  const config = loadConfig({
    ...dbEnv,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    ...(process.env.SQLITE_SYNCHRONOUS ? { SQLITE_SYNCHRONOUS: process.env.SQLITE_SYNCHRONOUS } : {}),
    // Room for the filled rows plus the ones the benchmark adds (the default is 1,000,000 a table).
    LOOKUP_TABLE_MAX_ROWS: String(Math.max(1_000_000, rows + adds + 10_000)),
  });
  const logger = createLogger('silent');
  const { database, secretBox, firstStart } = await prepare(config, logger);
  const app = await buildApp({ config, database, secretBox, logger });
  // For comparison, a route of this benchmark only: the same path shape, privilege, body and
  // response schemas and reply as a row add, without the service (no database): the HTTP floor.
  app.post(
    '/api/lookup_tables/:lookup_table_id/bench_no_database',
    {
      config: { privilege: 'lookup_tables:write' },
      schema: { params: TableParams, body: RowBody, response: { 200: LookupRow } },
    },
    async (request) => {
      const now = new Date().toISOString().replace(/Z$/, '+00:00');
      return { id: 1, data: (request.body as { data: Record<string, string> }).data, created_at: now, updated_at: now };
    },
  );
  const worker = new Worker(new URL('./http-client.ts', import.meta.url));
  try {
    await app.listen({ host: config.host, port: 0 });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    const base = `http://127.0.0.1:${address.port}`;
    const token = firstStart.printableToken as string;
    const sqliteVersion = (new DatabaseSync(':memory:').prepare('select sqlite_version() as v').get() as { v: string })
      .v;

    console.log(`Switchboard lookup-table benchmark, ${new Date().toISOString()}`);
    console.log(
      `machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}), ${Math.round(os.totalmem() / 2 ** 30)} GiB; Node ${process.version}; SQLite ${sqliteVersion}`,
    );
    console.log(
      `load average at start: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} (other processes on this machine share its CPUs)`,
    );
    console.log(
      `settings: ${onPostgres ? 'PostgreSQL (synchronous_commit on)' : `SQLITE_SYNCHRONOUS=${config.sqliteSynchronous} (WAL)`}, LOOKUP_TABLE_MAX_ROWS=${config.lookupTableMaxRows}, data in ${dataDir}`,
    );

    const created = await fetch(`${base}/api/lookup_tables`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'accounts', schema: LABELS.map((label) => ({ label })) }),
    });
    if (created.status !== 200) throw new Error(`create table: ${created.status} ${await created.text()}`);
    const tableId = ((await created.json()) as { id: number }).id;

    // Fill: directly through the store, 20,000 rows a transaction. A larger page cache speeds the
    // fill only; it is set back to SQLite's default before anything is measured.
    const fillStarted = performance.now();
    if (!onPostgres) await sql`PRAGMA cache_size = -262144`.execute(database.db);
    const now = new Date().toISOString();
    for (let start = 0; start < rows; start += 20_000) {
      const batch: Cells[] = [];
      for (let i = start; i < Math.min(rows, start + 20_000); i++) batch.push(rowOf(i));
      await database.db.transaction().execute((trx) => insertRows(trx, tableId, LABELS.length, batch, now));
      if (process.stderr.isTTY) process.stderr.write(`\rfilling: ${int(Math.min(rows, start + 20_000))} rows`);
    }
    if (onPostgres) await sql`analyze lookup_table_rows`.execute(database.db);
    else {
      await sql`PRAGMA cache_size = -2000`.execute(database.db);
      await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(database.db);
    }
    if (process.stderr.isTTY) process.stderr.write('\r');
    const fillSeconds = (performance.now() - fillStarted) / 1000;
    const fileMb = onPostgres
      ? Number(
          (await sql<{ size: string }>`select pg_database_size(current_database()) as size`.execute(database.db))
            .rows[0]?.size,
        ) /
        2 ** 20
      : fs.statSync(path.join(dataDir, SQLITE_FILENAME)).size / 2 ** 20;
    console.log(
      `table: ${int(rows)} rows x ${LABELS.length} columns (${LABELS.join(', ')}), filled in ${fillSeconds.toFixed(1)} s; database file ${fileMb.toFixed(0)} MiB`,
    );

    const oneColumn = sampleRows(lookups, rows, 1);
    const twoColumns = sampleRows(lookups, rows, 2);
    const filtersOne = (i: number): CellFilter[] => [{ column: 'col1', value: codeOf(i) }];
    // A common column (region: 1 row in 20) with a unique one: the rarer value must lead.
    const filtersTwo = (i: number): CellFilter[] => [
      { column: 'col3', value: `R${i % REGIONS}` },
      { column: 'col1', value: codeOf(i) },
    ];

    // The same lookups directly in SQL: the statements the store runs, prepared once, on a
    // connection of their own to the same file (SQLite) or database (PostgreSQL, one round trip each).
    const planned = (await planFilters(database.db, tableId, filtersTwo(0))) as CellFilter[];
    if (planned[0]?.column !== 'col1') throw new Error('the unique column should lead a two-column lookup');
    // The statements as the store compiles them; their parameters for each sample, prepared before timing.
    const oneQuery = (i: number) => rowsQuery(database.db, tableId, filtersOne(i)).limit(1).compile();
    const probe = (i: number) => probeQuery(database.db, tableId, filtersTwo(i)).compile();
    const twoQuery = (i: number) =>
      rowsQuery(database.db, tableId, [filtersTwo(i)[1] as CellFilter, filtersTwo(i)[0] as CellFilter])
        .limit(1)
        .compile();
    const oneParams = oneColumn.map((i) => oneQuery(i).parameters);
    const probeParams = twoColumns.map((i) => probe(i).parameters);
    const twoParams = twoColumns.map((i) => twoQuery(i).parameters);
    const timeDirect = async (samples: number[], run: (k: number) => unknown): Promise<Stats> => {
      const latencies: number[] = [];
      for (let k = 0; k < samples.length; k++) {
        const t0 = performance.now();
        const result = await run(k);
        latencies.push(performance.now() - t0);
        if ((result as { col1?: string } | undefined)?.col1 !== codeOf(samples[k] as number))
          throw new Error(`direct SQL lookup of row ${samples[k]} returned ${JSON.stringify(result)}`);
      }
      return stats(latencies);
    };
    let directOne: Stats;
    let directTwo: Stats;
    if (onPostgres) {
      const client = new pg.Client({ connectionString: dbEnv.DATABASE_URL });
      await client.connect();
      try {
        const first = async (name: string, text: string, values: readonly unknown[]) =>
          (await client.query({ name, text, values: [...values] })).rows[0] as unknown;
        const [oneSql, probeSql, twoSql] = [oneQuery(0).sql, probe(0).sql, twoQuery(0).sql];
        await timeDirect(oneColumn.slice(0, 1000), (k) => first('one', oneSql, oneParams[k] as unknown[]));
        directOne = await timeDirect(oneColumn, (k) => first('one', oneSql, oneParams[k] as unknown[]));
        directTwo = await timeDirect(twoColumns, async (k) => {
          await first('probe', probeSql, probeParams[k] as unknown[]);
          return first('two', twoSql, twoParams[k] as unknown[]);
        });
      } finally {
        await client.end();
      }
    } else {
      const direct = new DatabaseSync(path.join(dataDir, SQLITE_FILENAME), { readOnly: true });
      const oneStmt = direct.prepare(oneQuery(0).sql);
      const probeStmt = direct.prepare(probe(0).sql);
      const twoStmt = direct.prepare(twoQuery(0).sql);
      type Params = Parameters<typeof oneStmt.get>;
      await timeDirect(oneColumn.slice(0, 1000), (k) => oneStmt.get(...(oneParams[k] as Params)));
      directOne = await timeDirect(oneColumn, (k) => oneStmt.get(...(oneParams[k] as Params)));
      directTwo = await timeDirect(twoColumns, (k) => {
        probeStmt.get(...(probeParams[k] as Params));
        return twoStmt.get(...(twoParams[k] as Params));
      });
      direct.close();
    }

    // Through HTTP, one request at a time (latency), after a warm-up.
    const lookupUrl = (filters: CellFilter[]) =>
      `${base}/api/lookup_tables/${tableId}/lookup?${filters.map((f) => `by[${LABELS[Number(f.column.slice(3)) - 1]}]=${encodeURIComponent(f.value ?? '')}`).join('&')}`;
    const httpJob = (
      samples: number[],
      filters: (i: number) => CellFilter[],
      client: 'http' | 'fetch' = 'http',
    ): ClientJob => ({
      kind: 'sequential',
      client,
      token,
      urls: samples.map((i) => lookupUrl(filters(i))),
      expect: samples.map(codeOf),
      expectKey: 'code',
    });
    await runClient(worker, httpJob(oneColumn.slice(0, 2000), filtersOne));
    await runClient(worker, httpJob(oneColumn.slice(0, 2000), filtersOne, 'fetch'));
    const httpOne = await runClient(worker, httpJob(oneColumn, filtersOne));
    const httpTwo = await runClient(worker, httpJob(twoColumns, filtersTwo));
    const fetchOne = await runClient(worker, httpJob(oneColumn, filtersOne, 'fetch'));

    // Row adds: new rows with new unique codes, first directly through the service (the same
    // validation and group commit as a request, without HTTP), then by concurrent POSTs.
    const newRow = (k: number) => ({
      code: codeOf(rows + k),
      name: `Customer ${rows + k}`,
      region: `R${k % REGIONS}`,
      currency: 'EUR',
      owner: `owner${k % 5000}`,
    });
    const serviceAdds = Math.min(adds, 10_000);
    const ctx: ServiceContext = createServiceContext({ db: database.db, config, secretBox, log: logger });
    const scope = {
      workspaceId: firstStart.workspace.id,
      environmentId: (await findEnvironmentByType(database.db, firstStart.workspace.id, 'dev'))?.id as number,
      allFolders: true,
      folderIds: [],
    };
    let nextServiceAdd = 0;
    // CPU time per add: of the main thread (the server's event loop, where SQLite runs too), and of
    // the whole process less the client thread (adds garbage collection and other helper threads).
    // Far less sensitive to other load on the machine than adds per second.
    const mainThreadStat = `/proc/self/task/${process.pid}/stat`;
    const processCpuMs = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    };
    const serviceStarted = performance.now();
    const serviceCpu = [threadCpuMs(mainThreadStat), processCpuMs()];
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (nextServiceAdd < serviceAdds) await addRow(ctx, scope, tableId, newRow(adds + nextServiceAdd++));
      }),
    );
    const servicePerSecond = serviceAdds / ((performance.now() - serviceStarted) / 1000);
    const serviceMainUs = ((threadCpuMs(mainThreadStat) - (serviceCpu[0] as number)) * 1000) / serviceAdds;
    const serviceProcessUs = ((processCpuMs() - (serviceCpu[1] as number)) * 1000) / serviceAdds;
    const bodies = Array.from({ length: adds }, (_, k) => JSON.stringify({ data: newRow(k) }));
    const httpCpu = [threadCpuMs(mainThreadStat), processCpuMs()];
    const addResult = await runClient(worker, {
      kind: 'concurrent-posts',
      token,
      url: `${base}/api/lookup_tables/${tableId}/rows`,
      bodies,
      concurrency,
    });
    const httpMainUs = ((threadCpuMs(mainThreadStat) - (httpCpu[0] as number)) * 1000) / adds;
    const httpServerUs = ((processCpuMs() - (httpCpu[1] as number) - (addResult.clientCpuMs ?? NaN)) * 1000) / adds;
    const addsPerSecond = adds / (addResult.elapsedMs / 1000);
    const floorCpu = [threadCpuMs(mainThreadStat), processCpuMs()];
    const floorResult = await runClient(worker, {
      kind: 'concurrent-posts',
      token,
      url: `${base}/api/lookup_tables/${tableId}/bench_no_database`,
      bodies,
      concurrency,
    });
    const floorMainUs = ((threadCpuMs(mainThreadStat) - (floorCpu[0] as number)) * 1000) / adds;
    const floorServerUs = ((processCpuMs() - (floorCpu[1] as number) - (floorResult.clientCpuMs ?? NaN)) * 1000) / adds;
    const added = await fetch(lookupUrl(filtersOne(rows + adds - 1)), {
      headers: { authorization: `Bearer ${token}` },
    });

    const line = (label: string, s: Stats) =>
      console.log(
        `  ${label.padEnd(48)} ${[s.p50, s.p90, s.p99, s.max, s.mean].map((v) => ms(v).padStart(11)).join(' ')} ${int(s.n).padStart(7)}`,
      );
    console.log('');
    console.log(
      `lookup of the first matching row${''.padEnd(27)}p50         p90         p99         max        mean       n`,
    );
    line('SQL, prepared statement: by code', directOne);
    line('SQL, prepared statements: by region + code', directTwo);
    line('HTTP GET /lookup?by[code]=…', stats(httpOne.latenciesMs));
    line('HTTP GET /lookup?by[region]=…&by[code]=…', stats(httpTwo.latenciesMs));
    line('HTTP GET /lookup?by[code]=…, client fetch()', stats(fetchOne.latenciesMs));
    const addStats = stats(addResult.latenciesMs);
    console.log('');
    const cpu = (mainUs: number, allUs: number, each = 'an add') =>
      `CPU ${int(mainUs)} µs ${each} on the server's main thread, ${int(allUs)} µs in all its threads`;
    console.log(
      `row adds: service addRow() directly, ${concurrency} concurrent callers: ${int(serviceAdds)} rows = ${int(servicePerSecond)} rows/s; ${cpu(serviceMainUs, serviceProcessUs)}`,
    );
    console.log(
      `row adds: HTTP POST /rows, ${concurrency} concurrent connections: ${int(adds)} rows in ${(addResult.elapsedMs / 1000).toFixed(2)} s = ${int(addsPerSecond)} rows/s (latency p50 ${ms(addStats.p50)}, p99 ${ms(addStats.p99)}); ${cpu(httpMainUs, httpServerUs)}; the client ${int(((addResult.clientCpuMs ?? NaN) * 1000) / adds)} µs`,
    );
    console.log(
      `the same POSTs to a route without the service (no database; the HTTP floor): ${int(adds / (floorResult.elapsedMs / 1000))} requests/s; ${cpu(floorMainUs, floorServerUs, 'a request')}; the client ${int(((floorResult.clientCpuMs ?? NaN) * 1000) / adds)} µs`,
    );
    const failures =
      floorResult.failures +
      httpOne.failures +
      httpTwo.failures +
      fetchOne.failures +
      addResult.failures +
      (added.status === 200 ? 0 : 1);
    if (failures > 0)
      console.log(
        `FAILURES: ${failures} (${httpOne.firstFailure ?? httpTwo.firstFailure ?? addResult.firstFailure ?? `last added row not found: ${added.status}`})`,
      );
    const p99 = Math.max(stats(httpOne.latenciesMs).p99, stats(httpTwo.latenciesMs).p99);
    // For the comparison of the two databases (`--database postgres`): rates, higher is better.
    recordFigure('lookups/s, by code', 1000 / stats(httpOne.latenciesMs).mean);
    recordFigure('lookups/s, by region + code', 1000 / stats(httpTwo.latenciesMs).mean);
    recordFigure('row adds/s through HTTP', addsPerSecond);
    console.log(
      `load average at end: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    console.log('');
    console.log(
      `targets: lookup p99 < 2 ms through HTTP: ${p99 < 2 ? 'met' : 'MISSED'} (${ms(p99)}); >= 5,000 row adds/s through HTTP: ${addsPerSecond >= 5000 ? 'met' : 'MISSED'} (${int(addsPerSecond)}/s)`,
    );
    if (failures > 0) process.exitCode = 1;
  } finally {
    await worker.terminate();
    await app.close();
    await database.db.destroy();
  }
}
