// The Python sandbox's pool: several recipes taking turns each keep an interpreter of their own
// (what one left in a module is there at its next step), within the bound on loaded interpreters,
// and interpreters left idle are ended down to the workers and the spare.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { createPySandbox, installedPythonSnapshotFile } from './py-sandbox.ts';

// A module attribute outlives a step in its worker (the bootstrap restores builtins and modules'
// presence, not their attributes): it counts the steps this interpreter ran.
const COUNT =
  "import json\ndef main(input):\n    json.steps_here = getattr(json, 'steps_here', 0) + 1\n    return {'n': json.steps_here}";
const limits = { timeoutMs: 20_000, memoryBytes: 64 * 1024 * 1024 };
const sandboxes: Array<{ close(): Promise<void> }> = [];
after(() => Promise.all(sandboxes.map((s) => s.close())));

function pool(interpreters: number, idleMs?: number, workers = 1) {
  const sandbox = createPySandbox({
    workers,
    snapshotFiles: [installedPythonSnapshotFile()],
    interpreters,
    extraIdleMs: idleMs,
  });
  sandboxes.push(sandbox);
  return sandbox;
}

async function countIn(sandbox: ReturnType<typeof pool>, tenant: string): Promise<number> {
  const result = await sandbox.run(COUNT, {}, limits, tenant);
  assert.ok(result.ok, JSON.stringify(result));
  return (result.output as { n: number }).n;
}

describe('the Python sandbox pool', () => {
  test('three recipes taking turns on one worker each keep their interpreter; a fourth past the bound ends the one idle the longest', async () => {
    const sandbox = pool(3);
    const tenants = ['a', 'b', 'c'];
    for (const tenant of tenants) assert.equal(await countIn(sandbox, tenant), 1);
    for (const tenant of tenants) assert.equal(await countIn(sandbox, tenant), 2, `${tenant} kept its interpreter`);
    assert.ok(sandbox.interpreters() <= 3);
    // d needs an interpreter: a, idle the longest, gives its place; the others keep theirs.
    assert.equal(await countIn(sandbox, 'd'), 1);
    assert.equal(await countIn(sandbox, 'c'), 3);
    assert.equal(await countIn(sandbox, 'a'), 1, 'a starts afresh');
    assert.ok(sandbox.interpreters() <= 3);
  });

  test('the bound holds below the workers and the spare: with one interpreter (PYTHON_INTERPRETERS=1) two recipes take turns on it', async () => {
    const sandbox = pool(1, undefined, 2);
    assert.equal(await countIn(sandbox, 'a'), 1);
    assert.equal(sandbox.interpreters(), 1, 'no spare is loaded past the bound');
    const [b, c] = await Promise.all([countIn(sandbox, 'b'), countIn(sandbox, 'c')]);
    assert.deepEqual([b, c], [1, 1], 'each started on a fresh interpreter, one after the other');
    assert.equal(sandbox.interpreters(), 1);
    assert.equal(await countIn(sandbox, 'a'), 1, 'a gave its interpreter up');
  });

  test('interpreters idle past idleMs are ended down to the workers and the spare', async () => {
    const sandbox = pool(4, 200);
    for (const tenant of ['a', 'b', 'c']) await countIn(sandbox, tenant);
    const deadline = Date.now() + 30_000;
    while (sandbox.interpreters() > 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(sandbox.interpreters(), 2);
    // A recipe whose interpreter was ended starts afresh, and runs.
    assert.equal(await countIn(sandbox, 'a'), 1);
  });
});
