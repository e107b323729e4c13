// Background checkpoints (src/db/checkpoints.ts): the write-ahead log of a file database is
// copied into the database file by the worker thread, not by the commits of the server.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { tempDir } from './helpers.ts';
import { sql } from 'kysely';
import { openSqlite, openSqliteFile } from '../src/db/index.ts';

describe('background WAL checkpoints', () => {
  it('move committed pages into the database file without a checkpoint on the writing connection', async () => {
    const dir = tempDir('sb-ckpt-');
    const file = path.join(dir, 'db.sqlite');
    const db = openSqlite(file);
    try {
      await sql`create table blobs (id integer primary key, body text not null)`.execute(db);
      const body = 'x'.repeat(4000);
      // About 6 MB of log (about 1,500 pages): below the writing connection's own threshold (2,000 pages).
      for (let batch = 0; batch < 15; batch++) {
        await db.transaction().execute(async (trx) => {
          for (let i = 0; i < 100; i++) await sql`insert into blobs (body) values (${body})`.execute(trx);
        });
      }
      const deadline = Date.now() + 10_000;
      while (fs.statSync(file).size < 6_000_000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      assert.ok(
        fs.statSync(file).size >= 6_000_000,
        `the database file holds the pages (size ${fs.statSync(file).size})`,
      );
      // The data is whole, read through another connection.
      const reader = new DatabaseSync(file, { readOnly: true });
      assert.deepEqual(
        { ...(reader.prepare('select count(*) as n, sum(length(body)) as bytes from blobs').get() as object) },
        { n: 1500, bytes: 6_000_000 },
      );
      reader.close();
    } finally {
      await db.destroy();
    }
  });

  it('run no worker thread while nothing is written, start one when writes grow the log, and stop it when they stop', async () => {
    const dir = tempDir('sb-ckpt-idle-');
    const file = path.join(dir, 'db.sqlite');
    // The server's settings but a short quiet time before the worker stops.
    const { db, checkpoints } = openSqliteFile(file, 'FULL', { checkpoints: { idleMs: 300 } });
    assert.ok(checkpoints, 'a file database has background checkpoints');
    const waitFor = async (what: string, done: () => boolean) => {
      const deadline = Date.now() + 20_000;
      while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.ok(done(), what);
    };
    try {
      await sql`create table blobs (id integer primary key, body text not null)`.execute(db);
      await sql`insert into blobs (body) values ('small')`.execute(db);
      await sql`select count(*) from blobs`.execute(db);
      assert.equal(checkpoints.running, false, 'a few small writes start no worker');
      // About 2 MB of log in one commit: past the threshold, far below the server's own checkpoint (2,000 pages).
      const body = 'x'.repeat(4000);
      // One commit, so the look at the log after it is the only one (no quiet time between commits).
      await db.transaction().execute(async (trx) => {
        for (let i = 0; i < 500; i++) await sql`insert into blobs (body) values (${body})`.execute(trx);
      });
      assert.equal(checkpoints.running, true, 'the writes started the worker');
      await waitFor('the worker copied the pages into the database file', () => fs.statSync(file).size >= 2_000_000);
      await waitFor('the worker stopped once the writes stopped', () => !checkpoints.running);
      // Its last checkpoint cut the log file back to empty.
      await waitFor(
        'the log file was cut back',
        () => !fs.existsSync(`${file}-wal`) || fs.statSync(`${file}-wal`).size === 0,
      );
      // Writes again: a new worker, and the pages reach the database file again.
      // One commit, so the look at the log after it is the only one (no quiet time between commits).
      await db.transaction().execute(async (trx) => {
        for (let i = 0; i < 500; i++) await sql`insert into blobs (body) values (${body})`.execute(trx);
      });
      assert.equal(checkpoints.running, true, 'writes after a stop start a worker again');
      await waitFor('the new worker copied the pages', () => fs.statSync(file).size >= 4_000_000);
      const reader = new DatabaseSync(file, { readOnly: true });
      assert.deepEqual({ ...(reader.prepare('select count(*) as n from blobs').get() as object) }, { n: 1001 });
      reader.close();
    } finally {
      await db.destroy();
      // The last worker checkpoints and closes after the stop: its files stay open until it exits.
      await checkpoints.exited();
    }
  });

  it('leave in-memory databases alone', async () => {
    const db = openSqlite(':memory:');
    const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db);
    assert.equal(rows[0]?.wal_autocheckpoint, 1000);
    await db.destroy();
  });
});
