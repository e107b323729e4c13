// npm run bench -- datatables [--jobs N] [--records N] [--batch N] [--keep]
//
// Data tables through recipe steps, the app in this process on the embedded database with its
// default durability (SQLITE_SYNCHRONOUS=FULL), or with `--database postgres` on a new PostgreSQL
// database. Each figure comes with its baseline measured in the same run: the lookup-table action
// that does the same work.
// - Inserts: N jobs of a webhook recipe whose one step is workato_db_table/add_record, beside N
//   jobs of the same recipe with lookup_table/add_entry; then jobs of create_records_batch with
//   --batch records each (records inserted per second).
// - Searches: a table of --records records; N jobs of get_records with an equality filter on a
//   column (one record matches), beside N jobs of lookup_table/get_entry on a lookup table of the
//   same rows. A data table search reads the table's records (no index on values), a lookup-table
//   lookup is an index search: the gap grows with the table.
import { parseArgs } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { prepare } from '../src/prepare.ts';
import { databaseEnv, recordFigure } from './database.ts';
import { tempDir } from './lib.ts';

const ADMIN = 'bench-datatables-admin-token-0123456789abcdef0';
const hook = (...p: string[]) =>
  `#{_dp('${JSON.stringify({ pill_type: 'output', provider: 'workato_webhooks', line: 'hook', path: ['payload', ...p] })}')}`;

function recipe(step: Record<string, unknown>) {
  return {
    number: 0,
    keyword: 'trigger',
    provider: 'workato_webhooks',
    name: 'new_event',
    as: 'hook',
    input: {},
    block: [{ number: 1, keyword: 'action', as: 'step', ...step }],
  };
}

