// Durability of event streams in a real process: a 200 to a publish means the message is on disk.
// The server is killed (SIGKILL) in the middle of a burst of concurrent publishes; after a restart
// every acknowledged message is there, once, in a strictly increasing order of ids.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { tempDir } from './helpers.ts';
import { api, startServer } from './process-helpers.ts';

const ADMIN = `pubsub-process-${'p'.repeat(40)}`;

describe('POST /api/v1/topics/:topic_id/publish in a server killed mid-burst', () => {
  test('every message answered 200 before SIGKILL is there after the restart', async (t) => {
    const dataDir = tempDir('sb-proc-');
    const first = await startServer(dataDir, { SWITCHBOARD_ADMIN_TOKEN: ADMIN });
    const created = await api(first.baseUrl, 'POST', '/api/event_streams/topics', ADMIN, { name: 'Crash test' });
    assert.equal(created.status, 200);
    const topicId: number = created.body.data.id;

    const acknowledged = new Map<string, { p: number; n: number }>();
    let killed = false;
    const producer = async (p: number) => {
      for (let n = 0; !killed; n++) {
        try {
          if (n % 4 === 3) {
            const payloads = Array.from({ length: 10 }, (_, k) => ({ p, n: n * 100 + k }));
            const res = await fetch(`${first.baseUrl}/api/v1/batch/topics/${topicId}/publish`, {
              method: 'POST',
              headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
              body: JSON.stringify({ payloads }),
            });
            if (res.status !== 200) return;
            const body = (await res.json()) as { message_ids: Record<string, { message_id: string }> };
            payloads.forEach((payload, k) => acknowledged.set(body.message_ids[String(k)]!.message_id, payload));
          } else {
            const payload = { p, n: n * 100 };
            const res = await fetch(`${first.baseUrl}/api/v1/topics/${topicId}/publish`, {
              method: 'POST',
              headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
              body: JSON.stringify(payload),
            });
            if (res.status !== 200) return;
            acknowledged.set(((await res.json()) as { message_id: string }).message_id, payload);
          }
        } catch {
          return; // the connection died with the server: this publish was not acknowledged
        }
      }
    };
    const burst = Array.from({ length: 12 }, (_, p) => producer(p));
    // Kill while the burst is in full swing.
    const deadline = Date.now() + 10_000;
    while (acknowledged.size < 300 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    killed = true;
    first.child.kill('SIGKILL');
    await Promise.all(burst);
    assert.equal(await first.exited, null, 'killed, not exited');
    assert.ok(acknowledged.size >= 300, `a real burst was acknowledged (${acknowledged.size})`);

    const second = await startServer(dataDir, { SWITCHBOARD_ADMIN_TOKEN: ADMIN });
    const seen: Array<{ message_id: string; payload: { p: number; n: number } }> = [];
    let cursor: string | undefined;
    for (;;) {
      const res = await api(second.baseUrl, 'POST', `/api/v1/topics/${topicId}/consume`, ADMIN, {
        batch_size: 50,
        ...(cursor ? { after_message_id: cursor } : {}),
      });
      assert.equal(res.status, 200);
      seen.push(...res.body.messages);
      if (res.body.messages.length < 50) break;
      cursor = res.body.messages.at(-1).message_id;
    }
    t.diagnostic(`acknowledged before the kill: ${acknowledged.size}; stored after the restart: ${seen.length}`);
    const byId = new Map(seen.map((m) => [m.message_id, m.payload]));
    assert.equal(byId.size, seen.length, 'no message twice');
    for (let i = 1; i < seen.length; i++)
      assert.ok(seen[i]!.message_id > seen[i - 1]!.message_id, 'strictly increasing ids');
    const missing = [...acknowledged.keys()].filter((id) => !byId.has(id));
    assert.deepEqual(missing, [], 'every acknowledged message survived');
    for (const [id, payload] of acknowledged) assert.deepEqual(byId.get(id), payload);
    // Publishing goes on after the restart, after every id handed out before the crash.
    const next = await api(second.baseUrl, 'POST', `/api/v1/topics/${topicId}/publish`, ADMIN, { after: 'restart' });
    assert.equal(next.status, 200);
    assert.ok(next.body.message_id > seen.at(-1)!.message_id);
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0);
  });
});
