// MCP calls held to their limits: a recipe's job backlog and a server's rate limit, each on an
// app of its own (a backlog setting, a manual clock), with the call's reply in JSON-RPC's shape.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { createTestApp } from '../../test/helpers.ts';
import { manualClock } from '../time.ts';
import { action, createRecipe, numbered, pill, skillRecipe, startRecipe, type StepDoc } from '../../test/recipes.ts';

const skillCode = (): StepDoc =>
  skillRecipe('Greet a person by name.', [{ name: 'name', label: 'Name', type: 'string', optional: false }], {
    greeting: `Hello #{${pill('workato_skill', 'start', 'parameters', 'name').slice(2, -1)}}`,
  });

describe('POST /mcp/:handle when the recipe is saturated', () => {
  test("calls beyond the recipe's job backlog answer 429 with a JSON-RPC error; the admitted ones finish", async () => {
    const busy = await createTestApp({ env: { JOB_BACKLOG_PER_RECIPE: '2', MCP_CALL_TIMEOUT_MS: '20000' } });
    try {
      await busy.app.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(busy.app.server.address() as AddressInfo).port}`;
      const slow = skillCode();
      (slow.block as StepDoc[]).unshift(action('clock', 'wait_for_interval', 'wait', { interval: '1' }));
      const recipeId = await createRecipe(busy, numbered(slow), { name: 'Slow greet', concurrency: 1 });
      await startRecipe(busy, recipeId);
      const folder = (await busy.createProject('Busy')).folderId;
      const server = await busy.call('POST', '/api/mcp/mcp_servers', { body: { name: 'Busy', folder_id: folder } });
      const handle = server.body.data.id as string;
      await busy.call('POST', `/api/mcp/mcp_servers/${handle}/assign_tools`, {
        body: { tools: [{ id: String(recipeId) }] },
      });
      const url = new URL(server.body.data.mcp_url as string);
      const replies = await Promise.all(
        Array.from({ length: 8 }, async (_, i) => {
          const res = await fetch(`${base}${url.pathname}${url.search}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: i,
              method: 'tools/call',
              params: { name: 'Slow_greet', arguments: { name: `n${i}` } },
            }),
          });
          return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
        }),
      );
      const refused = replies.filter((r) => r.status === 429);
      const done = replies.filter((r) => r.status === 200);
      assert.ok(refused.length >= 1, JSON.stringify(replies));
      assert.ok(done.length >= 2, JSON.stringify(replies));
      for (const r of refused) {
        assert.equal(r.body.error.code, -32000);
        assert.match(r.body.error.message, /Too many pending jobs/);
        assert.ok(Number(r.retryAfter) >= 1);
      }
      for (const r of done) assert.equal(r.body.result.isError, false);
      const jobs = await busy.ctx.db.selectFrom('jobs').select('id').where('recipe_id', '=', recipeId).execute();
      assert.equal(jobs.length, done.length, 'a refused call stores no job');
    } finally {
      await busy.close();
    }
  });
});

describe('POST /mcp/:handle rate limit', () => {
  test('calls past the rate limit of the minute answer 429; the next minute admits them again', async () => {
    const clock = manualClock('2026-03-02T10:00:10.000Z');
    const app = await createTestApp({ clock, env: { MCP_CALL_TIMEOUT_MS: '30000' } });
    try {
      const recipeId = await createRecipe(app, skillCode(), { name: 'Greet' });
      await startRecipe(app, recipeId);
      const folder = (await app.createProject('Rates')).folderId;
      const server = await app.call('POST', '/api/mcp/mcp_servers', { body: { name: 'Rates', folder_id: folder } });
      const handle = server.body.data.id as string;
      await app.call('POST', `/api/mcp/mcp_servers/${handle}/assign_tools`, {
        body: { tools: [{ id: String(recipeId) }] },
      });
      await app.call('PUT', `/api/mcp/mcp_servers/${handle}/server_policies`, {
        body: { mcp_server_policy: { rate_limits: { limit: 2, interval: 'minute' } } },
      });
      const url = new URL(server.body.data.mcp_url as string);
      const call = async (i: number) => {
        const res = await app.app.inject({
          method: 'POST',
          url: `${url.pathname}${url.search}`,
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          payload: JSON.stringify({
            jsonrpc: '2.0',
            id: i,
            method: 'tools/call',
            params: { name: 'Greet', arguments: { name: `n${i}` } },
          }),
        });
        return { status: res.statusCode, retryAfter: res.headers['retry-after'], body: JSON.parse(res.body) };
      };
      assert.equal((await call(1)).status, 200);
      assert.equal((await call(2)).status, 200);
      const third = await call(3);
      assert.equal(third.status, 429);
      assert.equal(third.body.error.code, -32000);
      assert.equal(third.body.error.message, 'Rate limit exceeded');
      assert.equal(third.retryAfter, '50');
      clock.advance(60_000);
      const next = await call(4);
      assert.equal(next.status, 200);
      assert.deepEqual(next.body.result.structuredContent, { greeting: 'Hello n4' });
    } finally {
      await app.close();
    }
  });
});
