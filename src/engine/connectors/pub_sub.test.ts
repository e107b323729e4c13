// workato_pub_sub through real jobs: the new-message trigger (one job per message, in order, its
// starting points, nothing lost or duplicated across a restart) and the publish actions (read back
// by an HTTP consumer), with their errors recorded on the failed step.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../app.ts';
import { createServiceContext } from '../../context.ts';
import { createInProcessNotifier } from '../../notifier.ts';
import { createPublisher } from '../../api/topics/publisher.ts';
import { createEngine } from '../engine.ts';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import {
  action,
  createRecipe,
  numbered,
  pill,
  readJob,
  startRecipe,
  webhookRecipe,
  type RanJob,
  type StepDoc,
} from '../../../test/recipes.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const SCHEMA = [
  { name: 'order_id', label: 'Order', type: 'string', control_type: 'text', optional: false },
  { name: 'amount', label: 'Amount', type: 'number', control_type: 'number', optional: true },
];

let topics = 0;
async function topic(app: TestApp = t): Promise<number> {
  const res = await app.call('POST', '/api/event_streams/topics', {
    body: { name: `orders ${++topics}`, schema: SCHEMA },
  });
  assert.equal(res.status, 200, res.text);
  return res.body.data.id;
}

async function publish(topicId: number, body: unknown): Promise<string> {
  const res = await t.call('POST', `/api/v1/topics/${topicId}/publish`, { body });
  assert.equal(res.status, 200, res.text);
  return res.body.message_id;
}

const msg = (...path: string[]) => pill('workato_pub_sub', 'msg', ...path);

function topicTrigger(input: Record<string, unknown>, block: StepDoc[] = []): StepDoc {
  return numbered({
    keyword: 'trigger',
    provider: 'workato_pub_sub',
    name: 'subscribe_to_topic',
    as: 'msg',
    input,
    block,
  });
}

async function subscriber(
  topicId: number | string,
  extra: Record<string, unknown> = {},
  app: TestApp = t,
): Promise<number> {
  const id = await createRecipe(
    app,
    topicTrigger({ topic_id: String(topicId), ...extra }, [
      action('logger', 'log_message', 'log', { message: msg('message', 'order_id') }),
    ]),
  );
  await startRecipe(app, id);
  return id;
}

interface JobView {
  status: string;
  messageId: string;
  orderId: string;
  logged: unknown;
}

async function jobsOf(recipeId: number): Promise<JobView[]> {
  const rows = await t.ctx.db.selectFrom('jobs').selectAll().where('recipe_id', '=', recipeId).orderBy('id').execute();
  const out: JobView[] = [];
  for (const row of rows) {
    const event = JSON.parse(row.trigger_output) as { message_id: string; payload: { order_id: string } };
    const job = await readJob(t, row.id);
    out.push({
      status: row.status,
      messageId: event.message_id,
      orderId: event.payload.order_id,
      logged: (job.output(1) as { message?: unknown } | undefined)?.message,
    });
  }
  return out;
}

async function consumeAll(topicId: number): Promise<Array<{ message_id: string; payload: Record<string, unknown> }>> {
  const res = await t.call('POST', `/api/v1/topics/${topicId}/consume`, { body: { batch_size: 50 } });
  assert.equal(res.status, 200, res.text);
  return res.body.messages;
}

/** Post to a webhook recipe and read back its own job (other recipes make jobs too). */
async function fire(app: TestApp, hook: { id: number; path: string }, payload: unknown): Promise<RanJob> {
  const res = await app.app.inject({ method: 'POST', url: hook.path, payload: payload as Record<string, unknown> });
  assert.equal(res.statusCode, 200, res.body);
  await app.engine.idle();
  const job = await app.ctx.db
    .selectFrom('jobs')
    .select('id')
    .where('recipe_id', '=', hook.id)
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  return readJob(app, job.id);
}

