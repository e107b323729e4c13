// npm run bench -- packages [--recipes N] [--connections N] [--tables N] [--rows N]
//
// Starts the real server (the CLI, in a child process, data in a temporary DATA_DIR; with
// `--database postgres` on a new PostgreSQL database, bench/database.ts) and builds a
// project in `dev`: 20 connections, 500 recipes (each naming a connection and a lookup table) and
// 5 lookup tables of 100,000 rows, put in place by importing a generated package. Then, as a
// platform team moves it: a manifest of the folder's assets with their data, an export (polled
// until completed), the download, and an import of that zip into a new folder of `test` (polled
// until completed). Prints the seconds of each phase and the server's peak resident memory above
// its idle figure, read from /proc/<pid>/status (VmRSS sampled every 20 ms, and VmHWM).
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { queryRows, recordFigure } from './database.ts';
import { startSwitchboard } from './platform.ts';

const TARGETS = { exportSeconds: 10, importSeconds: 20, peakMb: 300 };

function procStatusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) : NaN;
}

/** The largest VmRSS seen while `work` runs, sampled every 20 ms. */
async function peakRssDuring<T>(pid: number, work: () => Promise<T>): Promise<{ value: T; peakKb: number }> {
  let peakKb = procStatusKb(pid, 'VmRSS');
  const timer = setInterval(() => {
    peakKb = Math.max(peakKb, procStatusKb(pid, 'VmRSS'));
  }, 20);
  try {
    const value = await work();
    peakKb = Math.max(peakKb, procStatusKb(pid, 'VmRSS'));
    return { value, peakKb };
  } finally {
    clearInterval(timer);
  }
}

const mb = (kb: number) => (kb / 1024).toFixed(0);
const seconds = (ms: number) => (ms / 1000).toFixed(2);

function stem(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');
}

function recipeCode(i: number, table: string): Record<string, unknown> {
  const pill = (p: string) =>
    `_dp('${JSON.stringify({ pill_type: 'output', provider: 'workato_webhooks', line: 'hook', path: ['payload', p] })}')`;
  return {
    number: 0,
    keyword: 'trigger',
    provider: 'workato_webhooks',
    name: 'new_event',
    as: 'hook',
    input: { webhook_suffix: `orders_${i}` },
    block: [
      {
        number: 1,
        keyword: 'action',
        provider: 'lookup_table',
        name: 'get_entry',
        as: 'rate',
        input: {
          lookup_table_id: { zip_name: `${stem(table)}.lookup_table.json`, name: table, folder: '' },
          parameters: { col1: `#{${pill('code')}}` },
        },
      },
      {
        number: 2,
        keyword: 'action',
        provider: 'rest',
        name: 'make_request',
        as: 'call',
        input: { method: 'POST', path: `/orders/${i}`, body: `#{${pill('id')}}` },
      },
      {
        number: 3,
        keyword: 'action',
        provider: 'logger',
        name: 'log_message',
        as: 'log',
        input: { message: `order #{${pill('id')}} handled by recipe ${i}` },
      },
    ],
  };
}

/** The project as a package of the vendor's layout, written to `file`. */
export async function writeSeedPackage(
  file: string,
  counts: { recipes: number; connections: number; tables: number; rows: number },
): Promise<void> {
  const zip = new yazl.ZipFile();
  const done = new Promise<void>((resolve, reject) => {
    zip.outputStream.pipe(fs.createWriteStream(file)).on('finish', resolve).on('error', reject);
  });
  const connections = Array.from({ length: counts.connections }, (_, i) => `Backend ${String(i + 1).padStart(2, '0')}`);
  const tables = Array.from({ length: counts.tables }, (_, i) => `Rates ${i + 1}`);
  for (const name of connections)
    zip.addBuffer(
      Buffer.from(JSON.stringify({ name, provider: 'rest', root_folder: false })),
      `Connections/${stem(name)}.connection.json`,
    );
  for (const [t, name] of tables.entries()) {
    const rows: string[] = [];
    for (let r = 0; r < counts.rows; r += 1) {
      rows.push(
        JSON.stringify({
          col1: `C${t}-${String(r).padStart(6, '0')}`,
          col2: `Customer ${r} of table ${t}`,
          col3: `R${r % 20}`,
          col4: ['EUR', 'USD', 'GBP', 'CZK'][r % 4],
          col5: String((r * 37) % 1000),
        }),
      );
    }
    const schema = ['code', 'name', 'region', 'currency', 'rate'].map((label, i) => ({ label, name: `col${i + 1}` }));
    zip.addBuffer(
      Buffer.from(
        `{"name":${JSON.stringify(name)},"schema":${JSON.stringify(schema)},"data":[\n${rows.join(',\n')}\n]}\n`,
      ),
      `${stem(name)}.lookup_table.json`,
    );
  }
  for (let i = 0; i < counts.recipes; i += 1) {
    const name = `Order handler ${String(i + 1).padStart(3, '0')}`;
    const connection = connections[i % connections.length] as string;
    const recipe = {
      name,
      description: `Handles orders of channel ${i + 1}`,
      version: 1,
      private: false,
      concurrency: 1,
      code: recipeCode(i, tables[i % tables.length] as string),
      config: [
        { keyword: 'application', provider: 'workato_webhooks', skip_validation: false, account_id: null },
        {
          keyword: 'application',
          provider: 'rest',
          skip_validation: false,
          account_id: {
            zip_name: `Connections/${stem(connection)}.connection.json`,
            name: connection,
            folder: 'Connections',
          },
        },
      ],
    };
    zip.addBuffer(
      Buffer.from(JSON.stringify(recipe, null, 2)),
      `Recipes/${String(Math.floor(i / 100))}/${stem(name)}.recipe.json`,
    );
  }
  zip.end();
  await done;
}

