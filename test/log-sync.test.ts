// Durable replies (src/db/log-sync.ts, src/http/durable-replies.ts): commits are synced off the
// event loop, and no reply leaves before the commits made so far are on disk.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { sql } from 'kysely';
import { openSqliteFile } from '../src/db/index.ts';
import { createLogSync, type SyncFile } from '../src/db/log-sync.ts';
import { createTestApp, tempDir } from './helpers.ts';

/** A sync that the test lets through (or fails) when it chooses; `open` lets every sync through at once. */
function gatedSync() {
  const held: Array<(error: NodeJS.ErrnoException | null) => void> = [];
  let requested = 0;
  const gate = {
    open: true,
    failWith: undefined as NodeJS.ErrnoException | undefined,
    get requested() {
      return requested;
    },
    get held() {
      return held.length;
    },
    syncFile: ((fd, callback) => {
      requested += 1;
      const finish = (error: NodeJS.ErrnoException | null) => {
        if (error) callback(error);
        else fs.fdatasync(fd, callback);
      };
      if (gate.failWith) finish(gate.failWith);
      else if (gate.open) finish(null);
      else held.push(finish);
    }) as SyncFile,
    release() {
      for (const finish of held.splice(0)) finish(null);
    },
  };
  return gate;
}

function tempFile(): string {
  return path.join(tempDir('sb-logsync-'), 'db.sqlite');
}