describe('workato_pub_sub subscribe_to_topic', () => {
  test('each message published through HTTP becomes one job, in publish order, with the message as output', async () => {
    const id = await topic();
    const recipe = await subscriber(id);
    const ids: string[] = [];
    ids.push(await publish(id, { order_id: 'A-1', amount: 1 }));
    // Concurrent producers and a batch: order is the topic's order, whatever it is.
    await Promise.all([
      publish(id, { order_id: 'A-2' }),
      publish(id, { order_id: 'A-3' }),
      publish(id, { order_id: 'A-4' }),
    ]);
    const batch = await t.call('POST', `/api/v1/batch/topics/${id}/publish`, {
      body: { payloads: [{ order_id: 'B-1' }, { order_id: 'B-2' }] },
    });
    assert.equal(batch.status, 200);
    await t.engine.idle();
    const seen = await consumeAll(id);
    const jobs = await jobsOf(recipe);
    assert.equal(jobs.length, 6);
    assert.deepEqual(
      jobs.map((j) => j.messageId),
      seen.map((m) => m.message_id),
      'one job per message, in topic order',
    );
    assert.deepEqual(
      jobs.map((j) => j.orderId),
      seen.map((m) => m.payload.order_id),
    );
    assert.equal(jobs[0]?.messageId, ids[0]);
    assert.ok(jobs.every((j) => j.status === 'succeeded'));
    assert.deepEqual(
      jobs.map((j) => j.logged),
      seen.map((m) => m.payload.order_id),
      'the message pill reads the payload',
    );
  });

  test('every subscribing recipe gets every message (fan-out); a stopped recipe resumes from its cursor', async () => {
    const id = await topic();
    const a = await subscriber(id);
    const b = await subscriber(id);
    await publish(id, { order_id: 'F-1' });
    await t.engine.idle();
    assert.equal((await t.call('PUT', `/api/recipes/${b}/stop`)).status, 200);
    await publish(id, { order_id: 'F-2' });
    await t.engine.idle();
    assert.deepEqual(
      (await jobsOf(b)).map((j) => j.orderId),
      ['F-1'],
    );
    await startRecipe(t, b);
    await t.engine.idle();
    assert.deepEqual(
      (await jobsOf(a)).map((j) => j.orderId),
      ['F-1', 'F-2'],
    );
    assert.deepEqual(
      (await jobsOf(b)).map((j) => j.orderId),
      ['F-1', 'F-2'],
      'messages published while stopped run after the start, once',
    );
  });

  test('starting points: from now (default), from the beginning, since a time, since_offset', async () => {
    const id = await topic();
    await publish(id, { order_id: 'old-1' });
    await new Promise((r) => setTimeout(r, 30));
    const between = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 30));
    await publish(id, { order_id: 'old-2' });
    const fromNow = await subscriber(id);
    const fromBeginning = await subscriber(id, { since: 'beginning' });
    const sinceTime = await subscriber(id, { since: between });
    const lookBack = await subscriber(id, { since_offset: '-3600' });
    await publish(id, { order_id: 'new-1' });
    await t.engine.idle();
    assert.deepEqual(
      (await jobsOf(fromNow)).map((j) => j.orderId),
      ['new-1'],
    );
    assert.deepEqual(
      (await jobsOf(fromBeginning)).map((j) => j.orderId),
      ['old-1', 'old-2', 'new-1'],
    );
    assert.deepEqual(
      (await jobsOf(sinceTime)).map((j) => j.orderId),
      ['old-2', 'new-1'],
    );
    assert.deepEqual(
      (await jobsOf(lookBack)).map((j) => j.orderId),
      ['old-1', 'old-2', 'new-1'],
    );
  });

  test('a trigger on an unknown topic or with a malformed since is refused at start; nothing runs', async () => {
    const unknown = await createRecipe(t, topicTrigger({ topic_id: '987654' }));
    const res = await t.call('PUT', `/api/recipes/${unknown}/start`);
    assert.equal(res.status, 200);
    assert.equal(res.body.success, false);
    assert.match(JSON.stringify(res.body.code_errors), /does not name an event topic/);
    const badSince = await createRecipe(t, topicTrigger({ topic_id: String(await topic()), since: 'yesterday-ish' }));
    const res2 = await t.call('PUT', `/api/recipes/${badSince}/start`);
    assert.equal(res2.body.success, false);
    assert.match(JSON.stringify(res2.body.code_errors), /not a date and time/);
    assert.equal((await t.call('GET', `/api/recipes/${unknown}`)).body.running, false);
  });
});

