// MCP servers on two server processes sharing one PostgreSQL database: a server made on one node is
// served by the other to the official MCP SDK client, its calls are jobs any node lists and are
// answered with the tool's result whichever node ran the job, a quota holds across both nodes,
// and a renewed token is refused by the other node at once. PostgreSQL only.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { tempDir } from './helpers.ts';
import { api, startServer, type Running } from './process-helpers.ts';
import { pill, skillRecipe } from './recipes.ts';
import { freshPostgresDatabase, postgresOnly } from './test-database.ts';

const ADMIN = `wrkdev-mcpnodes${'0'.repeat(49)}`;

/** The server's URL as its node `base` serves it (the token in its query when it has one). */
const on = (base: string, mcpUrl: string) => {
  const url = new URL(mcpUrl);
  return `${base}${url.pathname}${url.search}`;
};

function callTool(url: string, id: number, name: string) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'Greet', arguments: { name } } }),
  }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, any> })); // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe(
  'MCP servers on two nodes sharing one PostgreSQL database',
  { skip: postgresOnly('two server processes') },
  () => {
    const nodes: Running[] = [];
    after(async () => {
      for (const node of nodes)
        if (node.child.exitCode === null && node.child.signalCode === null) node.child.kill('SIGKILL');
      await Promise.all(nodes.map((node) => node.exited));
    });

    test('made on one node, served by the other; jobs, a quota and a renewed token hold across both', async () => {
      const env = {
        DATABASE_URL: await freshPostgresDatabase(),
        SWITCHBOARD_ADMIN_TOKEN: ADMIN,
        SWITCHBOARD_SECRET_KEY: randomBytes(32).toString('hex'),
        NODE_LEASE_MS: '3000',
      };
      // The first node migrates and makes the workspace; the second joins it.
      for (const name of ['a', 'b']) nodes.push(await startServer(tempDir(`sb-mcp-node-${name}-`), env));
      const [a, b] = nodes as [Running, Running];
      const call = (node: Running, method: string, path: string, body?: unknown) =>
        api(node.baseUrl, method, path, ADMIN, body);

      const folder = await call(a, 'POST', '/api/folders', { name: 'Agents' });
      assert.equal(folder.status, 200, JSON.stringify(folder.body));
      const code = skillRecipe('Greet a person by name.', [{ name: 'name', type: 'string', optional: false }], {
        greeting: `Hello #{${pill('workato_skill', 'start', 'parameters', 'name').slice(2, -1)}}`,
      });
      const recipe = await call(a, 'POST', '/api/recipes', {
        recipe: { name: 'Greet', code: JSON.stringify(code), folder_id: folder.body.id },
      });
      assert.equal(recipe.status, 200, JSON.stringify(recipe.body));
      const recipeId: number = recipe.body.id;
      assert.deepEqual((await call(a, 'PUT', `/api/recipes/${recipeId}/start`)).body, { success: true });

      const makeServer = async (name: string) => {
        const created = await call(a, 'POST', '/api/mcp/mcp_servers', { name, folder_id: folder.body.id });
        assert.equal(created.status, 200, JSON.stringify(created.body));
        const handle: string = created.body.data.id;
        const assigned = await call(a, 'POST', `/api/mcp/mcp_servers/${handle}/assign_tools`, {
          tools: [{ trigger_application: 'workato_skill', id: String(recipeId) }],
        });
        assert.equal(assigned.status, 200, JSON.stringify(assigned.body));
        return { handle, mcpUrl: created.body.data.mcp_url as string };
      };

      // Made on a, served by b to the SDK client; the call is a job a lists.
      const server = await makeServer('Across nodes');
      const client = new Client({ name: 'switchboard-nodes-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(on(b.baseUrl, server.mcpUrl))));
      try {
        const { tools } = await client.listTools();
        assert.deepEqual(
          tools.map((tool) => [tool.name, tool.description]),
          [['Greet', 'Greet a person by name.']],
        );
        const result = await client.callTool({ name: 'Greet', arguments: { name: 'Ada' } });
        assert.deepEqual(result.structuredContent, { greeting: 'Hello Ada' });
      } finally {
        await client.close();
      }
      const jobs = await call(a, 'GET', `/api/recipes/${recipeId}/jobs`);
      assert.equal(jobs.status, 200);
      assert.deepEqual(
        jobs.body.items.map((job: { status: string }) => job.status),
        ['succeeded'],
      );

      // A quota of 3 over 30 days, six calls at once, three on each node: three answered, three refused.
      const limited = await makeServer('Limited');
      const policy = await call(b, 'PUT', `/api/mcp/mcp_servers/${limited.handle}/server_policies`, {
        mcp_server_policy: { quota_limits: { limit: 3, interval: '30 days' } },
      });
      assert.equal(policy.status, 200, JSON.stringify(policy.body));
      const replies = await Promise.all(
        [a, b, a, b, a, b].map((node, i) => callTool(on(node.baseUrl, limited.mcpUrl), i + 1, `n${i}`)),
      );
      assert.deepEqual(replies.map((r) => r.status).sort(), [200, 200, 200, 429, 429, 429]);
      // Each call answered is the tool's result, whichever node ran its job (a timeout is a 200 too).
      replies.forEach((r, i) => {
        if (r.status === 200)
          assert.deepEqual(r.body.result, {
            content: [{ type: 'text', text: JSON.stringify({ greeting: `Hello n${i}` }) }],
            structuredContent: { greeting: `Hello n${i}` },
            isError: false,
          });
      });
      for (const r of replies.filter((reply) => reply.status === 429)) {
        assert.equal(r.body.error.code, -32000);
        assert.equal(r.body.error.message, 'Quota exceeded');
      }
      const afterQuota = await call(b, 'GET', `/api/recipes/${recipeId}/jobs`);
      assert.equal(afterQuota.body.items.length, 1 + 3, 'a refused call stores no job');

      // The token renewed on a: b refuses the old one and serves the new one.
      const renewed = await call(a, 'POST', `/api/mcp/mcp_servers/${server.handle}/token_renew`);
      assert.equal(renewed.status, 200, JSON.stringify(renewed.body));
      const old = await callTool(on(b.baseUrl, server.mcpUrl), 1, 'old');
      assert.equal(old.status, 401);
      assert.equal(typeof old.body.error.message, 'string');
      const fresh = await callTool(on(b.baseUrl, renewed.body.data.mcp_url), 2, 'new');
      assert.equal(fresh.status, 200);
      assert.deepEqual(fresh.body.result.structuredContent, { greeting: 'Hello new' });
      assert.equal(fresh.body.result.isError, false);
    });
  },
);
