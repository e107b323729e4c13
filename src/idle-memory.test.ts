import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import {
  GROWTH_BYTES,
  MIN_INTERVAL_MS,
  REST_BEFORE_MS,
  REST_UTILIZATION,
  shouldCollect,
  idleMemory,
} from './idle-memory.ts';

const MB = 1024 * 1024;

describe('collecting memory at rest', () => {
  it('collects first once the server has been at rest for 30 s after start, never while the loop is busy', () => {
    const fresh = { heapAfterLast: undefined, lastAt: -Infinity };
    const at = (utilization: number, now: number) => shouldCollect(fresh, { utilization, heapBytes: 100 * MB, now });
    let now = 0;
    // Start-up: busy; then at rest, with one second busy with a burst of polls.
    for (let i = 0; i < 5; i++) assert.equal(at(0.9, (now += 1000)), false);
    const answers = Array.from({ length: 40 }, (_, i) => at(i === 10 ? 0.5 : 0.01, (now += 1000)));
    assert.equal(answers.indexOf(true), REST_BEFORE_MS / 1000, 'the first second with 30 s of rest behind it');
    assert.equal(at(REST_UTILIZATION, (now += 1000)), false, 'never in a busy second');
  });

  it('collects again only when the heap grew, a minute passed and the server rested 30 s', () => {
    const grown = 40 * MB + GROWTH_BYTES;
    const rested = () => ({
      heapAfterLast: 40 * MB,
      lastAt: 10_000,
      recent: Array.from({ length: 30 }, (_, i) => ({ now: 40_000 + i * 1000, utilization: 0 })),
    });
    const due = 10_000 + MIN_INTERVAL_MS;
    assert.equal(shouldCollect(rested(), { utilization: 0, heapBytes: grown, now: due }), true);
    assert.equal(shouldCollect(rested(), { utilization: 0, heapBytes: grown, now: due - 1 }), false);
    assert.equal(shouldCollect(rested(), { utilization: 0, heapBytes: grown - 1, now: due }), false);
    assert.equal(shouldCollect(rested(), { utilization: 0.5, heapBytes: grown, now: due }), false);
  });

  it('after a busy period, waits for 30 s of rest: a pause between bursts does not shrink the heap', () => {
    const state: Parameters<typeof shouldCollect>[0] = { heapAfterLast: 40 * MB, lastAt: 0 };
    const heapBytes = 40 * MB + GROWTH_BYTES;
    let now = 2 * MIN_INTERVAL_MS;
    const second = (utilization: number) => shouldCollect(state, { utilization, heapBytes, now: (now += 1000) });
    // Bursts of 10 s with pauses of 10 s: never.
    for (let burst = 0; burst < 6; burst++) {
      for (let i = 0; i < 10; i++) assert.equal(second(0.01), false);
      for (let i = 0; i < 10; i++) assert.equal(second(0.8), false);
    }
    // Then rest: the collection comes once the last 30 s were at rest, not before.
    const answers = Array.from({ length: 40 }, () => second(0.01));
    const first = answers.indexOf(true);
    assert.ok(first >= 28 && first <= 30, `collected at the ${first + 1}th second at rest`);
  });

  it('gives the young generation back at rest and exposes gc to no context', async () => {
    // Garbage that survives into a grown young generation, as start-up leaves it.
    const made: unknown[][] = [[]];
    for (let i = 0; i < 200_000; i++) made[0]!.push({ i, s: `item ${i}` });
    made.pop();
    const newSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_size;
    const before = newSpace();
    const idle = idleMemory({ intervalMs: 20, restBeforeMs: 100 });
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
