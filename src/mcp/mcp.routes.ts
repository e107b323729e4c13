// MCP servers at run time: /mcp/<handle> speaks the Model Context Protocol over the Streamable
// HTTP transport. Stateless: no session id is issued; each POST carries one JSON-RPC message and
// is answered with one JSON body (application/json) or 202 for a notification. GET (no
// server-initiated stream) and DELETE (no session) answer 405. Errors are JSON-RPC error objects.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.ts';
import type { AccessResolver } from '../auth/access.ts';
import type { RecipeEngine } from '../engine/engine.ts';
import { findServerByHandle } from '../api/mcp/mcp.store.ts';
import { storageFailureOf } from '../db/dialect.ts';
import { STORAGE_RETRY_AFTER_SECONDS } from '../errors.ts';
import { resolveCaller, serverIpPasses } from './access.ts';
import { handleMessage, PROTOCOL_VERSIONS, rpcError, type Reply } from './protocol.ts';

export interface McpDeps {
  ctx: ServiceContext;
  access: AccessResolver;
  engine: RecipeEngine;
  maxBodyBytes: number;
  callTimeoutMs: number;
}

/** Versions a client may name in MCP-Protocol-Version (the SDKs still send the oldest ones). */
const ACCEPTED_VERSION_HEADERS = new Set<string>([...PROTOCOL_VERSIONS, '2024-11-05']);

export function mcpServerRoutes(deps: McpDeps) {
  return async function mcpPlugin(app: FastifyInstance): Promise<void> {
    const { ctx } = deps;
    app.removeAllContentTypeParsers();
    // Bodies are read as text here and parsed by the handler, so a parse error is JSON-RPC's -32700.
    app.addContentTypeParser(
      'application/json',
      { parseAs: 'string', bodyLimit: deps.maxBodyBytes },
      (_r, body, done) => done(null, body),
    );
    app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: deps.maxBodyBytes }, (_r, _body, done) =>
      done(null, UNSUPPORTED),
    );

    app.setErrorHandler((error: FastifyError, request, reply) => {
      if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
        return send(reply, rpcError(null, -32600, `Request body is larger than ${deps.maxBodyBytes} bytes`, 413));
      if (typeof error.statusCode === 'number' && error.statusCode < 500)
        return send(reply, rpcError(null, -32600, 'Invalid Request', error.statusCode));
      if (storageFailureOf(error) !== undefined) {
        request.log.warn({ err: error }, 'storage unavailable');
        reply.header('retry-after', String(STORAGE_RETRY_AFTER_SECONDS));
        return send(reply, rpcError(null, -32603, 'Storage unavailable: retry later', 503));
      }
      request.log.error({ err: error }, 'MCP request failed');
      return send(reply, rpcError(null, -32603, 'Internal error', 500));
    });

    app.post('/mcp/:handle', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
      const early = await admit(request);
      if ('status' in early) return send(reply, early);
      const { server, caller } = early;
      const body = request.body;
      if (body === UNSUPPORTED)
        return send(reply, rpcError(null, -32600, 'Unsupported Content-Type: send application/json', 415));
      if (typeof body !== 'string' || body.trim() === '')
        return send(reply, rpcError(null, -32600, 'Invalid Request: the body is empty', 400));
      let message: unknown;
      try {
        message = JSON.parse(body);
      } catch {
        return send(reply, rpcError(null, -32700, 'Parse error: the body is not JSON', 400));
      }
      const version = request.headers['mcp-protocol-version'];
      const answer = await handleMessage(
        { ctx, engine: deps.engine, callTimeoutMs: deps.callTimeoutMs },
        server,
        caller,
        message,
        {
          ip: request.ip,
          protocolVersion: typeof version === 'string' ? version : null,
        },
      );
      if (answer === null) return reply.status(202).send();
      return send(reply, answer);
    });

    for (const method of ['GET', 'DELETE'] as const) {
      app.route({
        method,
        url: '/mcp/:handle',
        config: { public: true },
        schema: { hide: true },
        handler: async (_request, reply) =>
          send(
            reply.header('allow', 'POST'),
            rpcError(
              null,
              -32600,
              method === 'GET'
                ? 'Method Not Allowed: this server opens no stream; POST JSON-RPC messages'
                : 'Method Not Allowed: this server keeps no sessions',
              405,
            ),
          ),
      });
    }

    // Protected resource metadata (RFC 9728), named by the WWW-Authenticate header of a 401.
    app.get(
      '/.well-known/oauth-protected-resource/mcp/:handle',
      { config: { public: true }, schema: { hide: true } },
      async (request, reply) => {
        const { handle } = request.params as { handle: string };
        const server = await findServerByHandle(ctx.db, handle);
        if (!server) return reply.status(404).send({ error: 'not found' });
        return {
          resource: `${ctx.config.publicBaseUrl.replace(/\/+$/, '')}/mcp/${handle}`,
          authorization_servers: [ctx.config.publicAuthUrl.replace(/\/+$/, '')],
          bearer_methods_supported: ['header'],
          resource_name: server.name,
        };
      },
    );

    /** The checks before any message is read: transport headers, the server, the caller, the IP lists. */
    async function admit(request: FastifyRequest) {
      const origin = request.headers.origin;
      if (typeof origin === 'string' && !originAllowed(origin, request))
        return rpcError(null, -32600, 'Forbidden: this Origin may not call the MCP server', 403);
      const accept = String(request.headers.accept ?? '*/*').toLowerCase();
      if (!/application\/json|application\/\*|\*\/\*/.test(accept))
        return rpcError(null, -32600, 'Not Acceptable: the client must accept application/json', 406);
      const version = request.headers['mcp-protocol-version'];
      if (typeof version === 'string' && !ACCEPTED_VERSION_HEADERS.has(version))
        return rpcError(null, -32600, `Unsupported MCP-Protocol-Version: ${version.slice(0, 40)}`, 400);
      const { handle } = request.params as { handle: string };
      const server = await findServerByHandle(ctx.db, handle);
      if (!server) return rpcError(null, -32600, 'No MCP server at this URL', 404);
      const outcome = await resolveCaller(deps.access, server, {
        headers: request.headers,
        query: (request.query ?? {}) as Record<string, unknown>,
        ip: request.ip,
      });
      if (!outcome.ok) {
        const reply = rpcError(null, -32001, outcome.message, outcome.status);
        if (outcome.status === 401)
          reply.headers = {
            'www-authenticate': `Bearer resource_metadata="${ctx.config.publicBaseUrl.replace(/\/+$/, '')}/.well-known/oauth-protected-resource/mcp/${handle}"`,
          };
        return reply;
      }
      if (!serverIpPasses(server, request.ip)) return rpcError(null, -32001, 'IP address not allowed', 403);
      return { server, caller: outcome.caller };
    }

    function originAllowed(origin: string, request: FastifyRequest): boolean {
      try {
        const url = new URL(origin);
        return url.host === request.headers.host || url.origin === new URL(ctx.config.publicBaseUrl).origin;
      } catch {
        return false;
      }
    }
  };
}

const UNSUPPORTED = Symbol('unsupported content type');

function send(reply: FastifyReply, answer: Reply) {
  if (answer.headers) reply.headers(answer.headers);
  return reply.status(answer.status).type('application/json; charset=utf-8').send(JSON.stringify(answer.body));
}
