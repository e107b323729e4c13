// Packages in progress when the server dies: a real server process gets SIGKILL once it began an
// import it acknowledged (then an export), and is started again on the same data directory. The
// package is never stuck in_progress nor run again (it may be what killed the server): it ends
// failed, saying so, with nothing of it applied; asked for again, it completes, its data there
// exactly once.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { test } from 'node:test';
import { readZip } from '../src/api/packages/zip.ts';
import { makeZip, tempDir } from './helpers.ts';
import { asAdmin, openServerDatabase } from './process-helpers.ts';

const ROWS = 50_000;
const RECIPES = 20;
const LIMITS = { maxEntries: 1000, maxEntryBytes: 64 * 1024 * 1024, maxTotalBytes: 256 * 1024 * 1024 };
const TOKEN = 'wrkdev-packagerestart0123456789abcdef0123456789';
const admin = asAdmin(TOKEN);

function packageFiles(): Record<string, string> {
  const rows = Array.from({ length: ROWS }, (_, i) =>
    JSON.stringify({ col1: `SKU-${String(i).padStart(6, '0')}`, col2: `Item ${i}`, col3: String(i % 97) }),
  );
  const files: Record<string, string> = {
    'prices.lookup_table.json': `{"name":"Prices","schema":[{"label":"sku","name":"col1"},{"label":"title","name":"col2"},{"label":"price","name":"col3"}],"data":[\n${rows.join(',\n')}\n]}`,
  };
  for (let i = 1; i <= RECIPES; i += 1) {
    const code = {
      number: 0,
      keyword: 'trigger',
      provider: 'workato_webhooks',
      name: 'new_event',
      as: 'hook',
      input: { webhook_suffix: `r${i}` },
      block: [
        {
          number: 1,
          keyword: 'action',
          provider: 'logger',
          name: 'log_message',
          as: 'log',
          input: { message: `recipe ${i}` },
        },
      ],
    };
    files[`Flows/price_sync_${i}.recipe.json`] = JSON.stringify({
      name: `Price sync ${i}`,
      description: '',
      version: 1,
      private: false,
      concurrency: 1,
      code,
      config: [{ keyword: 'application', provider: 'workato_webhooks', skip_validation: false, account_id: null }],
    });
  }
  return files;
}

/** The package's status as the killed server left it on disk. */
async function statusOnDisk(dataDir: string, id: number): Promise<string> {
  const db = await openServerDatabase(dataDir);
  try {
    return ((await db.get('select status from packages where id = ?', id)) as { status: string }).status;
  } finally {
    await db.close();
  }
}

/**
 * SIGKILL once the server has begun the package (its attempt is counted on disk): a package the
 * server never began is run after the restart, as it should be, since it cannot have stopped it.
 */
