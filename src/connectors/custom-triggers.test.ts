// Triggers of custom connectors (contract 21 §5) through recipe runs against a local stand-in of
// the connector's API. Polling: the `poll` lambda gets the closure its last poll returned (kept in
// the recipe across poll_now, a restart of the engine and a stop/start; cleared by
// reset_trigger), `can_poll_more` asks for the next page at once, `dedup` drops an event seen
// before. Webhook: `webhook_subscribe` gets the recipe's webhook URL at start, each call of that
// URL goes through `webhook_notification` (and `dedup`), `webhook_unsubscribe` runs at stop.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { API_KEY_CONNECTION, startKeyedApi, type KeyedApi } from '../../test/custom-connector-kit.ts';
import { createTestApp, type TestApp } from '../../test/helpers.ts';
import { createRecipe, dp, log, loggedByJobs, numbered, startRecipe } from '../../test/recipes.ts';
import { createEngine } from '../engine/engine.ts';

// Written in the vendor's documented style: a closure carrying the cursor, pages of two, a dedup
// key of id and update time; a dynamic webhook registering the recipe's URL.
const CODE = `{
  title: 'Acme Tickets',
${API_KEY_CONNECTION}
  triggers: {
    new_updated_ticket: {
      title: 'New/updated ticket',
      input_fields: lambda { |_| [{ name: 'since', type: 'timestamp', optional: true }] },
      poll: lambda do |_connection, input, closure|
        closure = {} unless closure.present?
        error('the ticket API is down') if input['since'] == 'broken'
        cursor = closure['cursor'] || input['since'] || '2000-01-01T00:00:00Z'
        page = get('/tickets', updated_since: cursor, per_page: 2)
        tickets = page['tickets']
        {
          events: tickets,
          next_poll: { 'cursor' => tickets.last ? tickets.last['updated_at'] : cursor },
          can_poll_more: page['has_more']
        }
      end,
      dedup: lambda { |ticket| "#{ticket['id']}@#{ticket['updated_at']}" },
      output_fields: lambda do |_|
        [{ name: 'id', type: 'integer' }, { name: 'subject' }, { name: 'updated_at', type: 'timestamp' }]
      end
    },
    new_message: {
      title: 'New message',
      input_fields: lambda { |_| [{ name: 'channel' }] },
      webhook_subscribe: lambda do |webhook_url, _connection, input, recipe_id|
        post('/hooks', url: webhook_url, channel: input['channel'], recipe: recipe_id)
      end,
      webhook_unsubscribe: lambda do |subscription|
        delete("/hooks/#{subscription['id']}")
      end,
      webhook_notification: lambda do |_input, payload, _eis, _eos, headers|
        payload['messages'].map { |m| m.merge('hook' => headers['x-acme-hook']) }
      end,
      dedup: lambda { |message| message['id'] },
      output_fields: lambda { |_| [{ name: 'id' }, { name: 'text' }, { name: 'hook' }] }
    }
  }
}
`;

interface Ticket {
  id: number;
  subject: string;
  updated_at: string;
}

let t: TestApp;
let acme: KeyedApi;
let tickets: Ticket[] = [];
const polls: string[] = [];
const hooks = new Map<string, { url: string; channel: string }>();
const deleted: string[] = [];
let provider = '';
let connectionId = 0;

function startAcme(): Promise<KeyedApi> {
  return startKeyedApi('k-1', (req, url, res) => {
    if (req.method === 'GET' && url.pathname === '/tickets') {
      polls.push(`${url.searchParams.get('updated_since')}/${url.searchParams.get('per_page')}`);
      const since = url.searchParams.get('updated_since') ?? '';
      const size = Number(url.searchParams.get('per_page'));
      // At or after the cursor, as many APIs filter: the edge record comes again (dedup drops it).
      const fresh = tickets
        .filter((x) => x.updated_at >= since)
        .sort((a, b) => a.updated_at.localeCompare(b.updated_at) || a.id - b.id);
      res.end(JSON.stringify({ tickets: fresh.slice(0, size), has_more: fresh.length > size }));
      return true;
    }
    if (req.method === 'POST' && url.pathname === '/hooks') {
      const { url: target, channel } = JSON.parse(req.body) as { url: string; channel: string };
      const id = `h${hooks.size + deleted.length + 1}`;
      hooks.set(id, { url: target, channel });
      res.statusCode = 201;
      res.end(JSON.stringify({ id }));
      return true;
    }
    if (req.method === 'DELETE' && url.pathname.startsWith('/hooks/')) {
      const id = url.pathname.slice('/hooks/'.length);
      if (!hooks.delete(id)) return false;
      deleted.push(id);
      res.statusCode = 204;
      res.end();
      return true;
    }
    return false;
  });
}

