// MCP servers end to end: the vendor's CLI calls (contract 23 §1-2) through HTTP, then the
// official MCP TypeScript SDK as the client of /mcp/<handle> over a real socket: tools listed
// with their JSON Schema, called as jobs, each caller seeing only what it may; and bad input.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { SignJWT } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTestApp, type TestApp } from '../../test/helpers.ts';
import { action, createRecipe, numbered, pill, startRecipe, type StepDoc } from '../../test/recipes.ts';

let t: TestApp;
let origin: string;
let project: { folderId: number; projectId: number };
let skillRecipeId: number;
let endpointRecipeId: number;
let collectionId: number;
let apiClientId: number;

const skillCode = (): StepDoc =>
  numbered({
    keyword: 'trigger',
    provider: 'workato_skill',
    name: 'start_workflow',
    as: 'start',
    input: {
      description: 'Greet a person by name.',
      parameters_schema_json: JSON.stringify([
        { name: 'name', label: 'Name', type: 'string', optional: false },
        { name: 'times', type: 'integer', optional: true },
      ]),
    },
    block: [
      action('workato_skill', 'workflow_return_result', 'ret', {
        result: { greeting: `Hello #{${pill('workato_skill', 'start', 'parameters', 'name').slice(2, -1)}}` },
      }),
    ],
  });

const endpointCode = (): StepDoc =>
  numbered({
    keyword: 'trigger',
    provider: 'workato_api_platform',
    name: 'receive_request',
    as: 'req',
    input: {
      request: {
        content_type: 'json',
        schema: JSON.stringify([{ name: 'sku', label: 'SKU', type: 'string', optional: false }]),
      },
    },
    block: [
      action('workato_api_platform', 'return_response', 'resp', {
        http_status_code: '200',
        response: { sku: pill('workato_api_platform', 'req', 'request', 'sku'), stock: '7' },
      }),
    ],
  });

