// npm run bench -- agents: (1) MCP tool calls per second against a skill recipe, and against a
// recipe-backed API endpoint's recipe through an MCP server over its collection, each beside the
// same steps called through the API endpoint on the gateway, in alternating rounds of one run
// (goal: MCP at least 0.8 of the endpoint); (2) the agent loop's own time per turn beside the
// stand-in model's time (goal: at most 2 ms a turn), in this process against a local stand-in of
// a Chat Completions server.
import { parseArgs } from 'node:util';
import { compareLoads, row } from './lib.ts';
import { startSwitchboard } from './platform.ts';
import { recordFigure } from './database.ts';
import { runAgent, type AgentTool } from '../src/engine/agents/agent-loop.ts';
import { chatClient, type ChatFn } from '../src/engine/agents/model-client.ts';
import { startModelStandIn } from '../test/stand-ins/chat-completions.ts';

const steps = (provider: string, as: string, path: string[]) => ({
  number: 1,
  keyword: 'action',
  provider: 'logger',
  name: 'log_message',
  as: 'log',
  input: { message: `sku #{_dp('${JSON.stringify({ pill_type: 'output', provider, line: as, path })}')}` },
});

function skillRecipe() {
  return {
    number: 0,
    keyword: 'trigger',
    provider: 'workato_skill',
    name: 'start_workflow',
    as: 'start',
    input: {
      description: 'Stock level of a SKU.',
      parameters_schema_json: JSON.stringify([{ name: 'sku', type: 'string', optional: false }]),
    },
    block: [
      steps('workato_skill', 'start', ['parameters', 'sku']),
      {
        number: 2,
        keyword: 'action',
        provider: 'workato_skill',
        name: 'workflow_return_result',
        as: 'ret',
        input: { result: { stock: '7' } },
      },
    ],
  };
}

function endpointRecipe() {
  return {
    number: 0,
    keyword: 'trigger',
    provider: 'workato_api_platform',
    name: 'receive_request',
    as: 'req',
    input: {
      request: { content_type: 'json', schema: JSON.stringify([{ name: 'sku', type: 'string', optional: false }]) },
    },
    block: [
      steps('workato_api_platform', 'req', ['request', 'sku']),
      {
        number: 2,
        keyword: 'action',
        provider: 'workato_api_platform',
        name: 'return_response',
        as: 'resp',
        input: { http_status_code: '200', response: { stock: '7' } },
      },
    ],
  };
}

async function mcpThroughput(options: { seconds: number; connections: number }): Promise<void> {
  const sb = await startSwitchboard();
  try {
    const home = (await sb.api('GET', '/api/folders')) as Array<{ id: number }>;
    const folderId = home[0]?.id ?? (await sb.api('GET', '/api/users/me')).root_folder_id;
    const create = async (name: string, code: unknown) => {
      const recipe = await sb.api('POST', '/api/recipes', { recipe: { name, code: JSON.stringify(code) } });
      await sb.api('PUT', `/api/recipes/${recipe.id}/start`);
      return recipe.id as number;
    };
    const skillId = await create('Stock level skill', skillRecipe());
    const endpointId = await create('Stock level endpoint', endpointRecipe());
    const collection = await sb.api('POST', '/api/api_collections', { name: 'Bench MCP' });
    const endpoint = await sb.api('POST', `/api/api_collections/${collection.id}/api_endpoints`, {
      name: 'Stock level',
      method: 'POST',
      path: 'stock',
      flow_id: endpointId,
    });
    await sb.api('PUT', `/api/api_endpoints/${endpoint.id}/enable`);
    const client = await sb.api('POST', '/api/api_clients', { name: 'Bench MCP client' });
    const profile = await sb.api('POST', '/api/api_access_profiles', {
      name: 'Bench MCP key',
      api_client_id: client.id,
      api_collection_ids: [collection.id],
      auth_type: 'token',
    });
    const skillServer = await sb.api('POST', '/api/mcp/mcp_servers', { name: 'Skills', folder_id: folderId });
    await sb.api('POST', `/api/mcp/mcp_servers/${skillServer.data.id}/assign_tools`, {
      tools: [{ trigger_application: 'workato_skill', id: String(skillId) }],
    });
    const collectionServer = await sb.api('POST', '/api/mcp/mcp_servers', {
      name: 'Endpoints',
      folder_id: folderId,
      asset_id: collection.id,
    });
    const local = (mcpUrl: string) => {
      const u = new URL(mcpUrl);
      return `${sb.url}${u.pathname}${u.search}`;
    };
    const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const call = (name: string) =>
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: { sku: 'A-1' } } });
    const targets = [
      {
        label: 'MCP tools/call, skill recipe (server token)',
        url: local(skillServer.data.mcp_url),
        body: call('Stock_level_skill'),
      },
      {
        label: 'MCP tools/call, endpoint recipe (collection server)',
        url: local(collectionServer.data.mcp_url),
        body: call('Stock_level'),
      },
    ];
    const gateway = {
      url: `${sb.url}${new URL(endpoint.url).pathname}`,
      method: 'POST' as const,
      headers: { 'content-type': 'application/json', 'api-token': profile.secret as string },
      body: JSON.stringify({ sku: 'A-1' }),
      seconds: options.seconds,
      connections: options.connections,
    };
    for (const target of targets) {
      const check = await fetch(target.url, { method: 'POST', headers: mcpHeaders, body: target.body });
      const answer = (await check.json()) as { result?: { isError?: boolean } };
      if (!check.ok || answer.result?.isError !== false)
        throw new Error(`${target.label}: ${check.status} ${JSON.stringify(answer)}`);
    }
    const check = await fetch(gateway.url, { method: 'POST', headers: gateway.headers, body: gateway.body });
    if (!check.ok) throw new Error(`gateway: ${check.status} ${await check.text()}`);
    console.log(
      `\nMCP tool calls beside the API endpoint (same steps: a logger step and the return), ${options.connections} keep-alive connections, ${options.seconds} s each in 4 alternating rounds (LOG_LEVEL=warn)`,
    );
    for (const target of targets) {
      const { ours, baseline, roundRatios } = await compareLoads(
        {
          url: target.url,
          method: 'POST',
          headers: mcpHeaders,
          body: target.body,
          seconds: options.seconds,
          connections: options.connections,
        },
        gateway,
      );
      console.log(row(target.label, ours));
      console.log(row('API endpoint through the gateway (API key)', baseline));
      const ratio = ours.requestsPerSecond / baseline.requestsPerSecond;
      console.log(
        `ratio: ${ratio.toFixed(2)} (target >= 0.80); by round: ${roundRatios.map((r) => r.toFixed(2)).join(', ')}`,
      );
      recordFigure(`${target.label} calls/s`, ours.requestsPerSecond);
    }
  } finally {
    sb.process.kill('SIGTERM');
  }
}