/** Whether a promise settles within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await new Promise((resolve) => setTimeout(resolve, ms));
  return settled;
}

describe('log sync: bookkeeping', () => {
  it('resolves a wait only after a sync that began after the commits it waits for', async () => {
    const file = tempFile();
    fs.writeFileSync(`${file}-wal`, '');
    const calls: Array<(error: NodeJS.ErrnoException | null) => void> = [];
    const sync = createLogSync(`${file}-wal`, {
      syncFile: (_fd, callback) => {
        calls.push(callback);
      },
    });
    try {
      assert.equal(sync.pending(), false);
      await sync.flushed(); // nothing to wait for
      assert.equal(calls.length, 0);

      sync.committed();
      assert.equal(sync.pending(), true);
      const first = sync.flushed();
      assert.equal(calls.length, 1);
      sync.committed(); // during the first sync: it needs another
      const second = sync.flushed();
      assert.equal(calls.length, 1, 'one sync at a time');
      calls[0]!(null);
      await first;
      assert.equal(await settlesWithin(second, 20), false, 'the second commit is not covered by the first sync');
      assert.equal(calls.length, 2, 'the next sync starts by itself');
      calls[1]!(null);
      await second;
      assert.equal(sync.pending(), false);
    } finally {
      sync.close();
    }
  });

  it('refuses the waiters of a failed sync, and the next commit tries again', async () => {
    const file = tempFile();
    fs.writeFileSync(`${file}-wal`, '');
    const calls: Array<(error: NodeJS.ErrnoException | null) => void> = [];
    const sync = createLogSync(`${file}-wal`, {
      syncFile: (_fd, callback) => {
        calls.push(callback);
      },
    });
    try {
      sync.committed();
      const waiting = sync.flushed();
      calls[0]!(Object.assign(new Error('EIO: i/o error'), { code: 'EIO' }));
      await assert.rejects(waiting, /EIO/);
      assert.equal(sync.pending(), true, 'the commit is still not known to be on disk');
      sync.committed();
      const again = sync.flushed();
      calls[1]!(null);
      await again;
      assert.equal(sync.pending(), false);
    } finally {
      sync.close();
    }
  });
});

describe('log sync: what counts as a commit', () => {
  it('counts writes that end outside a transaction, not reads and not writes inside one', async () => {
    const file = tempFile();
    const gate = gatedSync();
    const { db, logSync } = openSqliteFile(file, 'FULL', { syncFile: gate.syncFile });
    try {
      assert.ok(logSync, 'a file database under FULL syncs its log off the event loop');
      await sql`create table t (id integer primary key, v text)`.execute(db);
      assert.equal(logSync.pending(), true, 'DDL outside a transaction commits');
      await logSync.flushed();

      await sql`select count(*) as n from t`.execute(db);
      await db
        .selectFrom('t' as never)
        .selectAll()
        .execute();
      assert.equal(logSync.pending(), false, 'reads commit nothing');

      gate.open = false;
      await db.transaction().execute(async (trx) => {
        await sql`insert into t (v) values ('a')`.execute(trx);
        await sql`insert into t (v) values ('b')`.execute(trx);
        assert.equal(logSync.pending(), false, 'nothing is committed inside the transaction');
      });
      assert.equal(logSync.pending(), true, 'the commit is pending until the log is synced');
      const done = logSync.flushed();
      assert.equal(await settlesWithin(done, 30), false);
      gate.release();
      await done;
      assert.equal(logSync.pending(), false);

      gate.open = true;
      await sql`update t set v = 'c' where id = 1`.execute(db);
      assert.equal(logSync.pending(), true, 'an autocommit write commits');
      await logSync.flushed();
    } finally {
      await db.destroy();
    }
  });

  it('is not used for memory databases or SQLITE_SYNCHRONOUS=NORMAL', async () => {
    const file = tempFile();
    const memory = openSqliteFile(':memory:');
    const normal = openSqliteFile(file, 'NORMAL');
    try {
      assert.equal(memory.logSync, undefined);
      assert.equal(normal.logSync, undefined);
    } finally {
      await memory.db.destroy();
      await normal.db.destroy();
    }
  });
});

describe('durable replies through HTTP', () => {
  it("holds a write's reply, and a read that sees the write, until the log is on disk", async () => {
    const file = tempFile();
    const gate = gatedSync();
    const t = await createTestApp({ database: { file, syncFile: gate.syncFile } });
    try {
      gate.open = false;
      const before = gate.requested;
      const creating = t.call('POST', '/api/lookup_tables', { body: { name: 'durable', schema: [{ label: 'code' }] } });
      const deadline = Date.now() + 5000;
      while (gate.held === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      assert.equal(gate.requested, before + 1, 'the commit asked for one sync');

      // Committed (another connection sees it), but not acknowledged.
      const reader = new DatabaseSync(file, { readOnly: true });
      const row = reader.prepare("select count(*) as n from lookup_tables where name = 'durable'").get() as {
        n: number;
      };
      reader.close();
      assert.equal(row.n, 1);
      assert.equal(await settlesWithin(creating, 50), false, 'no reply before the sync');
      const listing = t.call('GET', '/api/lookup_tables');
      assert.equal(await settlesWithin(listing, 50), false, 'a read that could show the write waits too');

      gate.release();
      const created = await creating;
      assert.equal(created.status, 200);
      assert.equal(created.body.name, 'durable');
      const listed = await listing;
      assert.equal(listed.status, 200);
      assert.ok(listed.body.some((table: { name: string }) => table.name === 'durable'));

      // Nothing pending: a read goes at once, without a sync.
      gate.open = true;
      const syncs = gate.requested;
      assert.equal((await t.call('GET', '/api/lookup_tables')).status, 200);
      assert.equal(gate.requested, syncs);
    } finally {
      gate.open = true;
      gate.release();
      await t.close();
    }
  });

  it('answers 503 in the error shape when the disk refuses the sync, and the next write is acknowledged once it syncs', async () => {
    const file = tempFile();
    const gate = gatedSync();
    const t = await createTestApp({ database: { file, syncFile: gate.syncFile } });
    try {
      gate.failWith = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
      const res = await t.call('POST', '/api/lookup_tables', {
        body: { name: 'not-confirmed', schema: [{ label: 'code' }] },
      });
      assert.equal(res.status, 503);
      assert.deepEqual(res.body, {
        message: 'Storage unavailable: the disk failed a read or a write; try again later',
      });
      assert.equal(res.headers['retry-after'], '5');
      assert.doesNotMatch(res.text, /EIO|fdatasync|at /);

      gate.failWith = undefined;
      const next = await t.call('POST', '/api/lookup_tables', {
        body: { name: 'confirmed', schema: [{ label: 'code' }] },
      });
      assert.equal(next.status, 200);
    } finally {
      gate.failWith = undefined;
      await t.close();
    }
  });

  it('answers 500 in the error shape when the sync fails for another reason', async () => {
    const file = tempFile();
    const gate = gatedSync();
    const t = await createTestApp({ database: { file, syncFile: gate.syncFile } });
    try {
      gate.failWith = Object.assign(new Error('EBADF: bad file descriptor, fdatasync'), { code: 'EBADF' });
      const res = await t.call('POST', '/api/lookup_tables', {
        body: { name: 'not-confirmed', schema: [{ label: 'code' }] },
      });
      assert.equal(res.status, 500);
      assert.equal(res.body.message, 'Server error');
      assert.equal(typeof res.body.id, 'string');
      assert.doesNotMatch(res.text, /EBADF|fdatasync|at /);
    } finally {
      gate.failWith = undefined;
      await t.close();
    }
  });
});
