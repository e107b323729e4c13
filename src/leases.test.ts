// Leases on background work by name: one holder at a time, taken over once expired, released.
// On SQLite and, under TEST_DATABASE_URL, on PostgreSQL (where withLease uses them).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../test/helpers.ts';
import { withLease } from './leases.ts';
import { forgetTurn, releaseLease, takeLease, takeTurn } from './leases.store.ts';
import { manualClock } from './time.ts';
import { onPostgres } from '../test/test-database.ts';

describe('leases', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());
  const at = (iso: string) => `2026-06-01T10:00:${iso}.000Z`;

  test('one holder at a time; renewed by its holder; taken over once expired; released', async () => {
    const db = t.ctx.db;
    assert.equal(await takeLease(db, 'package:1', 'node-a', at('00'), at('30')), true);
    assert.equal(await takeLease(db, 'package:1', 'node-b', at('10'), at('40')), false, 'held by a');
    assert.equal(await takeLease(db, 'package:1', 'node-a', at('20'), at('50')), true, 'renewed by a');
    assert.equal(await takeLease(db, 'package:1', 'node-b', at('45'), at('59')), false, 'the renewal holds');
    assert.equal(await takeLease(db, 'package:1', 'node-b', at('51'), at('59')), true, 'expired: b takes it');
    assert.equal(await takeLease(db, 'package:2', 'node-a', at('51'), at('59')), true, 'another name is free');
    await releaseLease(db, 'package:1', 'node-a');
    assert.equal(
      await takeLease(db, 'package:1', 'node-c', at('52'), at('59')),
      false,
      'a cannot release what b holds',
    );
    await releaseLease(db, 'package:1', 'node-b');
    assert.equal(await takeLease(db, 'package:1', 'node-c', at('52'), at('59')), true, 'released by b');
  });

  test('withLease: runs the work under the lease (PostgreSQL), or at once (SQLite: one process)', async () => {
    const clock = manualClock('2026-06-01T11:00:00.000Z');
    const deps = { db: t.ctx.db, clock, nodeId: 'node-a', leaseMs: 30_000 };
    const other = { ...deps, nodeId: 'node-b' };
    let inner: unknown;
    const outer = await withLease(deps, 'test_run:x', async () => {
      inner = await withLease(other, 'test_run:x', async () => 'ran twice');
      return 'ran';
    });
    assert.deepEqual(outer, { done: 'ran' });
    assert.deepEqual(inner, onPostgres ? undefined : { done: 'ran twice' });
    // Released at the end: the other node may take it now.
    assert.deepEqual(await withLease(other, 'test_run:x', async () => 'then b'), { done: 'then b' });
  });

  test('turns: one node at a time until the turn ends, whoever took the last; forgotten, free at once', async () => {
    const db = t.ctx.db;
    const turn = (node: string, now: string, until: string) => takeTurn(db, 'poll:1', node, at(now), at(until));
    assert.deepEqual(await turn('node-a', '00', '10'), { taken: true, endsAt: at('10') });
    if (!onPostgres) {
      // One process owns the database: every turn is its own.
      assert.deepEqual(await turn('node-a', '05', '15'), { taken: true, endsAt: at('15') });
      return;
    }
    assert.deepEqual(await turn('node-b', '05', '15'), { taken: false, endsAt: at('10') }, "a's turn runs");
    assert.deepEqual(await turn('node-a', '09', '19'), { taken: false, endsAt: at('10') }, 'a waits for it too');
    const together = await Promise.all([turn('node-a', '10', '20'), turn('node-b', '10', '20')]);
    assert.deepEqual(together.map((r) => r.taken).sort(), [false, true], 'one of two at the same time');
    await forgetTurn(db, 'poll:1');
    assert.deepEqual(await turn('node-c', '11', '21'), { taken: true, endsAt: at('21') }, 'free once forgotten');
  });
});