describe('workato_pub_sub publish actions', () => {
  test('publish_to_topic stores a message a consumer then reads, and outputs its message_id', async () => {
    const id = await topic();
    const hook = await webhookRecipe(t, [
      action('workato_pub_sub', 'publish_to_topic', 'pub', {
        topic_id: String(id),
        message: { order_id: pill('workato_webhooks', 'hook', 'payload', 'order'), amount: '=2.5 * 2', ignored: 'x' },
      }),
    ]);
    const job = await fire(t, hook, { order: 'P-1' });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const seen = await consumeAll(id);
    assert.equal(seen.length, 1);
    assert.deepEqual(seen[0]?.payload, { order_id: 'P-1', amount: 5 }, 'schema applied: unknown field dropped');
    assert.deepEqual(job.output(1), { message_id: seen[0]?.message_id });
  });

  test('publish_to_topic_batch publishes the list in order; a subscribing recipe gets them as jobs', async () => {
    const id = await topic();
    const recipe = await subscriber(id);
    const hook = await webhookRecipe(t, [
      action('workato_pub_sub', 'publish_to_topic_batch', 'pub', {
        topic_id: String(id),
        messages: pill('workato_webhooks', 'hook', 'payload', 'items'),
      }),
    ]);
    const job = await fire(t, hook, {
      items: [{ order_id: 'Q-1' }, { order_id: 'Q-2', amount: 'bad' }, { order_id: 'Q-3' }],
    });
    assert.equal(job.status, 'succeeded', job.error ?? '');
    const out = job.output(1) as {
      is_partial_error: boolean;
      message_ids: Array<string | null>;
      errors: Array<string | null>;
    };
    assert.equal(out.is_partial_error, true);
    assert.equal(out.message_ids[1], null);
    assert.match(out.errors[1] ?? '', /amount must be a number/);
    const seen = await consumeAll(id);
    assert.deepEqual(
      seen.map((m) => m.payload.order_id),
      ['Q-1', 'Q-3'],
    );
    assert.deepEqual(
      [out.message_ids[0], out.message_ids[2]],
      seen.map((m) => m.message_id),
    );
    await t.engine.idle();
    assert.deepEqual(
      (await jobsOf(recipe)).map((j) => j.orderId),
      ['Q-1', 'Q-3'],
    );
  });

  test('errors fail the step: unknown topic, schema mismatch, another environment, batch with nothing valid, too many messages', async () => {
    const id = await topic();
    const cases: Array<[StepDoc, RegExp, string]> = [
      [
        action('workato_pub_sub', 'publish_to_topic', 'pub', { topic_id: '987654', message: { order_id: 'x' } }),
        /does not exist/,
        'Topic not found',
      ],
      [
        action('workato_pub_sub', 'publish_to_topic', 'pub', { topic_id: String(id), message: { amount: 'ten' } }),
        /Payload does not match topic schema: .*order_id is required.*amount must be a number|Payload does not match topic schema: .*amount must be a number/,
        'Schema mismatch',
      ],
      [
        action('workato_pub_sub', 'publish_to_topic_batch', 'pub', { topic_id: String(id), messages: [{ amount: 1 }] }),
        /no message was published/,
        'Schema mismatch',
      ],
      [
        action('workato_pub_sub', 'publish_to_topic_batch', 'pub', {
          topic_id: String(id),
          messages: Array.from({ length: 101 }, (_, i) => ({ order_id: `M-${i}` })),
        }),
        /1 to 100 messages/,
        'Bad request',
      ],
      [
        action('workato_pub_sub', 'publish_to_topic', 'pub', {
          topic_id: String(id),
          message: { order_id: 'x'.repeat(600 * 1024) },
        }),
        /larger than/,
        'Message too large',
      ],
    ];
    for (const [step, message, type] of cases) {
      const hook = await webhookRecipe(t, [step]);
      const job = await fire(t, hook, {});
      assert.equal(job.status, 'failed');
      assert.equal(job.errorType, type);
      const line = job.lines.find((l) => l.n === 1);
      assert.match(line?.error ?? '', message);
    }
    // A topic of another environment is not visible to a dev recipe.
    const prod = await t.tokenFor('Admin', 'prod');
    const other = await t.call('POST', '/api/event_streams/topics', { token: prod, body: { name: 'prod orders' } });
    const hook = await webhookRecipe(t, [
      action('workato_pub_sub', 'publish_to_topic', 'pub', {
        topic_id: String(other.body.data.id),
        message: { order_id: 'x' },
      }),
    ]);
    const job = await fire(t, hook, {});
    assert.equal(job.errorType, 'Topic not found');
    assert.deepEqual(await consumeAll(id), [], 'nothing was published');
  });
});