before(async () => {
  // Polls happen when a recipe starts and on poll_now only: the interval is an hour.
  t = await createTestApp({ engine: { triggerPollMs: 3_600_000 } });
  acme = await startAcme();
  const made = await t.call('POST', '/api/custom_connectors', { body: { title: 'Acme Tickets', code: CODE } });
  assert.equal(made.status, 200, made.text);
  provider = made.body.data.name as string;
  const released = await t.call('POST', `/api/custom_connectors/${made.body.data.id}/release`);
  assert.equal(released.status, 200, released.text);
  const connection = await t.call('POST', '/api/connections', {
    body: { name: 'Acme', provider, input: { base_url: acme.url, api_key: 'k-1' }, shell_connection: false },
  });
  assert.equal(connection.status, 200, connection.text);
  assert.equal(connection.body.authorization_status, 'success', connection.text);
  connectionId = connection.body.id as number;
});
after(async () => {
  await t.close();
  await acme.close();
});

function triggerRecipe(name: string, input: Record<string, unknown>, message: string) {
  return createRecipe(
    t,
    numbered({ keyword: 'trigger', provider, name, as: 'ev', input, block: [log('seen', message)] }),
    { config: JSON.stringify([{ keyword: 'application', provider, account_id: connectionId }]) },
  );
}

/** What the jobs of a recipe logged, in the order they were stored; and its failed polls' errors. */
const seen = (recipeId: number) => loggedByJobs(t, recipeId);

const pill = (field: string) => `#{${dp(provider, 'ev', field)}}`;
const ticket = (id: number, minute: number, subject = `t${id}`): Ticket => ({
  id,
  subject,
  updated_at: `2026-01-01T00:${String(minute).padStart(2, '0')}:00Z`,
});

async function until(what: string, ok: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!ok()) {
    assert.ok(Date.now() < deadline, what);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('a custom connector webhook trigger', () => {
  test('subscribes at start, turns each call into events (dedup), answers bad calls 400, unsubscribes at stop', async () => {
    const id = await triggerRecipe(
      'new_message',
      { channel: 'general' },
      `${pill('id')}:${pill('text')}:${pill('hook')}`,
    );
    await startRecipe(t, id);
    assert.equal(hooks.size, 1, 'subscribed once');
    const [hookId, hook] = [...hooks.entries()][0]!;
    assert.equal(hook.channel, 'general');
    const row = await t.ctx.db
      .selectFrom('recipes')
      .select('webhook_key')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(hook.url, `${t.ctx.config.publicBaseUrl}/webhooks/rest/${row.webhook_key}/event`);
    const path = new URL(hook.url).pathname;
    const post = (payload: unknown, headers: Record<string, string> = {}) =>
      t.app.inject({
        method: 'POST',
        url: path,
        headers: { 'content-type': 'application/json', 'x-acme-hook': hookId, ...headers },
        payload: JSON.stringify(payload),
      });

    const first = await post({
      messages: [
        { id: 'm1', text: 'hi' },
        { id: 'm2', text: 'yo' },
      ],
    });
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(first.json(), { status: 'ok' });
    assert.deepEqual((await seen(id)).messages, [`m1:hi:${hookId}`, `m2:yo:${hookId}`]);
    // Delivered again with a new one: only the new one is a job.
    assert.equal(
      (
        await post({
          messages: [
            { id: 'm2', text: 'yo' },
            { id: 'm3', text: 'hey' },
          ],
        })
      ).statusCode,
      200,
    );
    assert.deepEqual((await seen(id)).messages.slice(2), [`m3:hey:${hookId}`]);

    // A call the connector cannot read: 400 naming the connector and the lambda; nothing stored.
    const bad = await post({ nothing: true });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.match(bad.json().error, /Acme Tickets/);
    assert.match(bad.json().error, /webhook_notification/);
    const malformed = await t.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/json' },
      payload: '{"messages": [',
    });
    assert.equal(malformed.statusCode, 400);
    assert.equal((await seen(id)).messages.length, 3);

    assert.equal((await t.call('PUT', `/api/recipes/${id}/stop`)).status, 200);
    await until('unsubscribed at stop', () => deleted.includes(hookId));
    assert.equal(hooks.size, 0);
    assert.equal((await post({ messages: [{ id: 'm4', text: 'late' }] })).statusCode, 404);
    // reset_trigger forgets the dedup keys of a stopped connector trigger.
    assert.equal((await t.call('POST', `/api/recipes/${id}/reset_trigger`)).status, 200);
    assert.equal((await t.call('GET', `/api/recipes/${id}`)).body.trigger_closure, null);
  });
});