export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      jobs: { type: 'string', default: '2000' },
      records: { type: 'string', default: '10000' },
      batch: { type: 'string', default: '1000' },
      keep: { type: 'boolean', default: false },
    },
  });
  const jobs = Number(values.jobs);
  const records = Number(values.records);
  const batch = Number(values.batch);
  const dataDir = tempDir('switchboard-bench-', { keep: values.keep });
  const config = loadConfig({
    ...(await databaseEnv()),
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    SWITCHBOARD_ADMIN_TOKEN: ADMIN,
    JOB_BACKLOG_PER_RECIPE: '1000000',
    JOB_BACKLOG_PER_WORKSPACE: '1000000',
    DATA_TABLE_MAX_RECORDS: '100000000',
  });
  const logger = createLogger('silent');
  const { database, secretBox } = await prepare(config, logger);
  const app = await buildApp({ config, database, secretBox, logger });
  await app.ready();
  const call = async (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) => {
    const res = await app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${ADMIN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { payload: JSON.stringify(body) } : {}),
    });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return JSON.parse(res.body) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  const started = async (step: Record<string, unknown>): Promise<string> => {
    const made = await call('POST', '/api/recipes', {
      recipe: { name: `Bench ${Math.random()}`, code: JSON.stringify(recipe(step)), concurrency: 5 },
    });
    await call('PUT', `/api/recipes/${made.id}/start`);
    return new URL((await call('GET', `/api/recipes/${made.id}`)).webhook_url).pathname;
  };
  /** Post `count` events to a webhook and wait until every job has ended; seconds taken. */
  const drive = async (
    app: FastifyInstance,
    path: string,
    count: number,
    payload: (i: number) => unknown,
  ): Promise<number> => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < count; i += 200) {
      await Promise.all(
        Array.from({ length: Math.min(200, count - i) }, (_, k) =>
          app.inject({
            method: 'POST',
            url: path,
            headers: { 'content-type': 'application/json' },
            payload: JSON.stringify(payload(i + k)),
          }),
        ),
      );
    }
    for (;;) {
      const row = await database.db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', 'in', ['queued', 'running'])
        .executeTakeFirstOrThrow();
      if (Number(row.n) === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const failed = await database.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'failed')
      .executeTakeFirstOrThrow();
    if (Number(failed.n) > 0) throw new Error(`${failed.n} jobs failed`);
    return Number(process.hrtime.bigint() - start) / 1e9;
  };
  const rate = (n: number, s: number) => `${Math.round(n / s).toLocaleString('en-US')}/s`;
  try {
    const dt = (
      await call('POST', '/api/data_tables', {
        name: 'Accounts',
        schema: [
          { name: 'code', type: 'string' },
          { name: 'name', type: 'string' },
          { name: 'region', type: 'string' },
          { name: 'amount', type: 'integer' },
        ],
      })
    ).data;
    const [code, name, region, amount] = (dt.schema as Array<{ field_id: string }>).map((c) =>
      c.field_id.replaceAll('-', '_'),
    );
    const lt = await call('POST', '/api/lookup_tables', {
      name: 'Accounts',
      schema: [{ label: 'code' }, { label: 'name' }, { label: 'region' }, { label: 'amount' }],
    });

    // Inserts, one record a job.
    const addRecord = await started({
      provider: 'workato_db_table',
      name: 'add_record',
      input: {
        table_id: String(dt.id),
        parameters: {
          [code!]: hook('code'),
          [name!]: hook('name'),
          [region!]: hook('region'),
          [amount!]: hook('amount'),
        },
      },
    });
    const addEntry = await started({
      provider: 'lookup_table',
      name: 'add_entry',
      input: {
        lookup_table_id: String(lt.id),
        parameters: { col1: hook('code'), col2: hook('name'), col3: hook('region'), col4: hook('amount') },
      },
    });
    const event = (i: number) => ({ code: `W${i}`, name: `Warm ${i}`, region: `R${i % 20}`, amount: i });
    const dtSeconds = await drive(app, addRecord, jobs, event);
    const ltSeconds = await drive(app, addEntry, jobs, event);
    console.log(
      `inserts, one a job (${jobs} jobs):  data table add_record ${rate(jobs, dtSeconds)} | baseline lookup_table add_entry ${rate(jobs, ltSeconds)}`,
    );
    recordFigure('add_record jobs/s', jobs / dtSeconds);
    recordFigure('baseline add_entry jobs/s', jobs / ltSeconds);

    // Inserts in batches.
    const batchRows = Array.from({ length: batch }, (_, i) => ({
      [code!]: `B${i}`,
      [name!]: `Batch ${i}`,
      [region!]: `R${i % 20}`,
      [amount!]: i,
    }));
    const addBatch = await started({
      provider: 'workato_db_table',
      name: 'create_records_batch',
      input: { table_id: String(dt.id), records: batchRows },
    });
    const batchJobs = Math.max(1, Math.round(records / batch));
    const batchSeconds = await drive(app, addBatch, batchJobs, () => ({}));
    console.log(
      `inserts, ${batch} a job (${batchJobs} jobs):  data table create_records_batch ${rate(batchJobs * batch, batchSeconds)} records`,
    );
    recordFigure('create_records_batch records/s', (batchJobs * batch) / batchSeconds);

    // Searches on a table of `records` records (the batches above, plus the single inserts).
    const total = (await call('GET', `/api/data_tables/${dt.id}`)).data.record_count as number;
    for (let i = 0; i < total - jobs; i += 1000) {
      const rows = Array.from({ length: Math.min(1000, total - jobs - i) }, (_, k) => ({
        data: { code: `B${i + k}`, name: `Batch ${i + k}`, region: `R${(i + k) % 20}`, amount: String(i + k) },
      }));
      for (const row of rows) await call('POST', `/api/lookup_tables/${lt.id}/rows`, row);
    }
    const search = await started({
      provider: 'workato_db_table',
      name: 'get_records',
      input: {
        table_id: String(dt.id),
        limit: '10',
        filters: [{ field_id: dt.schema[0].field_id, op_default: 'eq', value_default: hook('code') }],
      },
    });
    const getEntry = await started({
      provider: 'lookup_table',
      name: 'get_entry',
      input: { lookup_table_id: String(lt.id), parameters: { col1: hook('code') } },
    });
    const probe = (i: number) => ({ code: `W${(i * 7919) % jobs}` });
    const searches = Math.max(100, Math.round(jobs / 10));
    const searchSeconds = await drive(app, search, searches, probe);
    const lookupSeconds = await drive(app, getEntry, searches, probe);
    console.log(
      `searches on ${total.toLocaleString('en-US')} records (${searches} jobs):  data table get_records ${rate(searches, searchSeconds)} | baseline lookup_table get_entry ${rate(searches, lookupSeconds)}`,
    );
    recordFigure('get_records jobs/s', searches / searchSeconds);
    recordFigure('baseline get_entry jobs/s', searches / lookupSeconds);
  } finally {
    await app.close();
    await database.db.destroy();
  }
}
