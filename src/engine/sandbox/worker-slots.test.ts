// Worker pools release workers left idle (SANDBOX_IDLE_MS) and start one again at the next step.
import assert from 'node:assert/strict';
import type { Worker } from 'node:worker_threads';
import { describe, test } from 'node:test';
import { createWorkerSlots } from './worker-slots.ts';
import { createJsSandbox } from './js-sandbox.ts';

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function fakePool(idleMs: number) {
  const terminated: number[] = [];
  let started = 0;
  const slots = createWorkerSlots(
    2,
    () => {
      const id = ++started;
      return { busy: false, id, worker: { terminate: async () => void terminated.push(id) } as unknown as Worker };
    },
    { idleMs },
  );
  return { slots, terminated, started: () => started };
}

describe('worker pools: idle workers released', () => {
  test('a worker idle for idleMs is terminated; a busy one never; the next step starts a new one', async () => {
    const { slots, terminated, started } = fakePool(20);
    const a = await slots.acquire();
    const b = await slots.acquire();
    slots.release(a);
    await until(() => terminated.length === 1, 'the idle worker to be released');
    assert.deepEqual(terminated, [1]);
    assert.equal(slots.all.length, 1);
    assert.equal(slots.all[0], b, 'the busy worker stays');
    const c = await slots.acquire();
    assert.equal(started(), 3, 'a new worker for the next step');
    slots.release(b);
    slots.release(c);
    await until(() => slots.all.length === 0, 'every idle worker to be released');
    assert.deepEqual(terminated.sort(), [1, 2, 3]);
  });

  test('a worker taken again before idleMs stays; idleMs 0 keeps workers', async () => {
    const kept = fakePool(0);
    kept.slots.release(await kept.slots.acquire());
    const again = fakePool(60_000);
    const slot = await again.slots.acquire();
    again.slots.release(slot);
    assert.equal(await again.slots.acquire(), slot, 'the idle worker is reused');
    again.slots.release(slot);
    again.slots.clear();
    assert.equal(kept.slots.all.length, 1);
    assert.deepEqual(kept.terminated, []);
  });

  test('JavaScript sandbox: the worker goes after its idle time and the next step runs on a new one', async () => {
    const sandbox = createJsSandbox({ workers: 1, idleMs: 50 });
    const limits = { timeoutMs: 20_000, memoryBytes: 32 * 1024 * 1024 };
    try {
      assert.deepEqual(await sandbox.run('exports.main = ({ n }) => ({ n: n + 1 });', { n: 1 }, limits), {
        ok: true,
        output: { n: 2 },
      });
      assert.equal(sandbox.workers(), 1);
      await until(() => sandbox.workers() === 0, 'the JavaScript worker to be released');
      assert.deepEqual(await sandbox.run('exports.main = ({ n }) => ({ n: n * 3 });', { n: 2 }, limits), {
        ok: true,
        output: { n: 6 },
      });
    } finally {
      await sandbox.close();
    }
  });
});