async function killOnceBegun(
  server: { child: ChildProcess; exited: Promise<unknown> },
  dataDir: string,
  id: number,
): Promise<void> {
  const db = await openServerDatabase(dataDir);
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const row = (await db.get('select attempts from packages where id = ?', id)) as { attempts: number } | undefined;
      if ((row?.attempts ?? 0) > 0) break;
      assert.ok(Date.now() < deadline, `package ${id} was not begun`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    server.child.kill('SIGKILL');
    await server.exited;
  } finally {
    await db.close();
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function settled(base: string, id: number): Promise<Record<string, any>> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await admin.api(base, 'GET', `/api/packages/${id}`);
    assert.equal(res.status, 200);
    if (res.body.status !== 'in_progress') return res.body;
    assert.ok(Date.now() < deadline, `package ${id} is still in_progress after the restart`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const INTERRUPTED =
  /^The (import|export) was interrupted: the server stopped while it ran \(a crash or a kill\)\. It is not run again, in case it is what stopped the server; nothing of it was applied\. Start it again to retry$/;

async function importZip(base: string, folderId: number, zip: Buffer): Promise<{ id: number; status: string }> {
  const posted = await fetch(`${base}/api/packages/import/${folderId}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/zip' },
    body: zip,
  });
  assert.equal(posted.status, 200);
  return (await posted.json()) as { id: number; status: string };
}

test('an import and an export cut by SIGKILL are failed after the restart, not run again; asked again, they complete, their data there exactly once', async () => {
  const dataDir = tempDir('sb-packages-restart-');
  let server = await admin.startServer(dataDir);
  const folder = await admin.api(server.base, 'POST', '/api/folders', { name: 'Pricing' });
  assert.equal(folder.status, 200);
  const zip = await makeZip(packageFiles());

  // The import: acknowledged, then the server dies before it could have written 50,000 rows.
  const accepted = await importZip(server.base, folder.body.id, zip);
  await killOnceBegun(server, dataDir, accepted.id);
  assert.equal(accepted.status, 'in_progress');
  assert.equal(await statusOnDisk(dataDir, accepted.id), 'in_progress', 'the import was cut while in progress');

  server = await admin.startServer(dataDir);
  const cut = await settled(server.base, accepted.id);
  assert.equal(cut.status, 'failed', JSON.stringify(cut));
  assert.match(cut.error, INTERRUPTED);
  assert.deepEqual(
    (await admin.api(server.base, 'GET', '/api/recipes?per_page=100')).body.items,
    [],
    'nothing applied',
  );
  assert.deepEqual((await admin.api(server.base, 'GET', '/api/lookup_tables')).body, []);

  const again = await importZip(server.base, folder.body.id, zip);
  const imported = await settled(server.base, again.id);
  assert.equal(imported.status, 'completed', JSON.stringify(imported));
  assert.equal(imported.recipe_status.length, RECIPES);

  const nested = await admin.api(server.base, 'GET', '/api/recipes?per_page=100');
  const names = (nested.body.items as Array<{ name: string }>)
    .map((r) => r.name)
    .filter((n) => n.startsWith('Price sync '))
    .sort();
  assert.deepEqual(names, Array.from({ length: RECIPES }, (_, i) => `Price sync ${i + 1}`).sort(), 'each recipe once');

  const tables = await admin.api(server.base, 'GET', '/api/lookup_tables');
  const prices = (tables.body as Array<{ id: number; name: string }>).filter((t) => t.name === 'Prices');
  assert.equal(prices.length, 1, 'one table');
  const skus = new Set<string>();
  let count = 0;
  for (let page = 1; ; page += 1) {
    const rows = await admin.api(
      server.base,
      'GET',
      `/api/lookup_tables/${prices[0]!.id}/rows?per_page=1000&page=${page}`,
    );
    assert.equal(rows.status, 200);
    for (const row of rows.body as Array<{ data: Record<string, string> }>) {
      count += 1;
      skus.add(row.data.sku!);
    }
    if ((rows.body as unknown[]).length < 1000) break;
  }
  assert.equal(count, ROWS, 'every row exactly once');
  assert.equal(skus.size, ROWS);

  // The export: acknowledged, then the server dies while the zip is being written.
  const manifest = await admin.api(server.base, 'POST', '/api/export_manifests', {
    export_manifest: { name: 'pricing', folder_id: folder.body.id, auto_generate_assets: true, include_data: true },
  });
  assert.equal(manifest.status, 201);
  const exportStarted = await admin.api(server.base, 'POST', `/api/packages/export/${manifest.body.result.id}`);
  assert.equal(exportStarted.status, 200);
  await killOnceBegun(server, dataDir, exportStarted.body.id);
  assert.equal(
    await statusOnDisk(dataDir, exportStarted.body.id),
    'in_progress',
    'the export was cut while in progress',
  );

  server = await admin.startServer(dataDir);
  const cutExport = await settled(server.base, exportStarted.body.id);
  assert.equal(cutExport.status, 'failed', JSON.stringify(cutExport));
  assert.match(cutExport.error, INTERRUPTED);
  const exportAgain = await admin.api(server.base, 'POST', `/api/packages/export/${manifest.body.result.id}`);
  assert.equal(exportAgain.status, 200);
  const exported = await settled(server.base, exportAgain.body.id);
  assert.equal(exported.status, 'completed', JSON.stringify(exported));
  const download = await fetch(`${server.base}/api/packages/${exportAgain.body.id}/download`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  assert.equal(download.status, 200);
  const files = await readZip(Buffer.from(await download.arrayBuffer()), LIMITS);
  const recipeFiles = [...files.keys()].filter((name) => name.endsWith('.recipe.json'));
  assert.equal(recipeFiles.length, RECIPES, [...files.keys()].join(', '));
  const table = JSON.parse(files.get('prices.lookup_table.json')!.toString('utf8')) as {
    name: string;
    data: Array<{ col1: string }>;
  };
  assert.equal(table.name, 'Prices');
  assert.equal(table.data.length, ROWS);
  assert.equal(new Set(table.data.map((r) => r.col1)).size, ROWS);
  server.child.kill('SIGTERM');
  await server.exited;
});