before(async () => {
  t = await createTestApp({ env: { MCP_CALL_TIMEOUT_MS: '30000' } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  project = await t.createProject('Agents');
  skillRecipeId = await createRecipe(t, skillCode(), { name: 'Greet person', folder_id: project.folderId });
  await startRecipe(t, skillRecipeId);
  endpointRecipeId = await createRecipe(t, endpointCode(), { name: 'Stock level', folder_id: project.folderId });
  await startRecipe(t, endpointRecipeId);
  collectionId = (
    await t.call('POST', '/api/api_collections', { body: { name: 'Inventory', project_id: project.projectId } })
  ).body.id;
  const e = await t.call('POST', `/api/api_collections/${collectionId}/api_endpoints`, {
    body: { name: 'Stock level', method: 'POST', path: 'stock', flow_id: endpointRecipeId },
  });
  assert.equal((await t.call('PUT', `/api/api_endpoints/${e.body.id}/enable`)).status, 200);
  apiClientId = (await t.call('POST', '/api/api_clients', { body: { name: 'Agents', project_id: project.projectId } }))
    .body.id;
});
after(() => t.close());

/** What `wk mcp servers create --recipe R`: GET the recipe, create, assign_tools, GET the server. */
async function createServerWithTools(name: string, recipeIds: number[]) {
  const created = await t.call('POST', '/api/mcp/mcp_servers', { body: { name, folder_id: project.folderId } });
  assert.equal(created.status, 200, created.text);
  const tools = [];
  for (const id of recipeIds) {
    const recipe = await t.call('GET', `/api/recipes/${id}`);
    assert.equal(typeof recipe.body.trigger_application, 'string', 'wk needs trigger_application');
    tools.push({ trigger_application: recipe.body.trigger_application, id: String(id) });
  }
  const handle = created.body.data.id as string;
  if (tools.length > 0) {
    const assigned = await t.call('POST', `/api/mcp/mcp_servers/${handle}/assign_tools`, { body: { tools } });
    assert.equal(assigned.status, 200, assigned.text);
  }
  return { handle, mcpUrl: created.body.data.mcp_url as string, created: created.body.data };
}

function localUrl(mcpUrl: string): URL {
  const url = new URL(mcpUrl);
  return new URL(`${origin}${url.pathname}${url.search}`);
}

async function sdkClient(url: URL, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'switchboard-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}

async function rpc(path: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
}

describe('the vendor CLI on /api/agentic/skills and /api/mcp/mcp_servers', () => {
  test('skills: create from a skill recipe (string id, recipe id in both fields), get, list; other recipes refused', async () => {
    const created = await t.call('POST', '/api/agentic/skills', { body: { recipe_id: skillRecipeId } });
    assert.equal(created.status, 200, created.text);
    const skill = created.body.data;
    assert.match(skill.id, /^skill-/);
    assert.equal(skill.recipe_id, skillRecipeId);
    assert.equal(skill.provider_id, skillRecipeId);
    assert.equal(skill.name, 'Greet person');
    assert.equal(skill.trigger_description, 'Greet a person by name.');
    assert.equal(skill.running, true);
    assert.equal(skill.folder_id, project.folderId);
    assert.equal(skill.project_id, project.projectId);
    const again = await t.call('POST', '/api/agentic/skills', { body: { recipe_id: String(skillRecipeId) } });
    assert.equal(again.body.data.id, skill.id, 'one skill per recipe');
    assert.deepEqual((await t.call('GET', `/api/agentic/skills/${skill.id}`)).body, { data: skill });
    const list = await t.call('GET', '/api/agentic/skills');
    assert.deepEqual(
      list.body.data.map((s: { id: string }) => s.id),
      [skill.id],
    );
    const notSkill = await t.call('POST', '/api/agentic/skills', { body: { recipe_id: endpointRecipeId } });
    assert.equal(notSkill.status, 422);
    assert.match(notSkill.body.message, /is not a skill: its trigger is workato_api_platform/);
    assert.equal((await t.call('POST', '/api/agentic/skills', { body: { recipe_id: 999999 } })).status, 400);
    assert.equal((await t.call('POST', '/api/agentic/skills', { body: { recipe_id: 'x' } })).status, 400);
    assert.equal((await t.call('POST', '/api/agentic/skills', { body: {} })).status, 400);
    assert.equal((await t.call('GET', '/api/agentic/skills/skill-nope')).status, 404);
    assert.equal((await t.call('GET', '/api/agentic/skills', { token: null })).status, 401);
  });

  test('servers: create, assign a skill, get (tools_count), tools, update a tool, token_renew, list, update, delete', async () => {
    const { handle, mcpUrl, created } = await createServerWithTools('Support tools', [skillRecipeId]);
    assert.match(handle, /^mcps-/);
    assert.match(mcpUrl, new RegExp(`/mcp/${handle}\\?token=wkmcp-[0-9a-f]{64}$`));
    assert.equal(created.folder_id, project.folderId);
    assert.equal(created.project_id, project.projectId);
    assert.equal(created.auth_type, 'token');
    assert.equal(created.asset_type, 'project_assets');
    assert.equal(created.api_collection, null);

    const got = await t.call('GET', `/api/mcp/mcp_servers/${handle}`);
    assert.equal(got.body.data.tools_count, 1);
    assert.ok(!got.body.data.mcp_url.includes('token='), 'the token is shown only when made');

    const tools = await t.call('GET', `/api/mcp/mcp_servers/${handle}/tools?per_page=100`);
    assert.equal(tools.status, 200);
    assert.equal(tools.body.items.length, 1);
    const tool = tools.body.items[0];
    assert.equal(tool.flow_id, skillRecipeId);
    assert.equal(tool.name, 'Greet_person');
    assert.equal(tool.trigger_application, 'workato_skill');
    assert.equal(tool.description, 'Greet a person by name.');
    assert.equal(tool.active, true);
    assert.equal(typeof tool.id, 'number');

    const updated = await t.call('PUT', `/api/mcp/mcp_servers/${handle}/tools/${tool.id}`, {
      body: { description: 'Say hello to someone.' },
    });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.body.description, 'Say hello to someone.');
    assert.equal(updated.body.original_description, 'Greet a person by name.');

    const renewed = await t.call('POST', `/api/mcp/mcp_servers/${handle}/token_renew`);
    assert.equal(renewed.status, 200);
    const newUrl = renewed.body.data.mcp_url as string;
    assert.notEqual(newUrl, mcpUrl);
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    assert.equal(
      (await rpc(localUrl(mcpUrl).pathname + localUrl(mcpUrl).search, init)).status,
      401,
      'the old token stops working',
    );
    assert.equal((await rpc(localUrl(newUrl).pathname + localUrl(newUrl).search, init)).status, 200);

    const list = await t.call('GET', `/api/mcp/mcp_servers?folder_id=${project.folderId}&authentication_method=token`);
    assert.ok(list.body.data.some((s: { id: string }) => s.id === handle));
    assert.deepEqual((await t.call('GET', '/api/mcp/mcp_servers?project_id=999999')).body, { data: [] });

    const renamed = await t.call('PUT', `/api/mcp/mcp_servers/${handle}`, {
      body: { name: 'Desk tools', description: 'For the desk' },
    });
    assert.equal(renamed.body.data.name, 'Desk tools');
    assert.equal(renamed.body.data.description, 'For the desk');

    assert.equal((await t.call('DELETE', `/api/mcp/mcp_servers/${handle}/tools/${tool.id}`)).status, 200);
    assert.equal((await t.call('GET', `/api/mcp/mcp_servers/${handle}`)).body.data.tools_count, 0);
    assert.equal((await t.call('DELETE', `/api/mcp/mcp_servers/${handle}/tools/${tool.id}`)).status, 404);
    assert.equal((await t.call('DELETE', `/api/mcp/mcp_servers/${handle}`)).status, 200);
    assert.equal((await t.call('GET', `/api/mcp/mcp_servers/${handle}`)).status, 404);
    assert.equal((await rpc(`/mcp/${handle}`, init)).status, 404);
  });

  test('policies, user groups and a server over an API collection', async () => {
    const { handle } = await createServerWithTools('Policy', [skillRecipeId]);
    const empty = await t.call('GET', `/api/mcp/mcp_servers/${handle}/server_policies`);
    assert.deepEqual(
      { ...empty.body, created_at: null },
      {
        id: null,
        mcp_server_id: handle,
        rate_limits: null,
        quota_limits: null,
        ip_allow_list: [],
        ip_deny_list: [],
        created_at: null,
        updated_at: null,
      },
    );
    const set = await t.call('PUT', `/api/mcp/mcp_servers/${handle}/server_policies`, {
      body: { mcp_server_policy: { rate_limits: { limit: 100, interval: 'minute' }, ip_deny_list: ['10.0.0.0/8'] } },
    });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(set.body.rate_limits, { limit: 100, interval: 'minute' });
    assert.deepEqual(set.body.ip_deny_list, ['10.0.0.0/8']);
    const badIp = await t.call('PUT', `/api/mcp/mcp_servers/${handle}/server_policies`, {
      body: { mcp_server_policy: { ip_allow_list: ['not-an-ip'] } },
    });
    assert.equal(badIp.status, 400);
    const badInterval = await t.call('PUT', `/api/mcp/mcp_servers/${handle}/server_policies`, {
      body: { mcp_server_policy: { quota_limits: { limit: 5, interval: 'week' } } },
    });
    assert.equal(badInterval.status, 400);

    assert.deepEqual((await t.call('GET', '/api/mcp/user_groups')).body, { data: [] });
    const assign = await t.call('POST', `/api/mcp/mcp_servers/${handle}/assign_user_groups`, {
      body: { idp_user_group_ids: ['g1'] },
    });
    assert.equal(assign.status, 422);
    assert.match(assign.body.message, /no identity provider/);
    assert.equal(
      (
        await t.call('POST', `/api/mcp/mcp_servers/${handle}/remove_user_groups`, {
          body: { idp_user_group_ids: ['g1'] },
        })
      ).status,
      200,
    );

    const overCollection = await t.call('POST', '/api/mcp/mcp_servers', {
      body: { name: 'Inventory MCP', folder_id: project.folderId, asset_id: collectionId },
    });
    assert.equal(overCollection.status, 200, overCollection.text);
    assert.equal(overCollection.body.data.asset_type, 'api_collection');
    assert.equal(overCollection.body.data.api_collection.id, collectionId);
    assert.equal(overCollection.body.data.tools_count, 1);
    const collectionTools = await t.call('GET', `/api/mcp/mcp_servers/${overCollection.body.data.id}/tools`);
    assert.equal(collectionTools.body.items[0].flow_id, endpointRecipeId);
    const refused = await t.call('POST', `/api/mcp/mcp_servers/${overCollection.body.data.id}/assign_tools`, {
      body: { tools: [{ id: String(skillRecipeId) }] },
    });
    assert.equal(refused.status, 422);
  });

  test('bad input: unknown ids, wrong types, non-tools, missing privilege, malformed JSON', async () => {
    const { handle } = await createServerWithTools('Bad input', []);
    const plain = await createRecipe(
      t,
      numbered({ keyword: 'trigger', provider: 'clock', name: 'scheduled_event', as: 's', input: {}, block: [] }),
    );
    const cases: Array<[string, string, unknown, number, RegExp?]> = [
      ['POST', '/api/mcp/mcp_servers', { name: 'x', folder_id: 999999 }, 400, /Folder_id is not a folder/],
      ['POST', '/api/mcp/mcp_servers', { name: 'x', folder_id: '1' }, 400],
      ['POST', '/api/mcp/mcp_servers', { folder_id: project.folderId }, 400],
      ['POST', '/api/mcp/mcp_servers', { name: 'x', folder_id: project.folderId, asset_id: 999999 }, 422],
      ['POST', `/api/mcp/mcp_servers/${handle}/assign_tools`, { tools: [{ id: '999999' }] }, 422, /not a recipe/],
      [
        'POST',
        `/api/mcp/mcp_servers/${handle}/assign_tools`,
        { tools: [{ id: String(plain) }] },
        422,
        /cannot be a tool: its trigger is clock/,
      ],
      [
        'POST',
        `/api/mcp/mcp_servers/${handle}/assign_tools`,
        { tools: [{ trigger_application: 'clock', id: String(skillRecipeId) }] },
        422,
        /not clock/,
      ],
      ['POST', `/api/mcp/mcp_servers/${handle}/assign_tools`, { tools: [] }, 400],
      ['POST', `/api/mcp/mcp_servers/mcps-unknown/assign_tools`, { tools: [{ id: String(skillRecipeId) }] }, 404],
      ['PUT', `/api/mcp/mcp_servers/${handle}`, { auth_type: 'password' }, 400],
      ['PUT', `/api/mcp/mcp_servers/${handle}/tools/abc`, { description: 'x' }, 400],
      ['PUT', `/api/mcp/mcp_servers/${handle}/tools/999999`, { description: 'x' }, 404],
      ['GET', '/api/mcp/mcp_servers/mcps-unknown', undefined, 404],
      ['POST', '/api/mcp/mcp_servers/mcps-unknown/token_renew', undefined, 404],
    ];
    for (const [method, url, body, status, message] of cases) {
      const res = await t.call(method as 'POST', url, body === undefined ? {} : { body });
      assert.equal(res.status, status, `${method} ${url} ${JSON.stringify(body)}: ${res.text}`);
      assert.equal(typeof res.body.message, 'string');
      if (message) assert.match(res.body.message, message);
    }
    assert.equal(
      (await t.call('GET', `/api/mcp/mcp_servers/${handle}`)).body.data.tools_count,
      0,
      'nothing was assigned',
    );
    const malformed = await t.call('POST', '/api/mcp/mcp_servers', {
      raw: '{"name":',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.status, 400);
    assert.deepEqual(malformed.body, { message: 'Malformed JSON in request body' });
    const serversBefore = (await t.call('GET', '/api/mcp/mcp_servers')).body.data.length;
    const form = await t.call('POST', '/api/mcp/mcp_servers', {
      raw: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.status, 415);
    assert.match(form.body.message, /Unsupported Content-Type/);
    const big = await t.call('POST', '/api/mcp/mcp_servers', {
      body: { name: 'x'.repeat(2 * 1024 * 1024), folder_id: project.folderId },
    });
    assert.equal(big.status, 413);
    assert.deepEqual(big.body, { message: 'Request body is too large' });
    const bigSkill = await t.call('POST', '/api/agentic/skills', {
      body: { recipe_id: skillRecipeId, x: 'x'.repeat(2 * 1024 * 1024) },
    });
    assert.equal(bigSkill.status, 413);
    assert.equal((await t.call('GET', '/api/mcp/mcp_servers')).body.data.length, serversBefore, 'nothing was created');
    const readOnly = await t.tokenFor('Read only');
    assert.equal((await t.call('GET', `/api/mcp/mcp_servers/${handle}`, { token: readOnly })).status, 200);
    assert.equal((await t.call('POST', `/api/mcp/mcp_servers/${handle}/token_renew`, { token: readOnly })).status, 403);
    assert.equal((await t.call('GET', '/api/mcp/mcp_servers', { token: null })).status, 401);
    // Another workspace sees none of it.
    const other = await t.newWorkspace('Elsewhere');
    assert.equal((await t.call('GET', `/api/mcp/mcp_servers/${handle}`, { token: other.adminToken })).status, 404);
  });
});

describe('MCP over Streamable HTTP with the official SDK client', () => {
  test('the server token lists the skill and the endpoint with their JSON Schema and calls them as jobs', async () => {
    const { handle, mcpUrl } = await createServerWithTools('All tools', [skillRecipeId, endpointRecipeId]);
    const client = await sdkClient(localUrl(mcpUrl));
    try {
      assert.equal(client.getServerVersion()?.name, 'All tools');
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((tool) => [tool.name, tool.description, tool.inputSchema]),
        [
          [
            'Greet_person',
            'Greet a person by name.',
            {
              type: 'object',
              properties: { name: { type: 'string', description: 'Name' }, times: { type: 'integer' } },
              required: ['name'],
            },
          ],
          [
            'Stock_level',
            '',
            { type: 'object', properties: { sku: { type: 'string', description: 'SKU' } }, required: ['sku'] },
          ],
        ],
      );
      const before = (await t.call('GET', `/api/recipes/${skillRecipeId}`)).body.job_succeeded_count as number;
      const greeted = await client.callTool({ name: 'Greet_person', arguments: { name: 'Ada' } });
      assert.equal(greeted.isError, false);
      assert.deepEqual(greeted.structuredContent, { greeting: 'Hello Ada' });
      assert.deepEqual(greeted.content, [{ type: 'text', text: '{"greeting":"Hello Ada"}' }]);
      const stock = await client.callTool({ name: 'Stock_level', arguments: { sku: 'A-1' } });
      assert.deepEqual(stock.structuredContent, { sku: 'A-1', stock: '7' });
      // Calls are jobs like any other: listed and counted with the recipe.
      const jobs = await t.call('GET', `/api/recipes/${skillRecipeId}/jobs`);
      assert.ok(jobs.body.items.length >= 1);
      assert.equal((await t.call('GET', `/api/recipes/${skillRecipeId}`)).body.job_succeeded_count, before + 1);
      // ... and repeated like any other.
      const repeated = await t.call('POST', `/api/recipes/${skillRecipeId}/repeat_jobs`, {
        body: { job_ids: [jobs.body.items[0].id] },
      });
      assert.equal(repeated.body.results[0].status, 'enqueued', repeated.text);
      await t.engine.idle();
      assert.equal((await t.call('GET', `/api/recipes/${skillRecipeId}`)).body.job_succeeded_count, before + 2);

      const invalid = await client.callTool({ name: 'Greet_person', arguments: { times: 'many' } });
      assert.equal(invalid.isError, true);
      assert.match(JSON.stringify(invalid.content), /parameter \\"name\\" is required/);
      await assert.rejects(client.callTool({ name: 'Nope', arguments: {} }), /Unknown tool: Nope/);
    } finally {
      await client.close();
    }
    // A tool whose recipe stops answers a tool error, not a failure of the protocol.
    assert.equal((await t.call('PUT', `/api/recipes/${skillRecipeId}/stop`)).status, 200);
    const again = await sdkClient(localUrl(mcpUrl));
    try {
      const stopped = await again.callTool({ name: 'Greet_person', arguments: { name: 'Ada' } });
      assert.equal(stopped.isError, true);
      assert.match(JSON.stringify(stopped.content), /not running/);
    } finally {
      await again.close();
      await startRecipe(t, skillRecipeId);
    }
    assert.ok(handle);
  });

  test('API platform credentials (API key, OAuth 2.0 token, JWT) see only the tools their collections grant', async () => {
    const { handle } = await createServerWithTools('Shared', [skillRecipeId, endpointRecipeId]);
    const url = new URL(`${origin}/mcp/${handle}`);
    const profile = async (body: Record<string, unknown>) => {
      const res = await t.call('POST', '/api/api_access_profiles', {
        body: { name: `p${Math.random()}`, api_client_id: apiClientId, api_collection_ids: [collectionId], ...body },
      });
      assert.equal(res.status, 200, res.text);
      return res.body;
    };
    const key = await profile({ auth_type: 'token' });
    const oauth = await profile({ auth_type: 'oauth2' });
    const tokenRes = await fetch(`${origin}/oauth2/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${oauth.oauth_client_id}:${oauth.oauth_client_secret}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    });
    const accessToken = ((await tokenRes.json()) as { access_token: string }).access_token;
    const secret = 'hmac-secret-hmac-secret-hmac-secret-42';
    const jwtProfile = await profile({ auth_type: 'jwt', jwt_method: 'hmac', jwt_secret: secret });
    const jwt = await new SignJWT({ sub: jwtProfile.secret })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(secret));
    const callers: Array<Record<string, string>> = [
      { 'api-token': key.secret },
      { authorization: `Bearer ${accessToken}` },
      { authorization: `Bearer ${jwt}` },
    ];
    for (const headers of callers) {
      const client = await sdkClient(url, headers);
      try {
        const { tools } = await client.listTools();
        assert.deepEqual(
          tools.map((tool) => tool.name),
          ['Stock_level'],
          JSON.stringify(headers),
        );
        const res = await client.callTool({ name: 'Stock_level', arguments: { sku: 'B-2' } });
        assert.deepEqual(res.structuredContent, { sku: 'B-2', stock: '7' });
        await assert.rejects(client.callTool({ name: 'Greet_person', arguments: { name: 'x' } }), /Unknown tool/);
      } finally {
        await client.close();
      }
    }
    const outsider = await profile({
      auth_type: 'token',
      api_collection_ids: [
        (await t.call('POST', '/api/api_collections', { body: { name: 'Other', project_id: project.projectId } })).body
          .id,
      ],
    });
    const client = await sdkClient(url, { 'api-token': outsider.secret });
    try {
      assert.deepEqual((await client.listTools()).tools, []);
    } finally {
      await client.close();
    }
    await assert.rejects(sdkClient(url, { 'api-token': 'not-a-key' }), /401|Unauthorized|not valid/);
  });
});

describe('POST /mcp/:handle bad input', () => {
  test('malformed JSON-RPC, wrong transport, no credential: JSON-RPC errors with the right status, nothing run', async () => {
    const { handle, mcpUrl } = await createServerWithTools('Strict', [skillRecipeId]);
    const path = localUrl(mcpUrl).pathname + localUrl(mcpUrl).search;
    const jobsBefore = (await t.call('GET', `/api/recipes/${skillRecipeId}`)).body.job_succeeded_count;
    const cases: Array<[string, Record<string, string>, number, number | null]> = [
      ['{"jsonrpc":"2.0","id":1,', {}, 400, -32700],
      ['[{"jsonrpc":"2.0","id":1,"method":"ping"}]', {}, 400, -32600],
      ['{"jsonrpc":"1.0","id":1,"method":"ping"}', {}, 400, -32600],
      ['{"jsonrpc":"2.0","id":{},"method":"ping"}', {}, 400, -32600],
      ['{"jsonrpc":"2.0","id":1,"method":"resources/list"}', {}, 200, -32601],
      ['{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}', {}, 200, -32602],
      ['{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}', {}, 200, -32602],
      [
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"Greet_person","arguments":"x"}}',
        {},
        200,
        -32602,
      ],
      ['{"jsonrpc":"2.0","id":1,"method":"ping"}', { 'content-type': 'text/plain' }, 415, -32600],
      ['{"jsonrpc":"2.0","id":1,"method":"ping"}', { origin: 'https://evil.example' }, 403, -32600],
      ['{"jsonrpc":"2.0","id":1,"method":"ping"}', { 'mcp-protocol-version': '1999-01-01' }, 400, -32600],
      ['{"jsonrpc":"2.0","id":1,"method":"ping"}', { accept: 'text/html' }, 406, -32600],
      ['', {}, 400, -32600],
      ['{"jsonrpc":"2.0","method":"notifications/initialized"}', {}, 202, null],
    ];
    for (const [body, headers, status, code] of cases) {
      const res = await rpc(path, body, headers);
      assert.equal(res.status, status, `${body} ${JSON.stringify(headers)}: ${JSON.stringify(res.body)}`);
      if (code === null) assert.equal(res.body, undefined);
      else {
        assert.equal(res.body.jsonrpc, '2.0');
        assert.equal(res.body.error.code, code, body);
      }
    }
    const big = await rpc(
      path,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(2 * 1024 * 1024) } }),
    );
    assert.equal(big.status, 413);
    assert.equal(big.body.error.code, -32600);

    const anonymous = await rpc(`/mcp/${handle}`, '{"jsonrpc":"2.0","id":1,"method":"ping"}');
    assert.equal(anonymous.status, 401);
    assert.match(
      anonymous.headers.get('www-authenticate') ?? '',
      /resource_metadata=".*\/\.well-known\/oauth-protected-resource\/mcp\//,
    );
    const metadata = await fetch(`${origin}/.well-known/oauth-protected-resource/mcp/${handle}`);
    assert.equal(metadata.status, 200);
    assert.equal(((await metadata.json()) as { resource: string }).resource.endsWith(`/mcp/${handle}`), true);
    assert.equal(
      (await rpc(`/mcp/${handle}?token=wkmcp-${'0'.repeat(64)}`, '{"jsonrpc":"2.0","id":1,"method":"ping"}')).status,
      401,
    );
    const get = await fetch(`${origin}/mcp/${handle}`, { headers: { accept: 'text/event-stream' } });
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
    assert.equal((await fetch(`${origin}/mcp/${handle}`, { method: 'DELETE' })).status, 405);
    assert.equal(
      (await t.call('GET', `/api/recipes/${skillRecipeId}`)).body.job_succeeded_count,
      jobsBefore,
      'nothing ran',
    );
  });

  test('a flood is held to the quota (429, JSON-RPC error, Retry-After); another server is not affected', async () => {
    const limited = await createServerWithTools('Limited', [skillRecipeId]);
    const free = await createServerWithTools('Free', [skillRecipeId]);
    // A 30-day window: the flood cannot straddle two windows as it could a minute's.
    await t.call('PUT', `/api/mcp/mcp_servers/${limited.handle}/server_policies`, {
      body: { mcp_server_policy: { quota_limits: { limit: 3, interval: '30 days' } } },
    });
    const call = (mcpUrl: string, id: number) =>
      rpc(
        localUrl(mcpUrl).pathname + localUrl(mcpUrl).search,
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'Greet_person', arguments: { name: `n${id}` } },
        }),
      );
    const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => call(limited.mcpUrl, i + 1)));
    const ok = replies.filter((r) => r.status === 200);
    const refused = replies.filter((r) => r.status === 429);
    assert.equal(ok.length, 3);
    assert.equal(refused.length, 7);
    for (const r of refused) {
      assert.equal(r.body.error.code, -32000);
      assert.equal(r.body.error.message, 'Quota exceeded');
      assert.ok(Number(r.headers.get('retry-after')) >= 1);
    }
    for (const r of ok) assert.equal(r.body.result.isError, false);
    const other = await call(free.mcpUrl, 99);
    assert.equal(other.status, 200);
    assert.deepEqual(other.body.result.structuredContent, { greeting: 'Hello n99' });
  });
});