describe('a custom connector polling trigger', () => {
  test('a poll that raises is a failed poll naming the connector; the recipe keeps running', async () => {
    const id = await triggerRecipe('new_updated_ticket', { since: 'broken' }, pill('id'));
    await startRecipe(t, id);
    const { messages, errors } = await seen(id);
    assert.deepEqual(messages, []);
    assert.equal(errors.length, 1);
    assert.match(errors[0]!, /Acme Tickets/);
    assert.match(errors[0]!, /triggers\.new_updated_ticket\.poll/);
    assert.match(errors[0]!, /the ticket API is down/);
    assert.equal((await t.call('GET', `/api/recipes/${id}`)).body.running, true);
    assert.equal((await t.call('PUT', `/api/recipes/${id}/stop`)).status, 200);
  });

  test('pages while can_poll_more, keeps the closure across polls and a restart, dedups, resets', async () => {
    tickets = [ticket(1, 1), ticket(2, 2), ticket(3, 3), ticket(4, 4), ticket(5, 5)];
    polls.length = 0;
    const id = await triggerRecipe(
      'new_updated_ticket',
      { since: '2026-01-01T00:00:00Z' },
      `${pill('id')}:${pill('subject')}`,
    );
    await startRecipe(t, id);
    // Pages of two while has_more: five tickets, each once, although each page repeats the last one.
    const { messages, errors } = await seen(id);
    assert.deepEqual(errors, []);
    assert.deepEqual([...messages].sort(), ['1:t1', '2:t2', '3:t3', '4:t4', '5:t5']);
    assert.equal(polls[0], '2026-01-01T00:00:00Z/2', 'the first poll starts at since');
    assert.ok(polls.length >= 3, `pages asked at once: ${polls.join(' ')}`);
    const closure = (await t.call('GET', `/api/recipes/${id}`)).body.trigger_closure;
    assert.deepEqual(closure.closure, { cursor: '2026-01-01T00:05:00Z' });

    // Nothing new: no job. A ticket updated (same id, new time) is an event again.
    assert.equal((await t.call('POST', `/api/recipes/${id}/poll_now`)).status, 200);
    assert.equal((await seen(id)).messages.length, 5);
    tickets.push({ ...ticket(2, 6), subject: 'changed' });
    assert.equal((await t.call('POST', `/api/recipes/${id}/poll_now`)).status, 200);
    assert.deepEqual((await seen(id)).messages.slice(5), ['2:changed']);

    // reset_trigger (stopped) forgets the closure and the dedup keys: the next start reads from since.
    assert.equal((await t.call('POST', `/api/recipes/${id}/reset_trigger`)).status, 400, 'not while running');
    assert.equal((await t.call('PUT', `/api/recipes/${id}/stop`)).status, 200);
    assert.equal((await t.call('POST', `/api/recipes/${id}/poll_now`)).status, 400);
    assert.equal((await t.call('POST', `/api/recipes/${id}/reset_trigger`)).status, 200);
    assert.equal((await t.call('GET', `/api/recipes/${id}`)).body.trigger_closure, null);
    await startRecipe(t, id);
    assert.deepEqual([...(await seen(id)).messages.slice(6)].sort(), [
      '1:t1',
      '2:changed',
      '2:t2',
      '3:t3',
      '4:t4',
      '5:t5',
    ]);

    // A restart: a new engine over the same database polls from the stored closure.
    await t.engine.close();
    const restarted = createEngine(t.ctx, { triggerPollMs: 3_600_000 });
    try {
      await restarted.start();
      polls.length = 0;
      tickets.push(ticket(7, 7));
      // The turn taken before the restart holds for its interval: poll_now polls at once.
      assert.equal(await restarted.pollNow(id), true);
      await restarted.idle();
      assert.deepEqual(polls, ['2026-01-01T00:06:00Z/2'], 'from the stored closure');
    } finally {
      await restarted.close();
    }
    const jobs = await t.ctx.db
      .selectFrom('jobs')
      .select('trigger_output')
      .where('recipe_id', '=', id)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      jobs.map((j) => (JSON.parse(j.trigger_output) as Ticket).subject).slice(12),
      ['t7'],
      'the restarted engine stored the new ticket once',
    );
  });
});
