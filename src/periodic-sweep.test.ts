// Periodic sweeps on several nodes sharing one database: each interval's run is a turn, so one
// node sweeps per interval, not every node at once. On SQLite one process owns the database: its
// sweep runs every interval.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../test/helpers.ts';
import { onPostgres } from '../test/test-database.ts';
import { createPeriodicSweep, type PeriodicSweep } from './periodic-sweep.ts';

const INTERVAL_MS = 500;

describe('periodic sweeps on several nodes', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('each interval, one node of those sharing the database sweeps', async () => {
    const runs: Array<{ node: string; at: number }> = [];
    const sweeps: PeriodicSweep[] = ['node-a', 'node-b', 'node-c'].map((nodeId) =>
      createPeriodicSweep({
        name: 'test sweep',
        intervalMs: INTERVAL_MS,
        log: t.ctx.log,
        run: async () => {
          runs.push({ node: nodeId, at: Date.now() });
          return 0;
        },
        turns: { db: t.ctx.db, nodeId },
      }),
    );
    for (const sweep of sweeps) sweep.start();
    try {
      const deadline = Date.now() + 30_000;
      while (runs.length < 8) {
        assert.ok(Date.now() < deadline, `eight runs within 30 s (${runs.length})`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await Promise.all(sweeps.map((sweep) => sweep.stop()));
    }
    const spanMs = runs[7]!.at - runs[0]!.at;
    if (onPostgres) {
      // Turns start at least an interval apart (a run begins some time after its turn, up to
      // `late` on a loaded machine); three nodes sweeping each on its own would make about three
      // times as many runs.
      const late = 1000;
      assert.ok(spanMs + late >= 7 * INTERVAL_MS, `8 runs within ${spanMs} ms: more than one per interval`);
    } else {
      // One process: its three sweepers each run every interval.
      assert.equal(new Set(runs.map((run) => run.node)).size, 3);
    }
  });
});
