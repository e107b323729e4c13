// The gateway: published APIs at /<api-prefix>/<collection-slug>/<endpoint path> (03 §8-9).
// Checks in the documented order: route, public access, credential, grant, IP lists, policy,
// endpoint state; then the call goes to the proxy (or, later, the endpoint's recipe).
import { registerPlainErrorHandler, sendPlainError } from '../http/plain-errors.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fromPlain, isHash, MAX_EVENT_DEPTH, newHash, type Hash } from '../recipe/formula/values.ts';
import { jsonShape, MAX_EVENT_CONTAINERS } from '../json-shape.ts';
import type { ServiceContext } from '../context.ts';
import { ipPasses, type AccessResolver } from '../auth/access.ts';
import { createPolicyEnforcer } from '../auth/policies.ts';
import { GATEWAY_ERRORS, POLICY_ERROR_CODES, type GatewayErrorCode } from '../http/gateway-errors.ts';
import { createProxy, ProxyError, type Upstream } from './proxy.ts';
import { createRouter, safeDecode, type Match } from './routing.ts';
import type { RecipeEngine } from '../engine/engine.ts';
import type { ProfileState } from '../auth/access.ts';

/** First path segments that belong to the server itself: no API prefix can shadow them. */
export const RESERVED_SEGMENTS = new Set([
  'api',
  'oauth2',
  'docs',
  'health',
  'ready',
  'metrics',
  'webhooks',
  'doc',
  'console',
  'mcp',
  '.well-known',
  'oauth',
]);

export type UpstreamResolver = (
  scope: { workspaceId: number; environmentId: number },
  connectionId: number,
) => Promise<Upstream>;

export interface GatewayDeps {
  ctx: ServiceContext;
  /** Shared with the event streams API: one cache of profile state, dropped on every change. */
  access: AccessResolver;
  resolveUpstream: UpstreamResolver;
  maxBodyBytes: number;
  maxResponseBytes: number;
  timeoutMs: number;
  /** Runs recipe-backed endpoints; without it they answer 404. */
  engine?: RecipeEngine;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export function gatewayRoutes(deps: GatewayDeps) {
  return async function gatewayPlugin(app: FastifyInstance): Promise<void> {
    const { ctx } = deps;
    const router = createRouter(ctx);
    const access = deps.access;
    const policies = createPolicyEnforcer(ctx);
    const proxy = createProxy({
      timeoutMs: deps.timeoutMs,
      maxResponseBytes: deps.maxResponseBytes,
      outbound: deps.ctx.outbound,
    });
    app.addHook('onClose', async () => proxy.close());

    // Bodies pass through untouched, whatever their type.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: deps.maxBodyBytes }, (_req, body, done) =>
      done(null, body),
    );

    registerPlainErrorHandler(app, GATEWAY_ERRORS, 'gateway call failed');

    app.route({
      method: METHODS,
      url: '/*',
      config: { public: true },
      schema: { hide: true },
      handler: async (request, reply) => {
        const url = request.url;
        const queryAt = url.indexOf('?');
        const path = queryAt < 0 ? url : url.slice(0, queryAt);
        const secondSlash = path.indexOf('/', 1);
        const first = secondSlash < 0 ? path.slice(1) : path.slice(1, secondSlash);
        // Unknown paths of the server's own areas keep the management API's 404.
        if (RESERVED_SEGMENTS.has(first)) return reply.callNotFound();

        const match = await router.match(request.method, path);
        if (!match) return fail(reply, 'not_found');
        const collection = match.collection.row;
        let extraHeaders: Record<string, string> = {};
        let caller: ProfileState | null = null;

        if (collection.public_access !== 1) {
          const outcome = await access.resolve({
            headers: request.headers,
            query: request.query as Record<string, unknown>,
          });
          if (outcome.kind === 'none')
            return fail(reply.header('www-authenticate', 'Basic realm="api"'), 'unauthorized');
          if (outcome.kind === 'invalid') return fail(reply, 'unauthorized');
          const profile = outcome.profile;
          caller = profile;
          if (profile.environmentId !== match.env.environmentId) return fail(reply, 'unauthorized');
          if (!profile.usable) return fail(reply, 'not_found');
          if (!profile.collectionIds.has(collection.id)) return fail(reply, 'api_disallowed');
          if (!ipPasses(profile, request.ip)) return fail(reply, 'ip_not_allowed');
          // Policies are not applied to proxy endpoints at the vendor (03 §6); the issue asks for them here, so they are.
          if (profile.policyId !== null) {
            const verdict = await policies.admit(profile.id, profile.policyId);
            if (!verdict.ok)
              return fail(reply.header('retry-after', String(verdict.retryAfter)), POLICY_ERROR_CODES[verdict.error]);
            extraHeaders = verdict.headers;
          }
        }

        if (!match.endpoint.active) return fail(reply, 'not_found');
        if (collection.proxy_connection_id === null) {
          if (match.endpoint.flowId === null || !deps.engine) return fail(reply, 'not_found');
          return callRecipe(deps, request, reply, match, caller, extraHeaders);
        }
        if (
          match.subPath.split('/').some((seg) => {
            const d = safeDecode(seg);
            return d === '.' || d === '..' || d.includes('/');
          })
        ) {
          return fail(reply, 'bad_request');
        }

        let upstream: Upstream;
        try {
          upstream = await deps.resolveUpstream(
            { workspaceId: match.env.workspaceId, environmentId: match.env.environmentId },
            collection.proxy_connection_id,
          );
        } catch (error) {
          request.log.warn(
            { err_name: (error as Error).name, connection_id: collection.proxy_connection_id },
            'proxy connection unusable',
          );
          return fail(reply, 'bad_gateway');
        }
        const rawQuery = queryAt < 0 ? '' : url.slice(queryAt + 1);
        // The query goes upstream as the caller sent it, less an auth token in it.
        let query = rawQuery;
        if (rawQuery.includes('api_token')) {
          const params = new URLSearchParams(rawQuery);
          params.delete('api_token');
          query = params.toString();
        }
        try {
          const res = await proxy.forward(upstream, {
            method: request.method,
            subPath: match.subPath,
            query,
            headers: request.headers,
            body: Buffer.isBuffer(request.body) ? request.body : undefined,
            clientAddress: request.ip,
            requestId: String(request.id),
          });
          reply.status(res.status).headers(res.headers);
          if (caller?.policyId != null) reply.headers(extraHeaders);
          return reply.send(res.body);
        } catch (error) {
          if (error instanceof ProxyError) return fail(reply, error.code);
          throw error;
        }
      },
    });
  };
}

