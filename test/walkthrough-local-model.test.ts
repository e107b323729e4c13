// The guide "Run AI steps and Genies on a local model" (docs/guides/local-model.md), its try-it
// section request by request: the model connection as the guide writes it (pointed at a stand-in
// Chat Completions server on loopback instead of Ollama), the example recipe, a ticket posted to its
// webhook, the lookup table it fills read back; each answer the guide shows must appear in it as written.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from './helpers.ts';
import { startModelStandIn, type ModelStandIn } from './stand-ins/chat-completions.ts';

const example = (name: string) => readFileSync(new URL(`../docs/examples/${name}`, import.meta.url), 'utf8');
const guide = readFileSync(new URL('../docs/guides/local-model.md', import.meta.url), 'utf8');

function shows(text: string): void {
  assert.ok(guide.includes(text), `the guide shows ${text}`);
}

/** The JSON the guide gives as a `-d '...'` after `marker`, as written. */
function bodyAfter(marker: string): unknown {
  const start = guide.indexOf(marker);
  assert.ok(start >= 0, `the guide has ${marker}`);
  const open = guide.indexOf("-d '", start) + 4;
  return JSON.parse(guide.slice(open, guide.indexOf("'", open)));
}

let t: TestApp;
let model: ModelStandIn;
before(async () => {
  t = await createTestApp();
  model = await startModelStandIn({ model: 'llama3.2' });
});
after(async () => {
  await t.close();
  await model.close();
});

describe('guide: AI steps on a local model', () => {
  test('the model connection, the example recipe, a ticket through its webhook, the lines read back', async () => {
    model.setScript((request) => {
      const system = String(request.messages[0]?.content ?? '');
      return {
        content: system.startsWith('Summarize') ? 'Charged twice for order 42; no reply to e-mails.' : 'Billing',
      };
    });
    // The connection as written, its base_url pointed at the stand-in.
    const connection = bodyAfter('curl -s -X POST localhost:3000/api/connections') as {
      input: Record<string, string>;
    };
    assert.equal(connection.input.base_url, 'http://127.0.0.1:11434/v1');
    connection.input.base_url = model.baseUrl;
    const created = await t.call('POST', '/api/connections', { body: connection });
    assert.equal(created.status, 200, created.text);
    assert.equal(created.body.provider, 'openai_compatible');
    shows(`"provider":"openai_compatible","authorization_status":"${created.body.authorization_status}"`);

    const table = await t.call('POST', '/api/lookup_tables', {
      body: bodyAfter('TABLE=$(curl -s "${H[@]}" $SB/api/lookup_tables') as object,
    });
    assert.equal(table.status, 200, table.text);
    shows('curl -s "${H[@]}" $SB/api/recipes -d @docs/examples/ticket-summary.recipe.json');
    const recipe = await t.call('POST', '/api/recipes', {
      raw: example('ticket-summary.recipe.json'),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(recipe.status, 200, recipe.text);
    shows('curl -s -X PUT "${H[@]}" $SB/api/recipes/$RECIPE/start');
    const started = await t.call('PUT', `/api/recipes/${recipe.body.id}/start`);
    assert.equal(started.status, 200, started.text);
    shows(`# ${JSON.stringify(started.body)}`);

    const ticket = bodyAfter("curl -s $HOOK -H 'Content-Type: application/json'");
    const hook = new URL((await t.call('GET', `/api/recipes/${recipe.body.id}`)).body.webhook_url as string);
    const posted = await t.app.inject({ method: 'POST', url: hook.pathname, payload: ticket as object });
    assert.equal(posted.statusCode, 200, posted.body);
    shows(`# ${posted.body}`);
    await t.engine.idle();

    shows('curl -s "${H[@]}" $SB/api/recipes/$RECIPE/jobs | jq -c \'.items[] | {status, error}\'');
    const jobs = await t.call('GET', `/api/recipes/${recipe.body.id}/jobs`);
    assert.equal(jobs.body.items.length, 1);
    shows(`# ${JSON.stringify({ status: jobs.body.items[0].status, error: jobs.body.items[0].error })}`);
    assert.equal(jobs.body.items[0].status, 'succeeded', JSON.stringify(jobs.body.items[0]));

    shows('curl -s "${H[@]}" $SB/api/lookup_tables/$TABLE/rows | jq -c \'.[].data | {summary, category}\'');
    const rows = await t.call('GET', `/api/lookup_tables/${table.body.id}/rows`);
    assert.equal(rows.status, 200, rows.text);
    assert.equal(rows.body.length, 1);
    assert.equal(rows.body[0].data.text, (ticket as { text: string }).text);
    const filed = { summary: rows.body[0].data.summary, category: rows.body[0].data.category };
    shows(`# ${JSON.stringify(filed)}`);
    assert.deepEqual(filed, { summary: 'Charged twice for order 42; no reply to e-mails.', category: 'Billing' });
    // Two model calls, each with the ticket's text, to the model the connection names.
    assert.equal(model.requests.length, 2);
    for (const request of model.requests) {
      assert.equal(request.model, 'llama3.2');
      assert.match(JSON.stringify(request.messages), /charged twice for order 42/);
      assert.equal(request.authorization, undefined, 'an empty api_key sends no Authorization');
    }
  });
});
