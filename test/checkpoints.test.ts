// Background checkpoints (src/db/checkpoints.ts): the write-ahead log of a file database is
// copied into the database file by the worker thread, not by the commits of the server.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { tempDir } from './helpers.ts';
import { sql } from 'kysely';
import { openSqlite } from '../src/db/index.ts';

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

  it('leave in-memory databases alone', async () => {
    const db = openSqlite(':memory:');
    const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db);
    assert.equal(rows[0]?.wal_autocheckpoint, 1000);
    await db.destroy();
  });
});