async function agentOverhead(turns: number, runs: number): Promise<void> {
  const model = await startModelStandIn({ model: 'bench' });
  try {
    model.setScript((request) => {
      const done = request.messages.filter((m) => m.role === 'tool').length;
      return done + 1 >= turns ? { content: 'All done.' } : { toolCalls: [{ name: 'lookup', arguments: { n: done } }] };
    });
    const chat = chatClient({
      baseUrl: new URL(model.baseUrl),
      apiKey: null,
      model: 'bench',
      timeoutMs: 10_000,
      maxResponseBytes: 4 * 1024 * 1024,
    });
    let modelMs = 0;
    const timed: ChatFn = async (request) => {
      const answer = await chat(request);
      modelMs += answer.ms;
      return answer;
    };
    let toolMs = 0;
    const tools: AgentTool[] = [
      {
        name: 'lookup',
        description: 'Looks something up.',
        parameters: { type: 'object', properties: { n: { type: 'integer' } } },
        async call(args) {
          const started = performance.now();
          const result = { n: args.n, found: true };
          toolMs += performance.now() - started;
          return { result, jobId: null };
        },
      },
    ];
    const once = () =>
      runAgent({
        chat: timed,
        instructions: 'Be brief.',
        conversation: [],
        task: 'Go',
        tools,
        limits: { maxTurns: turns + 1, maxTokens: 10_000_000 },
      });
    for (let i = 0; i < 20; i++) await once();
    modelMs = 0;
    toolMs = 0;
    const started = performance.now();
    for (let i = 0; i < runs; i++) {
      const outcome = await once();
      if (outcome.turns.length !== turns) throw new Error(`expected ${turns} turns, got ${outcome.turns.length}`);
    }
    const total = performance.now() - started;
    const perTurnModel = modelMs / (runs * turns);
    const perTurnLoop = (total - modelMs - toolMs) / (runs * turns);
    console.log(
      `\nagent loop, ${runs} runs of ${turns} turns (${turns - 1} tool calls and an answer) against the stand-in model (streamed answers, in this process)`,
    );
    console.log(`stand-in model time per turn (request to last byte, parsed): ${perTurnModel.toFixed(3)} ms`);
    console.log(
      `agent loop's own time per turn (messages, tool dispatch, records): ${perTurnLoop.toFixed(3)} ms (target <= 2 ms)`,
    );
    recordFigure('agent loop ms per turn', perTurnLoop);
  } finally {
    await model.close();
  }
}

export async function main(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      seconds: { type: 'string', default: '20' },
      connections: { type: 'string', default: '16' },
      turns: { type: 'string', default: '5' },
      runs: { type: 'string', default: '200' },
    },
  });
  await mcpThroughput({ seconds: Number(values.seconds), connections: Number(values.connections) });
  await agentOverhead(Number(values.turns), Number(values.runs));
}
