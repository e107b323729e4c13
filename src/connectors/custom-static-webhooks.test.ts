// Static webhooks of custom connectors (contract 21 §5): the connector's `webhook_keys` lambda
// computes a key from each request to the connector's one URL
// (PUBLIC_BASE_URL/webhooks/connectors/<connector id>/event); each started recipe of the
// connector's workspace whose trigger's `webhook_key` (of its connection and input) is that key
// gets the request through `webhook_notification` and `dedup`, a job per event stored before the
// 200. Another workspace's recipe with the same key never does.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestApp, waitFor, type TestApp } from '../../test/helpers.ts';
import { dp, log, loggedByJobs, numbered } from '../../test/recipes.ts';
import { createServiceContext } from '../context.ts';
import { createEngine } from '../engine/engine.ts';
import { fromPlain } from '../recipe/formula/values.ts';
import { deleteStaticWebhookKey, hasStaticWebhookKey } from '../api/custom_connectors/custom_connectors.store.ts';

// In the vendor's documented style: the team a request is for picks the recipes.
const CODE = `{
  title: 'Acme Chat',
  webhook_keys: lambda do |_params, headers, payload|
    error('no team in this event') if headers['x-broken'].present?
    payload['team_id']
  end,
  triggers: {
    new_message: {
      title: 'New message',
      input_fields: lambda { |_| [{ name: 'team' }] },
      webhook_key: lambda { |_connection, input| input['team'] },
      webhook_notification: lambda do |_input, payload|
        payload['messages']
      end,
      dedup: lambda { |message| message['id'] },
      output_fields: lambda { |_| [{ name: 'id' }, { name: 'text' }] }
    },
    # Hybrid: events come by the webhook at once and by a poll that catches what it missed.
    any_message: {
      title: 'Any message',
      input_fields: lambda { |_| [{ name: 'team' }] },
      webhook_key: lambda { |_connection, input| input['team'] },
      webhook_notification: lambda { |_input, payload| payload['messages'] },
      poll: lambda do |_connection, _input, closure|
        turn = closure.present? ? closure['turn'] : 0
        events = if turn.zero?
                   [{ 'id' => 'p1', 'text' => 'polled' }, { 'id' => 'm1', 'text' => 'both' }]
                 else
                   [{ 'id' => 'm1', 'text' => 'both' }, { 'id' => 'w2', 'text' => 'hooked' }, { 'id' => 'p3', 'text' => 'late' }]
                 end
        { events: events, next_poll: { 'turn' => turn + 1 } }
      end,
      dedup: lambda { |message| message['id'] },
      output_fields: lambda { |_| [{ name: 'id' }, { name: 'text' }] }
    }
  }
}
`;

let t: TestApp;
let connectorId = 0;
let provider = '';
let other: { token: string; connectorId: number; provider: string };

async function connector(token?: string): Promise<{ id: number; provider: string }> {
  const made = await t.call('POST', '/api/custom_connectors', {
    body: { title: 'Acme Chat', code: CODE },
    ...(token ? { token } : {}),
  });
  assert.equal(made.status, 200, made.text);
  const id = made.body.data.id as number;
  const released = await t.call('POST', `/api/custom_connectors/${id}/release`, token ? { token } : {});
  assert.equal(released.status, 200, released.text);
  return { id, provider: made.body.data.name as string };
}

async function teamRecipe(
  name: string,
  team: string,
  token?: string,
  as = provider,
  trigger = 'new_message',
): Promise<number> {
  const code = numbered({
    keyword: 'trigger',
    provider: as,
    name: trigger,
    as: 'ev',
    input: { team },
    block: [log('seen', `${team}:#{${dp(as, 'ev', 'id')}}:#{${dp(as, 'ev', 'text')}}`)],
  });
  const res = await t.call('POST', '/api/recipes', {
    body: { recipe: { name, code: JSON.stringify(code) } },
    ...(token ? { token } : {}),
  });
  assert.equal(res.status, 200, res.text);
  const id = res.body.id as number;
  const started = await t.call('PUT', `/api/recipes/${id}/start`, token ? { token } : {});
  assert.equal(started.status, 200, started.text);
  assert.deepEqual(started.body, { success: true }, started.text);
  return id;
}

const post = (id: number, payload: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: `/webhooks/connectors/${id}/event`,
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });

const jobCount = async () =>
  Number(
    (
      await t.ctx.db
        .selectFrom('jobs')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

before(async () => {
  // The hybrid trigger polls when its recipe starts and on poll_now only: the interval is an hour.
  t = await createTestApp({ engine: { triggerPollMs: 3_600_000 } });
  ({ id: connectorId, provider } = await connector());
  const { adminToken } = await t.newWorkspace('Other Co');
  const theirs = await connector(adminToken);
  other = { token: adminToken, connectorId: theirs.id, provider: theirs.provider };
});
after(() => t.close());

describe("a custom connector's static webhook (webhook_keys)", () => {
  test('a request becomes jobs of the started recipes of its workspace whose key matches, only', async () => {
    const t1 = await teamRecipe('Team one', 'T1');
    const t2 = await teamRecipe('Team two', 'T2');
    // Another workspace's recipe of its own copy of the connector, with the same key.
    const theirs = await teamRecipe('Their team one', 'T1', other.token, other.provider);

    const first = await post(connectorId, {
      team_id: 'T1',
      messages: [
        { id: 'm1', text: 'hi' },
        { id: 'm2', text: 'yo' },
      ],
    });
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(first.json(), { status: 'ok' });
    assert.deepEqual((await loggedByJobs(t, t1)).messages, ['T1:m1:hi', 'T1:m2:yo']);
    assert.deepEqual((await loggedByJobs(t, t2)).messages, [], 'another key: no job');
    assert.deepEqual((await loggedByJobs(t, theirs)).messages, [], "another workspace's recipe: no job");

    // Delivered again with a new one: dedup keeps only the new one.
    const again = await post(connectorId, {
      team_id: 'T1',
      messages: [
        { id: 'm2', text: 'yo' },
        { id: 'm3', text: 'hey' },
      ],
    });
    assert.equal(again.statusCode, 200, again.body);
    assert.deepEqual((await loggedByJobs(t, t1)).messages, ['T1:m1:hi', 'T1:m2:yo', 'T1:m3:hey']);

    // The other workspace's URL serves its recipe only.
    const theirCall = await post(other.connectorId, { team_id: 'T1', messages: [{ id: 'x1', text: 'theirs' }] });
    assert.equal(theirCall.statusCode, 200, theirCall.body);
    assert.deepEqual((await loggedByJobs(t, theirs)).messages, ['T1:x1:theirs']);
    assert.deepEqual((await loggedByJobs(t, t1)).messages, ['T1:m1:hi', 'T1:m2:yo', 'T1:m3:hey']);

    // A key no recipe has: answered, nothing stored.
    const before = await jobCount();
    const nobody = await post(connectorId, { team_id: 'T9', messages: [{ id: 'n1', text: 'lost' }] });
    assert.equal(nobody.statusCode, 200, nobody.body);
    assert.equal(await jobCount(), before);

    // A stopped recipe gets nothing.
    const stopped = await t.call('PUT', `/api/recipes/${t2}/stop`);
    assert.equal(stopped.status, 200, stopped.text);
    assert.equal((await post(connectorId, { team_id: 'T2', messages: [{ id: 's1', text: 'x' }] })).statusCode, 200);
    assert.deepEqual((await loggedByJobs(t, t2)).messages, []);
  });

  test('bad calls get a clear 4xx and store nothing', async () => {
    await teamRecipe('Team three', 'T3');
    const before = await jobCount();
    const malformed = await post(connectorId, '{"team_id": "T3", ');
    assert.equal(malformed.statusCode, 400, malformed.body);
    assert.ok(typeof malformed.json().error === 'string');

    const raising = await post(connectorId, { team_id: 'T3', messages: [] }, { 'x-broken': '1' });
    assert.equal(raising.statusCode, 400, raising.body);
    assert.match(raising.json().error as string, /no team in this event/);

    for (const id of ['0', 'abc', '99999999']) {
      const res = await t.app.inject({ method: 'POST', url: `/webhooks/connectors/${id}/event`, payload: {} });
      assert.equal(res.statusCode, 404, `${id}: ${res.body}`);
    }
    assert.equal(await jobCount(), before);
  });

  test('a hybrid trigger (poll and webhook) keeps one dedup across both: an event that came by one is not a job again', async () => {
    const id = await teamRecipe('Hybrid team', 'H1', undefined, provider, 'any_message');
    // The first poll at start: p1 and m1.
    assert.deepEqual((await loggedByJobs(t, id)).messages.sort(), ['H1:m1:both', 'H1:p1:polled']);
    // The webhook brings m1 again (dropped) and w2.
    const hooked = await post(connectorId, {
      team_id: 'H1',
      messages: [
        { id: 'm1', text: 'both' },
        { id: 'w2', text: 'hooked' },
      ],
    });
    assert.equal(hooked.statusCode, 200, hooked.body);
    assert.deepEqual((await loggedByJobs(t, id)).messages.slice(2), ['H1:w2:hooked']);
    // The next poll brings m1 and w2 (both seen) and p3: only p3 is a job.
    assert.equal((await t.call('POST', `/api/recipes/${id}/poll_now`)).status, 200);
    assert.deepEqual((await loggedByJobs(t, id)).messages.slice(2), ['H1:w2:hooked', 'H1:p3:late']);
    const closure = (await t.call('GET', `/api/recipes/${id}`)).body.trigger_closure;
    assert.deepEqual(closure.closure, { turn: 2 }, 'the poll keeps its closure beside the webhook');
  });

  test('keys live in the database: a call another node receives reaches a recipe started on this one; a stop removes the key', async () => {
    const id = await teamRecipe('Indexed team', 'K1');
    assert.equal(await hasStaticWebhookKey(t.ctx.db, id), true, 'the start kept its key');
    // As a recipe started before keys were indexed: the other node indexes it when it resumes.
    await deleteStaticWebhookKey(t.ctx.db, id);
    // Another node: its own context, node id and notifier over the same database.
    const ctx = createServiceContext({
      db: t.ctx.db,
      config: t.ctx.config,
      secretBox: t.ctx.secretBox,
      log: t.ctx.log,
    });
    const nodeB = createEngine(ctx, { pollMs: 50, workers: 1 });
    try {
      await nodeB.start();
      await nodeB.armed();
      assert.equal(await hasStaticWebhookKey(t.ctx.db, id), true, 'resumed: indexed');
      const call = (payload: Record<string, unknown>) =>
        nodeB.receiveStaticWebhook(connectorId, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          query: {},
          payload: fromPlain(payload as never),
          raw: JSON.stringify(payload),
        });
      const reached = await call({ team_id: 'K1', messages: [{ id: 'b1', text: 'from B' }] });
      assert.equal(reached.status, 200);
      assert.equal(reached.status === 200 && reached.jobIds.length, 1, JSON.stringify(reached));
      await nodeB.idle();
      assert.deepEqual((await loggedByJobs(t, id)).messages, ['K1:b1:from B']);

      assert.equal((await t.call('PUT', `/api/recipes/${id}/stop`)).status, 200);
      await waitFor(
        () => hasStaticWebhookKey(t.ctx.db, id),
        (has) => !has,
        'the stopped recipe leaves the index',
      );
      const after = await call({ team_id: 'K1', messages: [{ id: 'b2', text: 'late' }] });
      assert.deepEqual(after, { status: 200, jobIds: [] });
      // Started again (here): indexed again, and node B routes to it.
      assert.equal((await t.call('PUT', `/api/recipes/${id}/start`)).status, 200);
      const again = await call({ team_id: 'K1', messages: [{ id: 'b3', text: 'back' }] });
      assert.equal(again.status === 200 && again.jobIds.length, 1, JSON.stringify(again));
      await nodeB.idle();
      assert.deepEqual((await loggedByJobs(t, id)).messages, ['K1:b1:from B', 'K1:b3:back']);
    } finally {
      await nodeB.close(1000);
    }
  });
});

// A key made from the connection: the team the connection is for. Editing the connection while its
// recipes run moves their calls to the new team at once, on every node, without a restart.
const TEAM_CODE = `{
  title: 'Acme Team Chat',
  connection: {
    fields: [{ name: 'team' }],
    authorization: { type: 'custom_auth' }
  },
  test: lambda { |_connection| true },
  webhook_keys: lambda { |_params, _headers, payload| payload['team_id'] },
  triggers: {
    new_message: {
      title: 'New message',
      webhook_key: lambda { |connection, _input| connection['team'] },
      webhook_notification: lambda { |_input, payload| payload['messages'] },
      dedup: lambda { |message| message['id'] },
      output_fields: lambda { |_| [{ name: 'id' }, { name: 'text' }] }
    }
  }
}
`;

describe("a custom connector's static webhook key made from the connection", () => {
  test('an update or a new test of the connection computes the keys of its running recipes again, read by another node', async () => {
    const made = await t.call('POST', '/api/custom_connectors', { body: { title: 'Acme Team Chat', code: TEAM_CODE } });
    assert.equal(made.status, 200, made.text);
    const teamConnector = made.body.data.id as number;
    const teamProvider = made.body.data.name as string;
    assert.equal((await t.call('POST', `/api/custom_connectors/${teamConnector}/release`)).status, 200);
    const connection = async (name: string, team: string) => {
      const res = await t.call('POST', '/api/connections', {
        body: { name, provider: teamProvider, input: { team }, shell_connection: false },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.authorization_status, 'success', res.text);
      return res.body.id as number;
    };
    const edited = await connection('Edited team', 'C1');
    const untouched = await connection('Other team', 'C9');
    const recipeOn = async (name: string, connectionId: number) => {
      const code = numbered({
        keyword: 'trigger',
        provider: teamProvider,
        name: 'new_message',
        as: 'ev',
        input: {},
        block: [log('seen', `${name}:#{${dp(teamProvider, 'ev', 'id')}}`)],
      });
      const res = await t.call('POST', '/api/recipes', {
        body: {
          recipe: {
            name,
            code: JSON.stringify(code),
            config: JSON.stringify([{ keyword: 'application', provider: teamProvider, account_id: connectionId }]),
          },
        },
      });
      assert.equal(res.status, 200, res.text);
      const id = res.body.id as number;
      assert.equal((await t.call('PUT', `/api/recipes/${id}/start`)).status, 200);
      return id;
    };
    const onEdited = await recipeOn('on edited', edited);
    const onOther = await recipeOn('on other', untouched);

    // Node B: its own context, node id and notifier over the same database; it receives the calls.
    const nodeB = createEngine(
      createServiceContext({ db: t.ctx.db, config: t.ctx.config, secretBox: t.ctx.secretBox, log: t.ctx.log }),
      { pollMs: 50, workers: 1 },
    );
    const keyOf = async (recipeId: number) =>
      (
        await t.ctx.db
          .selectFrom('static_webhook_keys')
          .select('key_hash')
          .where('recipe_id', '=', recipeId)
          .executeTakeFirst()
      )?.key_hash ?? null;
    try {
      await nodeB.start();
      await nodeB.armed();
      const call = (team: string, id: string) =>
        nodeB.receiveStaticWebhook(teamConnector, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          query: {},
          payload: fromPlain({ team_id: team, messages: [{ id, text: id }] } as never),
          raw: '{}',
        });
      const before = await call('C1', 'm1');
      assert.equal(before.status === 200 && before.jobIds.length, 1, JSON.stringify(before));
      const otherKey = await keyOf(onOther);

      // Edited through node A's API while the recipe runs, not tested: the connection is no longer
      // authorized (its steps would fail), so the recipe leaves the index.
      const updated = await t.call('PUT', `/api/connections/${edited}`, { body: { input: { team: 'C2' } } });
      assert.equal(updated.status, 200, updated.text);
      await waitFor(
        () => keyOf(onEdited),
        (hash) => hash === null,
        'the recipe on a connection no longer authorized leaves the index',
      );
      assert.deepEqual(await call('C1', 'm2'), { status: 200, jobIds: [] }, 'the old key reaches nothing');

      // Tested with the new team (shell_connection: false): the key of the new values, at once.
      const tested = await t.call('PUT', `/api/connections/${edited}`, {
        body: { input: { team: 'C3' }, shell_connection: false },
      });
      assert.equal(tested.status, 200, tested.text);
      assert.equal(tested.body.authorization_status, 'success', tested.text);
      await waitFor(
        () => keyOf(onEdited),
        (hash) => hash === sha256('C3'),
        'the running recipe has the key of the edited connection',
      );
      assert.deepEqual(await call('C1', 'm4'), { status: 200, jobIds: [] }, 'the old key still reaches nothing');
      const moved = await call('C3', 'm3');
      assert.equal(moved.status === 200 && moved.jobIds.length, 1, JSON.stringify(moved));
      assert.equal(await keyOf(onOther), otherKey, 'a recipe on another connection keeps its key');

      await nodeB.idle();
      assert.deepEqual((await loggedByJobs(t, onEdited)).messages, ['on edited:m1', 'on edited:m3']);
    } finally {
      await nodeB.close(1000);
    }
  });
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

// A key made from what the authorization gave: `acquire` answers the account with each token. A job
// whose request meets a 401 acquires again; the account it now gets is the running recipe's key.
const ACCOUNT_CODE = `{
  title: 'Acme Accounts',
  connection: {
    fields: [{ name: 'base_url' }],
    authorization: {
      type: 'custom_auth',
      acquire: lambda do |connection|
        post("#{connection['base_url']}/token")
      end,
      refresh_on: [401],
      apply: lambda { |connection| headers(Authorization: "Bearer #{connection['access_token']}") }
    },
    base_uri: lambda { |connection| connection['base_url'] }
  },
  test: lambda { |_connection| get('/me') },
  webhook_keys: lambda { |_params, _headers, payload| payload['account'] },
  actions: {
    ping: { title: 'Ping', execute: lambda { |_connection, _input| get('/me') } }
  },
  triggers: {
    new_event: {
      title: 'New event',
      webhook_key: lambda { |connection, _input| connection['account'] },
      webhook_notification: lambda { |_input, payload| payload['events'] },
      dedup: lambda { |event| event['id'] },
      output_fields: lambda { |_| [{ name: 'id' }] }
    }
  }
}
`;

describe('a static webhook key made from values a refresh gives', () => {
  test("a job's refresh that brings another account moves the running recipe's key", async () => {
    let issued = 0;
    let valid = '';
    const api = http.createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.method === 'POST' && req.url === '/token') {
        issued++;
        valid = `t${issued}`;
        res.end(JSON.stringify({ access_token: valid, account: `A${issued}` }));
        return;
      }
      if (req.headers.authorization !== `Bearer ${valid}`) {
        res.statusCode = 401;
        res.end('{"error":"expired"}');
        return;
      }
      res.end(JSON.stringify({ ok: true }));
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
      const made = await t.call('POST', '/api/custom_connectors', {
        body: { title: 'Acme Accounts', code: ACCOUNT_CODE },
      });
      assert.equal(made.status, 200, made.text);
      const accountConnector = made.body.data.id as number;
      const accountProvider = made.body.data.name as string;
      assert.equal((await t.call('POST', `/api/custom_connectors/${accountConnector}/release`)).status, 200);
      const connection = await t.call('POST', '/api/connections', {
        body: { name: 'Accounts', provider: accountProvider, input: { base_url: base }, shell_connection: false },
      });
      assert.equal(connection.body.authorization_status, 'success', connection.text);
      const code = numbered({
        keyword: 'trigger',
        provider: accountProvider,
        name: 'new_event',
        as: 'ev',
        input: {},
        block: [{ keyword: 'action', provider: accountProvider, name: 'ping', as: 'ping', input: {} }],
      });
      const recipe = await t.call('POST', '/api/recipes', {
        body: {
          recipe: {
            name: 'Accounts',
            code: JSON.stringify(code),
            config: JSON.stringify([
              { keyword: 'application', provider: accountProvider, account_id: connection.body.id },
            ]),
          },
        },
      });
      assert.equal(recipe.status, 200, recipe.text);
      const id = recipe.body.id as number;
      assert.equal((await t.call('PUT', `/api/recipes/${id}/start`)).status, 200);
      const keyOf = async () =>
        (
          await t.ctx.db
            .selectFrom('static_webhook_keys')
            .select('key_hash')
            .where('recipe_id', '=', id)
            .executeTakeFirst()
        )?.key_hash ?? null;
      assert.equal(await keyOf(), sha256('A1'));

      valid = 'expired'; // the service ends the token: the job's ping acquires again (account A2)
      const call = await post(accountConnector, { account: 'A1', events: [{ id: 'e1' }] });
      assert.equal(call.statusCode, 200, call.body);
      await t.engine.idle();
      assert.equal(issued, 2);
      await waitFor(keyOf, (hash) => hash === sha256('A2'), 'the key follows the refreshed account');
      const late = await post(accountConnector, { account: 'A1', events: [{ id: 'e2' }] });
      assert.equal(late.statusCode, 200, late.body);
      const moved = await post(accountConnector, { account: 'A2', events: [{ id: 'e3' }] });
      assert.equal(moved.statusCode, 200, moved.body);
      await t.engine.idle();
      const jobs = await t.ctx.db.selectFrom('jobs').select('status').where('recipe_id', '=', id).execute();
      assert.deepEqual(
        jobs.map((j) => j.status),
        ['succeeded', 'succeeded'],
        'e1 and e3 ran; e2 had the old key',
      );
    } finally {
      api.closeAllConnections();
      await new Promise<void>((resolve) => api.close(() => resolve()));
    }
  });
});
