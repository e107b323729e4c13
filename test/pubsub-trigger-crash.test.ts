// kill -9 during a burst of publishes to a topic a recipe subscribes to (workato_pub_sub): after a
// restart, every stored message (so every acknowledged one) is exactly one job, in topic order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tempDir } from './helpers.ts';
import { asAdmin, burstUntilKilled, openServerDatabase } from './process-helpers.ts';

const TOKEN = 'wrkdev-topiccrash0123456789abcdef0123456789abcde';
const { startServer, api } = asAdmin(TOKEN);

test('SIGKILL during a publish burst: every message of the topic becomes exactly one job, in order', async () => {
  const dataDir = tempDir('sb-topic-burst-');
  const first = await startServer(dataDir);
  const topic = await api(first.base, 'POST', '/api/event_streams/topics', {
    name: 'burst',
    schema: [{ name: 'seq', type: 'integer', optional: false }],
  });
  assert.equal(topic.status, 200);
  const topicId: number = topic.body.data.id;
  const code = {
    number: 0,
    keyword: 'trigger',
    provider: 'workato_pub_sub',
    name: 'subscribe_to_topic',
    as: 'msg',
    input: { topic_id: String(topicId) },
    block: [
      {
        number: 1,
        keyword: 'action',
        provider: 'logger',
        name: 'log_message',
        as: 'log',
        input: {
          message: `seq #{_dp('${JSON.stringify({ pill_type: 'output', provider: 'workato_pub_sub', line: 'msg', path: ['message', 'seq'] })}')}`,
        },
      },
    ],
  };
  const created = await api(first.base, 'POST', '/api/recipes', {
    recipe: { name: 'Subscriber', code: JSON.stringify(code), concurrency: 1 },
  });
  const id: number = created.body.id;
  assert.deepEqual((await api(first.base, 'PUT', `/api/recipes/${id}/start`)).body, { success: true });

  const acknowledged = await burstUntilKilled(first.child, async (seq) => {
    const res = await api(first.base, 'POST', `/api/v1/topics/${topicId}/publish`, { seq });
    return res.status === 200 && typeof res.body.message_id === 'string';
  });
  assert.equal(await first.exited, null, 'killed');

  const second = await startServer(dataDir);
  const countMessages = async () => {
    const db = await openServerDatabase(dataDir);
    const n = ((await db.get('select count(*) as n from event_messages where topic_id = ?', topicId)) as { n: number })
      .n;
    await db.close();
    return n;
  };
  const stored = await countMessages();
  const deadline = Date.now() + 30_000;
  for (;;) {
    const all = await api(second.base, 'GET', `/api/recipes/${id}/jobs?per_page=1`);
    const pending = await api(second.base, 'GET', `/api/recipes/${id}/jobs?status=pending&per_page=1`);
    if (all.body.job_scope_count >= stored && pending.body.job_scope_count === 0) break;
    assert.ok(Date.now() < deadline, `jobs for the ${stored} messages after the restart`);
    await new Promise((r) => setTimeout(r, 100));
  }
  second.child.kill('SIGTERM');
  assert.equal(await second.exited, 0);

  const db = await openServerDatabase(dataDir);
  const messages = (await db.all(
    'select seq, payload from event_messages where topic_id = ? order by seq',
    topicId,
  )) as Array<{ seq: number; payload: string }>;
  const jobs = (await db.all('select trigger_output from jobs where recipe_id = ? order by id', id)) as Array<{
    trigger_output: string;
  }>;
  await db.close();
  const published = messages.map((m) => (JSON.parse(m.payload) as { seq: number }).seq);
  const jobSeqs = jobs.map((j) => (JSON.parse(j.trigger_output) as { payload: { seq: number } }).payload.seq);
  assert.deepEqual(
    [...acknowledged].filter((s) => !published.includes(s)),
    [],
    'every acknowledged message is stored',
  );
  assert.deepEqual(jobSeqs, published, 'one job per stored message, none twice, in topic order');
});