describe('workato_pub_sub across a restart', () => {
  test('rebuilding the app on the same database loses and duplicates no message', async () => {
    const r = await createTestApp();
    const id = await topic(r);
    const recipe = await subscriber(id, {}, r);
    const pub = (n: string) => r.call('POST', `/api/v1/topics/${id}/publish`, { body: { order_id: n } });
    for (const n of ['R-1', 'R-2', 'R-3']) assert.equal((await pub(n)).status, 200);
    await r.engine.idle();
    await r.app.close();
    // While no engine runs, producers go on (a publisher of its own on the same database).
    const publisher = createPublisher({ ...r.ctx, notifier: createInProcessNotifier() });
    await publisher.publish(id, [JSON.stringify({ order_id: 'R-4' }), JSON.stringify({ order_id: 'R-5' })]);
    await publisher.close();
    const notifier = createInProcessNotifier();
    const base = createServiceContext({
      db: r.ctx.db,
      config: r.ctx.config,
      secretBox: r.ctx.secretBox,
      log: r.ctx.log,
      clock: r.ctx.clock,
      secrets: r.ctx.secrets,
      notifier,
    });
    const engine = createEngine(base, { pollMs: 50 });
    const app = await buildApp({
      config: r.ctx.config,
      database: { db: r.ctx.db, dialect: 'sqlite', location: ':memory:' },
      secretBox: r.ctx.secretBox,
      secrets: r.ctx.secrets,
      notifier,
      clock: r.ctx.clock,
      logger: r.ctx.log,
      engine,
    });
    await app.ready();
    try {
      const res = await app.inject({
        method: 'POST',
        url: `/api/v1/topics/${id}/publish`,
        headers: { authorization: `Bearer ${r.adminToken}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ order_id: 'R-6' }),
      });
      assert.equal(res.statusCode, 200, res.body);
      await engine.idle();
      const rows = await r.ctx.db
        .selectFrom('jobs')
        .select(['trigger_output', 'status'])
        .where('recipe_id', '=', recipe)
        .orderBy('id')
        .execute();
      const orders = rows.map(
        (row) => (JSON.parse(row.trigger_output) as { payload: { order_id: string } }).payload.order_id,
      );
      assert.deepEqual(orders, ['R-1', 'R-2', 'R-3', 'R-4', 'R-5', 'R-6']);
      assert.ok(rows.every((row) => row.status === 'succeeded'));
    } finally {
      await app.close();
      await r.ctx.db.destroy();
    }
  });
});

describe('workato_pub_sub batch_subscribe_to_topic', () => {
  test('the messages available at once become jobs of up to batch_size messages each, in order, none twice; a bad batch_size is refused at start', async () => {
    const id = await topic();
    const recipe = await createRecipe(
      t,
      numbered({
        keyword: 'trigger',
        provider: 'workato_pub_sub',
        name: 'batch_subscribe_to_topic',
        as: 'batch',
        input: { topic_id: String(id), batch_size: '2' },
        block: [
          action('logger', 'log_message', 'log', {
            message: `${pill('workato_pub_sub', 'batch', 'count')} from ${pill('workato_pub_sub', 'batch', 'first_message_id')}`,
          }),
        ],
      }),
    );
    const batch = await t.call('POST', `/api/v1/batch/topics/${id}/publish`, {
      body: {
        payloads: [
          { order_id: 'B-1' },
          { order_id: 'B-2' },
          { order_id: 'B-3' },
          { order_id: 'B-4' },
          { order_id: 'B-5' },
        ],
      },
    });
    assert.equal(batch.status, 200);
    // Published before the start, from the beginning.
    await t.call('PUT', `/api/recipes/${recipe}`, {
      body: {
        recipe: {
          code: JSON.stringify(
            numbered({
              keyword: 'trigger',
              provider: 'workato_pub_sub',
              name: 'batch_subscribe_to_topic',
              as: 'batch',
              input: { topic_id: String(id), batch_size: '2', since_offset: '-3600' },
              block: [
                action('logger', 'log_message', 'log', {
                  message: `${pill('workato_pub_sub', 'batch', 'count')} from ${pill('workato_pub_sub', 'batch', 'first_message_id')}`,
                }),
              ],
            }),
          ),
        },
      },
    });
    await startRecipe(t, recipe);
    await t.engine.idle();
    const rows = await t.ctx.db.selectFrom('jobs').selectAll().where('recipe_id', '=', recipe).orderBy('id').execute();
    const batches = rows.map((r) =>
      (JSON.parse(r.trigger_output) as { messages: Array<{ message: { order_id: string } }> }).messages.map(
        (m) => m.message.order_id,
      ),
    );
    assert.deepEqual(batches, [['B-1', 'B-2'], ['B-3', 'B-4'], ['B-5']]);
    assert.ok(rows.every((r) => r.status === 'succeeded'));
    const first = await readJob(t, rows[0]!.id);
    assert.match(String((first.output(1) as { message: string }).message), /^2 from /);
    await publish(id, { order_id: 'C-1' });
    await t.engine.idle();
    const more = await t.ctx.db
      .selectFrom('jobs')
      .select('trigger_output')
      .where('recipe_id', '=', recipe)
      .orderBy('id')
      .execute();
    assert.equal(more.length, 4, 'a later message makes its own batch');
    await t.call('PUT', `/api/recipes/${recipe}/stop`);

    const bad = await createRecipe(
      t,
      numbered({
        keyword: 'trigger',
        provider: 'workato_pub_sub',
        name: 'batch_subscribe_to_topic',
        as: 'b',
        input: { topic_id: String(id), batch_size: '500' },
        block: [],
      }),
    );
    const start = await t.call('PUT', `/api/recipes/${bad}/start`);
    assert.equal(start.body.success, false);
    assert.match(JSON.stringify(start.body.code_errors), /Batch size.*must be a whole number from 1 to 100/);
  });
});
