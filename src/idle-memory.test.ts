import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { GROWTH_BYTES, MIN_INTERVAL_MS, REST_UTILIZATION, shouldCollect, idleMemory } from './idle-memory.ts';

const MB = 1024 * 1024;

describe('collecting memory at rest', () => {
  it('collects at the first quiet second after start, never while the loop is busy', () => {
    const fresh = { heapAfterLast: undefined, lastAt: -Infinity };
    assert.equal(shouldCollect(fresh, { utilization: 0.01, heapBytes: 100 * MB, now: 1000 }), true);
    assert.equal(shouldCollect(fresh, { utilization: REST_UTILIZATION, heapBytes: 100 * MB, now: 1000 }), false);
    assert.equal(shouldCollect(fresh, { utilization: 0.9, heapBytes: 100 * MB, now: 1000 }), false);
  });

  it('collects again only when the heap grew and a minute passed since the last collection', () => {
    const state = { heapAfterLast: 40 * MB, lastAt: 10_000 };
    const grown = 40 * MB + GROWTH_BYTES;
    assert.equal(shouldCollect(state, { utilization: 0, heapBytes: grown, now: 10_000 + MIN_INTERVAL_MS }), true);
    assert.equal(shouldCollect(state, { utilization: 0, heapBytes: grown, now: 10_000 + MIN_INTERVAL_MS - 1 }), false);
    assert.equal(
      shouldCollect(state, { utilization: 0, heapBytes: grown - 1, now: 10_000 + 10 * MIN_INTERVAL_MS }),
      false,
    );
    assert.equal(shouldCollect(state, { utilization: 0.5, heapBytes: grown, now: 10_000 + MIN_INTERVAL_MS }), false);
  });

  it('gives the young generation back at rest and exposes gc to no context', async () => {
    // Garbage that survives into a grown young generation, as start-up leaves it.
    const made: unknown[][] = [[]];
    for (let i = 0; i < 200_000; i++) made[0]!.push({ i, s: `item ${i}` });
    made.pop();
    const newSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_size;
    const before = newSpace();
    const idle = idleMemory({ intervalMs: 20 });
    idle.start();
    try {
      const deadline = Date.now() + 30_000;
      while (newSpace() >= before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.ok(newSpace() < before, `new space ${newSpace()} bytes, was ${before}`);
    } finally {
      idle.stop();
    }
    assert.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined');
    assert.equal(vm.runInNewContext('typeof gc'), 'undefined');
  });
});
