// A deployment interrupted by SIGKILL ends `failed` after the restart, saying why, never stuck
// `pending` and never half-applied: its build or its import was cut, and neither is run again (it
// may be what killed the server). Deployed again, it succeeds, applied exactly once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import yazl from 'yazl';
import { tempDir } from './helpers.ts';
import { api, openServerDatabase, startServer } from './process-helpers.ts';

const TOKEN = 'wrkdev-restarttest0123456789abcdef0123456789abcde';
const ROWS = 40_000;

function zipOf(files: Record<string, string>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of Object.entries(files)) zip.addBuffer(Buffer.from(content), name);
  zip.end();
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    zip.outputStream.on('data', (p: Buffer) => parts.push(p));
    zip.outputStream.on('end', () => resolve(Buffer.concat(parts)));
  });
}

async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    assert.ok(Date.now() < deadline, what);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('a deployment killed in the middle ends failed after the restart, nothing of it applied; deployed again, it succeeds, applied exactly once', async () => {
  const dataDir = tempDir('sb-deploy-restart-');
  const env = { SWITCHBOARD_ADMIN_TOKEN: TOKEN };
  const first = await startServer(dataDir, env);
  const folder = await api(first.baseUrl, 'POST', '/api/folders', TOKEN, { name: 'Rates' });
  const data = Array.from({ length: ROWS }, (_, i) => ({ col1: `k${i}`, col2: `value ${i}` }));
  const code = {
    number: 0,
    keyword: 'trigger',
    provider: 'workato_webhooks',
    name: 'new_event',
    as: 'hook',
    input: {},
    block: [],
  };
  const zip = await zipOf({
    'fx_rates.lookup_table.json': JSON.stringify({
      name: 'FX rates',
      schema: [{ label: 'pair' }, { label: 'rate' }],
      data,
    }),
    'quote.recipe.json': JSON.stringify({ name: 'Quote', code }),
  });
  const imported = await fetch(`${first.baseUrl}/api/packages/import/${folder.body.id}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/zip' },
    body: zip,
  });
  const pkg = (await imported.json()) as { id: number };
  await until('the dev import finishes', async () => {
    const res = await api(first.baseUrl, 'GET', `/api/packages/${pkg.id}`, TOKEN);
    return res.body.status === 'completed' ? true : undefined;
  });

  const started = await api(
    first.baseUrl,
    'POST',
    `/api/projects/${folder.body.project_id}/deploy?environment_type=test`,
    TOKEN,
    { include_data: true },
  );
  assert.equal(started.status, 200);
  assert.equal(started.body.state, 'pending');
  first.child.kill('SIGKILL');
  await first.exited;

  const second = await startServer(dataDir, env);
  const done = await until('the deployment ends', async () => {
    const res = await api(second.baseUrl, 'GET', `/api/deployments/${started.body.id}`, TOKEN);
    return res.body.state === 'pending' ? undefined : res.body;
  });
  assert.equal(done.state, 'failed', JSON.stringify(done));
  assert.match(
    JSON.stringify(done),
    /The (import|export) was interrupted: the server stopped while it ran \(a crash or a kill\)/,
  );
  const redeployed = await api(
    second.baseUrl,
    'POST',
    `/api/projects/${folder.body.project_id}/deploy?environment_type=test`,
    TOKEN,
    { include_data: true },
  );
  assert.equal(redeployed.status, 200);
  const success = await until('the second deployment ends', async () => {
    const res = await api(second.baseUrl, 'GET', `/api/deployments/${redeployed.body.id}`, TOKEN);
    return res.body.state === 'pending' ? undefined : res.body;
  });
  assert.equal(success.state, 'success', JSON.stringify(success));
  // The target holds the table once, with every row once.
  second.child.kill('SIGTERM');
  await second.exited;
  const db = await openServerDatabase(dataDir);
  try {
    const tables = (await db.all(
      "SELECT t.id, t.row_count, e.type FROM lookup_tables t JOIN environments e ON e.id = t.environment_id WHERE t.name = 'FX rates' ORDER BY e.type",
    )) as Array<{ id: number; row_count: number; type: string }>;
    assert.deepEqual(
      tables.map((t) => t.type),
      ['dev', 'test'],
    );
    const inTest = tables.find((t) => t.type === 'test')!;
    assert.equal(inTest.row_count, ROWS);
    assert.equal(
      ((await db.get('SELECT count(*) AS n FROM lookup_table_rows WHERE table_id = ?', inTest.id)) as { n: number }).n,
      ROWS,
    );
    // The build or the import under way when the server died was not run again.
    const cut = (await db.all(
      "SELECT p.attempts, p.status FROM packages p WHERE p.status = 'failed' AND p.error LIKE '%was interrupted%'",
    )) as Array<{ attempts: number; status: string }>;
    assert.equal(cut.filter((p) => p.attempts === 2).length, 1, JSON.stringify(cut));
    assert.equal(
      (
        (await db.get(
          "SELECT count(*) AS n FROM recipes r JOIN environments e ON e.id = r.environment_id WHERE r.name = 'Quote' AND e.type = 'test'",
        )) as { n: number }
      ).n,
      1,
    );
  } finally {
    await db.close();
  }
});