/** What the recipe's trigger receives: body fields, query and path parameters under `request` (03 §8, 20 §10.5). */
function apiEvent(request: FastifyRequest, match: Match, caller: ProfileState | null): Hash | 'malformed' {
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  const type =
    String(request.headers['content-type'] ?? '')
      .split(';')[0]
      ?.trim()
      .toLowerCase() ?? '';
  let fields: Hash = newHash();
  if (body.length > 0) {
    const text = body.toString('utf8');
    if (type === 'application/json' || type.endsWith('+json') || type === '') {
      const shape = jsonShape(text);
      if (shape.depth > MAX_EVENT_DEPTH || shape.containers > MAX_EVENT_CONTAINERS) return 'malformed';
      try {
        const parsed = fromPlain(JSON.parse(text));
        fields = isHash(parsed) ? parsed : newHash([['body', parsed]]);
      } catch {
        return 'malformed';
      }
    } else if (type === 'application/x-www-form-urlencoded') fields = newHash([...new URLSearchParams(text).entries()]);
    else fields = newHash([['body', text]]);
  }
  const query = newHash(
    Object.entries((request.query ?? {}) as Record<string, unknown>)
      .filter(([k]) => k !== 'api_token')
      .map(([k, v]) => [k, fromPlain(v)]),
  );
  const requestFields = newHash([
    ...Object.entries(query),
    ...Object.entries(match.params),
    ...Object.entries(fields),
  ] as Array<[string, Hash[string]]>);
  const headers = newHash(
    Object.entries(request.headers)
      .filter(([k]) => k !== 'authorization' && k !== 'api-token' && k !== 'cookie')
      .map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? null)]),
  );
  const context = newHash([
    ['calling_ip', request.ip],
    [
      'access_profile',
      caller
        ? newHash([
            ['id', caller.id],
            ['type', caller.authType],
          ])
        : null,
    ],
    ['method', request.method],
    ['path', request.url.split('?')[0] ?? '/'],
  ]);
  return newHash([
    ['request', requestFields],
    ['headers', headers],
    ['context', context],
  ]);
}

async function callRecipe(
  deps: GatewayDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  match: Match,
  caller: ProfileState | null,
  extraHeaders: Record<string, string>,
) {
  const event = apiEvent(request, match, caller);
  if (event === 'malformed') return fail(reply, 'bad_request');
  const outcome = await (deps.engine as RecipeEngine).receiveApiRequest(
    match.endpoint.flowId as number,
    match.env.environmentId,
    event,
    deps.timeoutMs,
    { validate: match.endpoint.validateRequest },
  );
  if (outcome.kind === 'not_running') return fail(reply, 'not_found');
  // validate_request: nothing was stored; the caller learns which fields are wrong.
  if (outcome.kind === 'invalid')
    return reply
      .status(400)
      .type('application/json; charset=utf-8')
      .send({ error: 'Bad request', errors: outcome.problems });
  // Refused before anything was stored: the client may send the same request again.
  if (outcome.kind === 'backlog_full')
    return fail(reply.header('retry-after', String(outcome.retryAfterSeconds)), 'backlog_full');
  if (outcome.kind === 'timeout') return fail(reply, 'gateway_timeout');
  if (outcome.response === null) {
    if (outcome.status === 'failed') return fail(reply, 'internal_error');
    return reply.status(200).headers(extraHeaders).type('application/json; charset=utf-8').send({});
  }
  const text = JSON.stringify(outcome.response.body ?? {});
  if (Buffer.byteLength(text) > deps.maxResponseBytes) return fail(reply, 'response_too_large');
  return reply.status(outcome.response.status).headers(extraHeaders).type('application/json; charset=utf-8').send(text);
}

/** An error of the gateway's catalog; `status` only for a framework error that keeps its own 4xx. */
function fail(reply: FastifyReply, code: GatewayErrorCode, status?: number) {
  return sendPlainError(reply, GATEWAY_ERRORS, code, status);
}
