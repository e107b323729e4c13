// Nodes started together on one PostgreSQL database, as `switchboard serve` starts them: each
// migrates and makes sure the first workspace (and, with SWITCHBOARD_ADMIN_TOKEN, its admin
// client) exists. However many start at once, on an empty database or a migrated one, every start
// succeeds and the workspace and its admin client are made exactly once. PostgreSQL only: on
// SQLite one process owns the database file.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { loadConfig } from '../src/config.ts';
import { hashToken } from '../src/auth/credentials.ts';
import { prepare, type Prepared } from '../src/prepare.ts';
import { createLogger } from '../src/logger.ts';
import { tempDir } from './helpers.ts';
import { emptyPostgresDatabase, freshPostgresDatabase, postgresOnly } from './test-database.ts';

const NODES = 4;
const KEY = randomBytes(32).toString('hex');

/** `count` starts at once on the database at `url`; every one must succeed. */
async function startTogether(url: string, count: number, adminToken?: string): Promise<Prepared[]> {
  const starts = Array.from({ length: count }, () =>
    prepare(
      loadConfig({
        DATABASE_URL: url,
        DATA_DIR: tempDir('sb-first-start-'),
        SWITCHBOARD_SECRET_KEY: KEY,
        LOG_LEVEL: 'silent',
        ...(adminToken ? { SWITCHBOARD_ADMIN_TOKEN: adminToken } : {}),
      }),
      createLogger('silent'),
    ),
  );
  const settled = await Promise.allSettled(starts);
  const started = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failures = settled.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : []));
  if (failures.length > 0) await Promise.all(started.map((p) => p.database.db.destroy()));
  assert.deepEqual(failures, [], 'every node started');
  return started;
}

async function whatWasMade(prepared: Prepared): Promise<{ workspaces: number; clients: string[] }> {
  const db = prepared.database.db;
  const workspaces = await db.selectFrom('workspaces').select('id').execute();
  const clients = await db.selectFrom('developer_api_clients').select('name').orderBy('id').execute();
  return { workspaces: workspaces.length, clients: clients.map((c) => c.name) };
}

describe('nodes starting together on one database', { skip: postgresOnly('several nodes share PostgreSQL') }, () => {
  for (const database of ['an empty database', 'a migrated database']) {
    test(`${database}, no SWITCHBOARD_ADMIN_TOKEN: one workspace, one bootstrap token printed by one node`, async () => {
      const url = database === 'an empty database' ? await emptyPostgresDatabase() : await freshPostgresDatabase();
      const nodes = await startTogether(url, NODES);
      try {
        assert.equal(nodes.filter((n) => n.firstStart.created).length, 1, 'one node made the workspace');
        assert.equal(nodes.filter((n) => n.firstStart.printableToken).length, 1, 'one node prints a token');
        assert.equal(new Set(nodes.map((n) => n.firstStart.workspace.id)).size, 1, 'every node found that one');
        assert.deepEqual(await whatWasMade(nodes[0]!), { workspaces: 1, clients: ['Bootstrap admin'] });
      } finally {
        await Promise.all(nodes.map((n) => n.database.db.destroy()));
      }
      // A node started later finds everything made.
      const [later] = (await startTogether(url, 1)) as [Prepared];
      try {
        assert.equal(later.firstStart.created, false);
        assert.deepEqual(await whatWasMade(later), { workspaces: 1, clients: ['Bootstrap admin'] });
      } finally {
        await later.database.db.destroy();
      }
    });

    test(`${database}, SWITCHBOARD_ADMIN_TOKEN set: one workspace, one admin client with that token`, async () => {
      const url = database === 'an empty database' ? await emptyPostgresDatabase() : await freshPostgresDatabase();
      const token = `wrkdev-firststart${randomBytes(24).toString('hex')}`;
      const nodes = await startTogether(url, NODES, token);
      try {
        assert.equal(nodes.filter((n) => n.firstStart.created).length, 1, 'one node made the workspace');
        assert.equal(nodes.filter((n) => n.firstStart.printableToken).length, 0, 'nothing secret printed');
        assert.deepEqual(await whatWasMade(nodes[0]!), {
          workspaces: 1,
          clients: ['Admin (SWITCHBOARD_ADMIN_TOKEN)'],
        });
        const client = await nodes[0]!.database.db
          .selectFrom('developer_api_clients')
          .select('token_hash')
          .executeTakeFirstOrThrow();
        assert.equal(client.token_hash, hashToken(token), 'the client opens with the configured token');
      } finally {
        await Promise.all(nodes.map((n) => n.database.db.destroy()));
      }
    });
  }
});
