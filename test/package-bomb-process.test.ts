// A zip bomb sent to a real server process: 8 entries of 63 MiB of `{},{},…` each, deflated to
// about 2 MB (the declared sizes pass the limits; the parsed objects would take gigabytes). The
// server, given a heap of 384 MB, reads it in its package reader's thread, one file at a time,
// and counts the objects on each file's text before parsing it: the package fails naming every
// file, /health answers meanwhile, the process's memory stays bounded, and it keeps serving.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import yazl from 'yazl';
import { tempDir } from './helpers.ts';
import { startServer } from './process-helpers.ts';

const TOKEN = `wrkdev-bomb${'0'.repeat(53)}`;

/** 8 entries of 63 MiB of `{},{},…` (valid JSON), deflated at the fastest level. */
function bomb(): Promise<Buffer> {
  const text = Buffer.concat([
    Buffer.from('{"name":"Bomb","code":{},"pad":['),
    Buffer.alloc(21 * 1024 * 1024 * 3, '{},'),
    Buffer.from('{}]}'),
  ]);
  const zip = new yazl.ZipFile();
  for (let i = 0; i < 8; i += 1) zip.addBuffer(text, `bomb_${i}.recipe.json`, { compressionLevel: 1 });
  zip.end();
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    zip.outputStream.on('data', (p: Buffer) => parts.push(p));
    zip.outputStream.on('end', () => resolve(Buffer.concat(parts)));
    zip.outputStream.on('error', reject);
  });
}

/** The peak resident memory of a process so far (VmHWM), in MiB. */
function peakMiB(pid: number): number {
  const line = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(line?.[1] ?? 0) / 1024;
}

async function call(base: string, method: string, path: string, body?: string | Buffer, type = 'application/json') {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body !== undefined ? { 'content-type': type } : {}) },
    ...(body !== undefined ? { body } : {}),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

test('a zip bomb fails its package naming the file; the server answers meanwhile, stays within its memory, and goes on', async (t) => {
  const zip = await bomb();
  assert.ok(zip.length < 5 * 1024 * 1024, `${zip.length} bytes`);
  const server = await startServer(tempDir('sb-bomb-'), {
    SWITCHBOARD_ADMIN_TOKEN: TOKEN,
    NODE_OPTIONS: '--max-old-space-size=384',
  });
  try {
    const pid = server.child.pid as number;
    const folder = await call(server.baseUrl, 'POST', '/api/folders', JSON.stringify({ name: 'Target' }));
    assert.equal(folder.status, 200);
    const posted = await call(server.baseUrl, 'POST', `/api/packages/import/${folder.body.id}`, zip, 'application/zip');
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    assert.equal(posted.body.status, 'in_progress');

    const took: number[] = [];
    let pkg = posted.body;
    const deadline = Date.now() + 300_000;
    while (pkg.status === 'in_progress') {
      assert.ok(Date.now() < deadline, 'the import ends');
      const started = performance.now();
      const health = await fetch(`${server.baseUrl}/health`, { signal: AbortSignal.timeout(20_000) });
      took.push(performance.now() - started);
      assert.equal(health.status, 200);
      await health.text();
      pkg = (await call(server.baseUrl, 'GET', `/api/packages/${posted.body.id}`)).body;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(pkg.status, 'failed', JSON.stringify(pkg));
    assert.equal(pkg.error, '8 file(s) of the package are not valid; nothing was imported');
    assert.deepEqual(
      pkg.error_parts,
      Array.from(
        { length: 8 },
        (_, i) => `bomb_${i}.recipe.json: holds 22020100 objects and lists; at most 3000000 are accepted in a file`,
      ),
    );
    took.sort((a, b) => a - b);
    const shown = took.map((ms) => ms.toFixed(0)).join(', ');
    t.diagnostic(`/health while the import ran: ${shown} ms; the server's peak memory ${peakMiB(pid).toFixed(0)} MiB`);
    assert.ok(took.length >= 3, `/health was asked while the import ran (${shown})`);
    assert.ok((took[Math.floor(took.length / 2)] as number) < 100, `/health took ${shown} ms`);
    assert.ok((took.at(-1) as number) < 2000, `/health took ${shown} ms`);
    assert.ok(peakMiB(pid) < 1536, `the server's memory peaked at ${peakMiB(pid).toFixed(0)} MiB`);

    // Nothing was imported, and the server goes on: a good package imports.
    const recipes = await call(server.baseUrl, 'GET', '/api/recipes');
    assert.deepEqual(recipes.body.items, []);
    const fine = new yazl.ZipFile();
    fine.addBuffer(
      Buffer.from(JSON.stringify({ name: 'Fine', code: { keyword: 'trigger', block: [] } })),
      'fine.recipe.json',
    );
    fine.end();
    const parts: Buffer[] = [];
    for await (const part of fine.outputStream) parts.push(part as Buffer);
    const good = await call(
      server.baseUrl,
      'POST',
      `/api/packages/import/${folder.body.id}`,
      Buffer.concat(parts),
      'application/zip',
    );
    assert.equal(good.status, 200);
    for (let i = 0; ; i += 1) {
      const res = await call(server.baseUrl, 'GET', `/api/packages/${good.body.id}`);
      if (res.body.status !== 'in_progress') {
        assert.equal(res.body.status, 'completed', JSON.stringify(res.body));
        break;
      }
      assert.ok(i < 600, 'the second import ends');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(server.child.exitCode, null, 'the server is still running');
  } finally {
    server.child.kill('SIGTERM');
    const timer = setTimeout(() => server.child.kill('SIGKILL'), 20_000);
    await server.exited;
    clearTimeout(timer);
  }
});
