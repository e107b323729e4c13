// The Model Context Protocol's messages, as an MCP server of Switchboard answers them: initialize,
// ping, tools/list, tools/call; notifications and responses are taken without a reply. JSON-RPC
// 2.0 error codes: -32700 parse error, -32600 invalid request, -32601 unknown method, -32602
// invalid params (an unknown tool), -32603 internal error; -32000 a call refused by a limit.
import type { ServiceContext } from '../context.ts';
import type { McpServerRow } from '../db/types.ts';
import type { RecipeEngine } from '../engine/engine.ts';
import { fromPlain, newHash } from '../recipe/formula/values.ts';
import { argumentProblems, recipeTool, type JsonSchema } from '../recipe/tool-schema.ts';
import { serverTools, toolDescription } from '../api/mcp/mcp.service.ts';
import { recipesServedToCollections } from '../api/mcp/mcp.store.ts';
import type { ToolRecipe } from '../api/mcp/mcp.store.ts';
import { admitCall, type McpCaller } from './access.ts';

/** Protocol versions this server speaks, newest first (the transport is the Streamable HTTP one of each). */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;

export type JsonRpcId = string | number;

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export function rpcError(id: JsonRpcId | null, code: number, message: string, status = 200, data?: unknown): Reply {
  return {
    status,
    body: { jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } },
  };
}

function rpcResult(id: JsonRpcId, result: unknown): Reply {
  return { status: 200, body: { jsonrpc: '2.0', id, result } };
}

export interface ProtocolDeps {
  ctx: ServiceContext;
  engine: RecipeEngine;
  callTimeoutMs: number;
}

interface VisibleTool {
  tool: ToolRecipe;
  name: string;
  inputSchema: JsonSchema & { type: 'object' };
  kind: 'skill' | 'endpoint';
}

/** The tools this caller sees: all of them with the server's token; with an API platform credential, those its collections grant. */
async function visibleTools(deps: ProtocolDeps, server: McpServerRow, caller: McpCaller): Promise<VisibleTool[]> {
  const all = await serverTools(deps.ctx, server);
  let allowed: (t: ToolRecipe) => boolean = () => true;
  if (caller.kind === 'profile') {
    const granted = [...caller.profile.collectionIds];
    if (server.api_collection_id !== null) {
      const ok = granted.includes(server.api_collection_id);
      allowed = () => ok;
    } else {
      const served = await recipesServedToCollections(
        deps.ctx.db,
        all.map((t) => t.tool.recipe_id),
        granted,
      );
      allowed = (t) => served.has(t.recipe_id);
    }
  }
  const out: VisibleTool[] = [];
  for (const { tool, name } of all) {
    if (!allowed(tool) || tool.endpoint_active === 0) continue;
    const shape = recipeTool({ trigger_application: tool.trigger_application, code: tool.recipe_code });
    if (!shape) continue;
    out.push({ tool, name, inputSchema: shape.inputSchema, kind: shape.kind });
  }
  return out;
}

/** One JSON-RPC message; null when it needs no reply (a notification or a response). */
export async function handleMessage(
  deps: ProtocolDeps,
  server: McpServerRow,
  caller: McpCaller,
  message: unknown,
  request: { ip: string; protocolVersion: string | null },
): Promise<Reply | null> {
  if (typeof message !== 'object' || message === null || Array.isArray(message))
    return rpcError(null, -32600, 'Invalid Request: a JSON-RPC message is an object (batches are not supported)', 400);
  const m = message as Record<string, unknown>;
  const id = m.id;
  const validId = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
  if (m.jsonrpc !== '2.0') return rpcError(validId ? id : null, -32600, 'Invalid Request: jsonrpc must be "2.0"', 400);
  if (m.method === undefined) {
    // A response from the client (to a request this server never sends) is taken and dropped.
    if ('result' in m || 'error' in m) return null;
    return rpcError(validId ? id : null, -32600, 'Invalid Request: method is missing', 400);
  }
  if (typeof m.method !== 'string')
    return rpcError(validId ? id : null, -32600, 'Invalid Request: method must be a string', 400);
  if (id === undefined) return null; // a notification: notifications/initialized, notifications/cancelled, ...
  if (!validId) return rpcError(null, -32600, 'Invalid Request: id must be a string or a number', 400);
  const params = m.params;
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params)))
    return rpcError(id, -32602, 'Invalid params: params must be an object');
  const p = (params ?? {}) as Record<string, unknown>;

  switch (m.method) {
    case 'initialize': {
      const asked = typeof p.protocolVersion === 'string' ? p.protocolVersion : null;
      const version =
        asked !== null && (PROTOCOL_VERSIONS as readonly string[]).includes(asked) ? asked : PROTOCOL_VERSIONS[0];
      return rpcResult(id, {
        protocolVersion: version,
        capabilities: { tools: { listChanged: false } },
        serverInfo: { name: server.name, version: '1.0.0' },
        ...(server.description ? { instructions: server.description } : {}),
      });
    }
    case 'ping':
      return rpcResult(id, {});
    case 'tools/list': {
      const tools = await visibleTools(deps, server, caller);
      return rpcResult(id, {
        tools: tools.map((t) => ({
          name: t.name,
          title: t.tool.endpoint_name ?? t.tool.recipe_name,
          description: toolDescription(t.tool),
          inputSchema: t.inputSchema,
        })),
      });
    }
    case 'tools/call':
      return callTool(deps, server, caller, id, p, request.ip);
    default:
      return rpcError(id, -32601, `Method not found: ${m.method.slice(0, 100)}`);
  }
}

