// The LISTEN/NOTIFY notifier against a real PostgreSQL: runs when TEST_DATABASE_URL names one,
// skipped with the reason otherwise.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { createPgNotifier, type PgNotifier } from './pg-notifier.ts';
import type { ChangeEvents } from '../notifier.ts';
import { postgresOnly, TEST_DATABASE_URL } from '../../test/test-database.ts';

const url = TEST_DATABASE_URL;
const skip = postgresOnly('LISTEN/NOTIFY between two notifiers');
const log = pino({ level: 'silent' });

function nextEvent<K extends keyof ChangeEvents>(
  notifier: PgNotifier,
  topic: K,
  timeoutMs = 2000,
): Promise<ChangeEvents[K]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no ${topic} within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = notifier.subscribe(topic, (payload) => {
      clearTimeout(timer);
      off();
      resolve(payload);
    });
  });
}

async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('PostgreSQL notifier (LISTEN/NOTIFY between nodes)', { skip }, () => {
  const channel = `switchboard_test_${process.pid}`;
  let a: PgNotifier;
  let b: PgNotifier;

  before(async () => {
    // a comes back later than b, so that what a sends on its return finds b listening again.
    a = createPgNotifier({ connectionString: url!, log, channel, minBackoffMs: 600, maxBackoffMs: 600 });
    b = createPgNotifier({ connectionString: url!, log, channel, minBackoffMs: 20, maxBackoffMs: 100 });
    await a.start();
    await b.start();
  });
  after(async () => {
    await a.close();
    await b.close();
  });

  it('delivers a publish to the subscribers of the publishing node once and to the other node once', async () => {
    const seenA: number[] = [];
    const seenB: number[] = [];
    const offA = a.subscribe('event_topic.published', ({ lastSeq }) => seenA.push(lastSeq));
    const offB = b.subscribe('event_topic.published', ({ lastSeq }) => seenB.push(lastSeq));
    for (let i = 1; i <= 50; i++) a.publish('event_topic.published', { topicId: 7, lastSeq: i });
    await waitFor(() => seenB.length === 50);
    await new Promise((resolve) => setTimeout(resolve, 100));
    offA();
    offB();
    const expected = Array.from({ length: 50 }, (_, i) => i + 1);
    assert.deepEqual(seenA, expected, 'locally: each once, in order');
    assert.deepEqual(seenB, expected, 'on the other node: each once, in order');
  });

  it('keeps node-local events (the end of a package) on their node', async () => {
    const seen: unknown[] = [];
    const off = b.subscribe('package.finished', (p) => seen.push(p));
    const local = nextEvent(a, 'package.finished');
    a.publish('package.finished', { packageId: 1, status: 'completed' });
    assert.deepEqual(await local, { packageId: 1, status: 'completed' });
    // A marker published after it arrives at b; the package event did not.
    const marker = nextEvent(b, 'api_client.changed');
    a.publish('api_client.changed', { clientId: 3 });
    await marker;
    off();
    assert.deepEqual(seen, []);
  });

  it('sends an event too big for NOTIFY as everything.changed', async () => {
    const stale = nextEvent(b, 'everything.changed');
    const recipeIds = Array.from({ length: 3000 }, (_, i) => 100_000 + i);
    const local = nextEvent(a, 'recipes.deleted');
    a.publish('recipes.deleted', { recipeIds });
    assert.equal((await local).recipeIds.length, 3000, 'delivered whole on its own node');
    assert.deepEqual(await stale, {});
  });

  it('reconnects after its connection is killed, says everything changed, and sends what was published meanwhile', async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const stale = nextEvent(b, 'everything.changed', 5000);
      const { rows } = await admin.query<{ n: number }>(
        "select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where application_name = 'switchboard-notifier' and pid <> pg_backend_pid() and datname = current_database()",
      );
      assert.ok(rows[0]!.n >= 2, 'both listening connections were terminated');
      await stale;
      // Published while a may still be down: delivered to b once a is back.
      const arrived = nextEvent(b, 'developer_api_clients.changed', 5000);
      a.publish('developer_api_clients.changed', { workspaceId: 42 });
      assert.deepEqual(await arrived, { workspaceId: 42 });
      await waitFor(() => a.listening && b.listening);
    } finally {
      await admin.end();
    }
  });
});
