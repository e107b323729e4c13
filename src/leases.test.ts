// Leases on background work by name: one holder at a time, taken over once expired, released.
// On SQLite and, under TEST_DATABASE_URL, on PostgreSQL (where withLease uses them).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../test/helpers.ts';
import { withLease } from './leases.ts';
import { releaseLease, takeLease } from './leases.store.ts';
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
});