function toolResult(id: JsonRpcId, value: unknown, isError: boolean): Reply {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
  const structured = typeof value === 'object' && value !== null && !Array.isArray(value);
  return rpcResult(id, {
    content: [{ type: 'text', text }],
    ...(structured ? { structuredContent: value } : {}),
    isError,
  });
}

async function callTool(
  deps: ProtocolDeps,
  server: McpServerRow,
  caller: McpCaller,
  id: JsonRpcId,
  params: Record<string, unknown>,
  ip: string,
): Promise<Reply> {
  const name = params.name;
  if (typeof name !== 'string') return rpcError(id, -32602, 'Invalid params: name must be a string');
  const args = params.arguments ?? {};
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    return rpcError(id, -32602, 'Invalid params: arguments must be an object');
  const tools = await visibleTools(deps, server, caller);
  const tool = tools.find((t) => t.name === name);
  // A tool the caller may not see is, to it, a tool that does not exist.
  if (!tool) return rpcError(id, -32602, `Unknown tool: ${name.slice(0, 100)}`);
  const problem = argumentProblems(tool.inputSchema, args as Record<string, unknown>);
  if (problem) return toolResult(id, `Invalid arguments: ${problem}`, true);
  if (tool.tool.running !== 1) return toolResult(id, `The tool's recipe is not running`, true);

  const verdict = await admitCall(deps.ctx, server);
  if (!verdict.ok) {
    const reply = rpcError(id, -32000, verdict.message, 429, { retry_after_seconds: verdict.retryAfter });
    return { ...reply, headers: { 'retry-after': String(verdict.retryAfter) } };
  }

  if (tool.kind === 'skill') {
    const outcome = await deps.engine.receiveSkillCall(
      tool.tool.recipe_id,
      server.environment_id,
      newHash([
        ['parameters', fromPlain(args)],
        ['mcp_server_id', server.handle],
      ]),
      deps.callTimeoutMs,
    );
    if (outcome.kind === 'not_running') return toolResult(id, `The tool's recipe is not running`, true);
    if (outcome.kind === 'backlog_full') return busy(id, outcome.retryAfterSeconds);
    if (outcome.kind === 'timeout')
      return toolResult(
        id,
        `The job ${outcome.jobId} did not finish within ${deps.callTimeoutMs} ms; it goes on`,
        true,
      );
    if (outcome.status === 'failed')
      return toolResult(id, `The job ${outcome.jobId} failed: ${outcome.error ?? 'error'}`, true);
    return toolResult(id, outcome.result ?? {}, false);
  }

  const event = newHash([
    ['request', fromPlain(args)],
    ['headers', newHash()],
    [
      'context',
      newHash([
        ['calling_ip', ip],
        [
          'access_profile',
          caller.kind === 'profile'
            ? newHash([
                ['id', caller.profile.id],
                ['type', caller.profile.authType],
              ])
            : null,
        ],
        ['method', 'MCP'],
        ['path', `/mcp/${server.handle}`],
      ]),
    ],
  ]);
  const outcome = await deps.engine.receiveApiRequest(
    tool.tool.recipe_id,
    server.environment_id,
    event,
    deps.callTimeoutMs,
  );
  if (outcome.kind === 'not_running') return toolResult(id, `The tool's recipe is not running`, true);
  if (outcome.kind === 'backlog_full') return busy(id, outcome.retryAfterSeconds);
  if (outcome.kind === 'timeout')
    return toolResult(id, `The job did not finish within ${deps.callTimeoutMs} ms; it goes on`, true);
  if (outcome.kind === 'invalid') return toolResult(id, outcome.problems.join('; '), true);
  if (outcome.response === null)
    return toolResult(id, outcome.status === 'failed' ? 'The job failed' : {}, outcome.status === 'failed');
  return toolResult(id, outcome.response.body ?? {}, outcome.response.status >= 400);
}

function busy(id: JsonRpcId, retryAfter: number): Reply {
  const reply = rpcError(id, -32000, 'Too many pending jobs for this recipe or workspace: retry later', 429, {
    retry_after_seconds: retryAfter,
  });
  return { ...reply, headers: { 'retry-after': String(retryAfter) } };
}