/** The names of a zip's entries and their uncompressed total. */
async function zipSummary(file: string): Promise<{ entries: number; bytes: number }> {
  const zip = await yauzl.openPromise(file, { lazyEntries: true });
  let entries = 0;
  let bytes = 0;
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (e: yauzl.Entry) => {
      entries += 1;
      bytes += e.uncompressedSize;
      zip.readEntry();
    });
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  zip.close();
  return { entries, bytes };
}

export async function main(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      recipes: { type: 'string', default: '500' },
      connections: { type: 'string', default: '20' },
      tables: { type: 'string', default: '5' },
      rows: { type: 'string', default: '100000' },
    },
  });
  const counts = {
    recipes: Number(values.recipes),
    connections: Number(values.connections),
    tables: Number(values.tables),
    rows: Number(values.rows),
  };
  const sb = await startSwitchboard({ SQLITE_SYNCHRONOUS: process.env.SQLITE_SYNCHRONOUS ?? 'FULL' });
  const pid = sb.process.pid as number;
  const testToken = execFileSync(
    process.execPath,
    [
      path.resolve(import.meta.dirname, '../src/entry.js'),
      'tokens',
      'create',
      '--role',
      'Admin',
      '--env',
      'test',
      '--name',
      'bench test',
    ],
    {
      env: {
        ...process.env,
        DATA_DIR: sb.dataDir,
        LOG_LEVEL: 'warn',
        ...(sb.databaseUrl ? { DATABASE_URL: sb.databaseUrl } : {}),
      },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  ).trim();

  const call = async (token: string, method: string, route: string, body?: Buffer | unknown): Promise<Response> => {
    const binary = Buffer.isBuffer(body);
    const res = await fetch(sb.url + route, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': binary ? 'application/zip' : 'application/json' }),
      },
      ...(body === undefined ? {} : { body: binary ? body : JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${await res.text()}`);
    return res;
  };
  const json = async (token: string, method: string, route: string, body?: Buffer | unknown) =>
    (await (await call(token, method, route, body)).json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Poll a package every 100 ms until it leaves in_progress. */
  const settle = async (token: string, id: number) => {
    for (;;) {
      const pkg = await json(token, 'GET', `/api/packages/${id}`);
      if (pkg.status !== 'in_progress') {
        if (pkg.status !== 'completed') throw new Error(`package ${id} ${pkg.status}: ${JSON.stringify(pkg)}`);
        return pkg;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const importZip = async (token: string, folderId: number, zip: Buffer) => {
    const started = await json(token, 'POST', `/api/packages/import/${folderId}`, zip);
    return settle(token, started.id as number);
  };

  const work = path.join(sb.dataDir, 'bench-files');
  fs.mkdirSync(work);
  const seedFile = path.join(work, 'seed.zip');
  process.stdout.write(
    `packages: building a project of ${counts.recipes} recipes, ${counts.connections} connections, ${counts.tables} lookup tables of ${counts.rows.toLocaleString('en')} rows\n`,
  );
  await writeSeedPackage(seedFile, counts);
  const source = await json(sb.token, 'POST', '/api/folders', { name: 'Orders project' });
  const freshKb = procStatusKb(pid, 'VmRSS');
  const seedZip = fs.readFileSync(seedFile);
  const setUp = await peakRssDuring(pid, async () => {
    const started = Date.now();
    await importZip(sb.token, source.id as number, seedZip);
    return Date.now() - started;
  });

  // Idle: after the set-up, with the heap settled.
  await new Promise((r) => setTimeout(r, 3000));
  const idleKb = procStatusKb(pid, 'VmRSS');

  const exported = await peakRssDuring(pid, async () => {
    const started = Date.now();
    const assets = await json(
      sb.token,
      'GET',
      `/api/export_manifests/folder_assets?folder_id=${source.id}&include_data=true`,
    );
    const manifest = await json(sb.token, 'POST', '/api/export_manifests', {
      export_manifest: { name: 'Orders project', folder_id: source.id, include_data: true, auto_generate_assets: true },
    });
    const manifestMs = Date.now() - started;
    const pkg = await json(sb.token, 'POST', `/api/packages/export/${manifest.result?.id ?? manifest.id}`);
    await settle(sb.token, pkg.id as number);
    const exportMs = Date.now() - started;
    const downloadStarted = Date.now();
    const zip = Buffer.from(await (await call(sb.token, 'GET', `/api/packages/${pkg.id}/download`)).arrayBuffer());
    return {
      assets: (assets.result?.assets ?? []).length as number,
      manifestMs,
      exportMs,
      downloadMs: Date.now() - downloadStarted,
      zip,
    };
  });
  const exportedFile = path.join(work, 'exported.zip');
  fs.writeFileSync(exportedFile, exported.value.zip);
  const summary = await zipSummary(exportedFile);

  await new Promise((r) => setTimeout(r, 2000));
  const target = await json(testToken, 'POST', '/api/folders', { name: 'Orders project' });
  const imported = await peakRssDuring(pid, async () => {
    const started = Date.now();
    const pkg = await importZip(testToken, target.id as number, exported.value.zip);
    return { importMs: Date.now() - started, recipes: (pkg.recipe_status as unknown[]).length };
  });
  const rowsInTestSql =
    "select count(*) as n from lookup_table_rows r join lookup_tables t on t.id = r.table_id join environments e on e.id = t.environment_id where e.type = 'test'";
  const rowsInTest = Number((await queryRows<{ n: number | string }>(sb, rowsInTestSql, rowsInTestSql, []))[0]?.n);
  const hwmKb = procStatusKb(pid, 'VmHWM');

  const peakKb = Math.max(exported.peakKb, imported.peakKb);
  const line = (label: string, value: string, target?: string) =>
    process.stdout.write(`  ${label.padEnd(48)} ${value}${target ? `   (target ${target})` : ''}\n`);
  process.stdout.write('\n');
  line(
    'set-up: import of the generated package',
    `${seconds(setUp.value)} s, ${(seedZip.length / 1e6).toFixed(1)} MB zip, into a new server`,
  );
  line(
    '  its peak RSS above the new server',
    `${mb(setUp.peakKb - freshKb)} MB (${mb(freshKb)} -> ${mb(setUp.peakKb)} MB)`,
  );
  line('folder assets listed', `${exported.value.assets} assets`);
  line('manifest (auto_generate_assets, include_data)', `${seconds(exported.value.manifestMs)} s`);
  line(
    'export with data (manifest, export, poll)',
    `${seconds(exported.value.exportMs)} s`,
    `<= ${TARGETS.exportSeconds} s`,
  );
  line(
    'download',
    `${seconds(exported.value.downloadMs)} s, ${(exported.value.zip.length / 1e6).toFixed(1)} MB zip, ${summary.entries} files, ${(summary.bytes / 1e6).toFixed(1)} MB uncompressed`,
  );
  line(
    'import into a new folder of test (POST, poll)',
    `${seconds(imported.value.importMs)} s, ${imported.value.recipes} recipes, ${rowsInTest.toLocaleString('en')} rows`,
    `<= ${TARGETS.importSeconds} s`,
  );
  line('server RSS idle (the project in place)', `${mb(idleKb)} MB`);
  line('server peak RSS, export and download', `${mb(exported.peakKb)} MB (+${mb(exported.peakKb - idleKb)} MB)`);
  line('server peak RSS, import', `${mb(imported.peakKb)} MB (+${mb(imported.peakKb - idleKb)} MB)`);
  line('server peak RSS above idle', `${mb(peakKb - idleKb)} MB`, `<= ${TARGETS.peakMb} MB`);
  line('server VmHWM (whole life, set-up included)', `${mb(hwmKb)} MB`);
  recordFigure('set-up import seconds', setUp.value / 1000);
  recordFigure('export seconds', exported.value.exportMs / 1000);
  recordFigure('download seconds', exported.value.downloadMs / 1000);
  recordFigure('import seconds', imported.value.importMs / 1000);
  recordFigure('server peak RSS above idle, MB', (peakKb - idleKb) / 1024);
  const met =
    exported.value.exportMs <= TARGETS.exportSeconds * 1000 &&
    imported.value.importMs <= TARGETS.importSeconds * 1000 &&
    (peakKb - idleKb) / 1024 <= TARGETS.peakMb;
  process.stdout.write(`\n${met ? 'every target met' : 'a target was missed'}\n`);
  // Stopped before returning, so that a PostgreSQL run after this one has the machine to itself.
  const exited = once(sb.process, 'exit');
  sb.process.kill('SIGTERM');
  await exited;
}
