// GET /api/activity_logs (contract 23 §6): what the management API changed, newest first; and the
// recording of management API and console changes. A route whose service records its change in the
// change's own transaction says so with `config.activity: 'in_service'` and passes actorOf(request)
// down. For every other route that changes something, the onSend hook registered by
// registerActivityLog writes the entry once the change is made and before the reply leaves: a
// caller that got its 2xx can read the entry. Reads, refusals (`"success": false`) and errors write
// nothing.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import type { AuthContext } from '../../auth/credentials.ts';
import type { ActivityVia } from '../../db/types.ts';
import { authOf } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import { AUTH_ERRORS, errorResponses } from '../../http/schemas.ts';
import { ActivityLogList, ActivityLogQuery } from './activity_logs.schemas.ts';
import { listActivityLogs } from './activity_logs.service.ts';
import { recordActivity, type Actor } from './activity.ts';
import { CONSOLE_CHANGES, changeOfRoute, type RouteChange } from './events.ts';

export function activityLogsRoutes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/activity_logs',
    {
      config: { privilege: 'activity_logs:read' },
      schema: {
        tags: ['Environment management'],
        summary: "The activity (audit) log of the caller's environment, newest first",
        querystring: ActivityLogQuery,
        response: { 200: ActivityLogList, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => listActivityLogs(ctx, authOf(request), request.query, parsePage(request.query)),
  );
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's service records its change in the activity log itself (in its transaction). */
    activity?: 'in_service';
  }
}

/** Who is calling, for the activity log: the authenticated client (API) or the console session's. */
export function actorOf(request: FastifyRequest, via: ActivityVia = 'api'): Actor {
  const auth = via === 'api' ? request.authContext : consoleAuthOf(request);
  if (auth === null || auth === undefined) throw new Error('actorOf: the request is not authenticated');
  return actorFrom(request, auth, via);
}

function actorFrom(request: FastifyRequest, auth: AuthContext, via: ActivityVia): Actor {
  const agent = request.headers['user-agent'];
  return {
    workspaceId: auth.workspaceId,
    environmentId: auth.environmentId,
    clientId: auth.clientId,
    via,
    ip: request.ip ?? null,
    userAgent: typeof agent === 'string' && agent !== '' ? agent : null,
    requestId: String(request.id),
  };
}

function consoleAuthOf(request: FastifyRequest): AuthContext | null {
  const session = (request as { consoleSession?: { auth: AuthContext } | null }).consoleSession;
  return session?.auth ?? null;
}

/** Replies larger than this are not read for the id of what they created. */
const MAX_REPLY_SCAN = 1024 * 1024;

export function registerActivityLog(app: FastifyInstance, ctx: ServiceContext): void {
  // What each route changes, worked out once per route (the routes are a fixed set).
  const changes = new Map<string, RouteChange | null>();
  const changeOfApiRoute = (method: string, url: string): RouteChange | null => {
    const key = `${method} ${url}`;
    let change = changes.get(key);
    if (change === undefined) {
      change = changeOfRoute(method, url);
      changes.set(key, change);
    }
    return change;
  };
  app.addHook('onSend', async (request, reply, payload) => {
    const recorded = changeOf(request, reply.statusCode, payload, changeOfApiRoute);
    if (recorded === null) return payload;
    const { change, actor, reply: body } = recorded;
    const params = (request.params ?? {}) as Record<string, unknown>;
    const fromParam = change.idParam === undefined ? undefined : params[change.idParam];
    const resourceId =
      fromParam !== undefined ? String(fromParam) : (createdId(body) ?? createdIdOfPage(reply.getHeader('location')));
    try {
      await ctx.groupCommit.run((trx) =>
        recordActivity(trx, ctx.clock, actor, {
          eventType: change.eventType,
          resourceType: change.resourceType,
          resourceId,
          details: { route: `${request.method} ${request.routeOptions.url}`, params: textParams(params) },
        }),
      );
    } catch (error) {
      // The change is made: the reply says so, and the missing entry is an error in the log.
      request.log.error({ err: error, event_type: change.eventType }, 'activity log entry not written');
    }
    return payload;
  });
}

function changeOf(
  request: FastifyRequest,
  status: number,
  payload: unknown,
  changeOfApiRoute: (method: string, url: string) => RouteChange | null,
): { change: RouteChange; actor: Actor; reply: unknown } | null {
  const url = request.routeOptions.url;
  if (url === undefined) return null;
  const config = request.routeOptions.config;
  if (url.startsWith('/api/')) {
    if (status < 200 || status >= 300 || config.privilege === undefined || config.activity === 'in_service')
      return null;
    const change = changeOfApiRoute(request.method, url);
    if (change === null || request.authContext === null) return null;
    const body = replyJson(payload);
    if (isRefusal(body)) return null;
    return { change, actor: actorFrom(request, request.authContext, 'api'), reply: body };
  }
  if (url.startsWith('/console/') && (status === 303 || status === 200)) {
    const change = CONSOLE_CHANGES[`${request.method} ${url}`];
    const auth = consoleAuthOf(request);
    if (change === undefined || auth === null) return null;
    if (status === 200 && change.answersWithPage !== true) return null;
    return { change, actor: actorFrom(request, auth, 'console'), reply: undefined };
  }
  return null;
}

function replyJson(payload: unknown): unknown {
  if (typeof payload !== 'string' || payload.length > MAX_REPLY_SCAN) return undefined;
  try {
    return JSON.parse(payload);
  } catch {
    return undefined;
  }
}

/** `{"success": false, ...}` with 200: the vendor's way of refusing (a running recipe's update). */
function isRefusal(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { success?: unknown }).success === false;
}

/** The id of what a create made: `id`, or `data.id` / `result.id` in the wrapped replies. */
function createdId(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const record = body as Record<string, unknown>;
  for (const candidate of [record, record.data, record.result]) {
    if (typeof candidate !== 'object' || candidate === null) continue;
    const id = (candidate as Record<string, unknown>).id;
    if (typeof id === 'number' || typeof id === 'string') return String(id);
  }
  return null;
}

/** A console create goes to the page of what it made (`/console/<section>/.../<id>`): its id. */
function createdIdOfPage(location: unknown): string | null {
  if (typeof location !== 'string') return null;
  return /^\/console\/(?:[a-z-]+\/)+(\d+)(?:[/?]|$)/.exec(location)?.[1] ?? null;
}

function textParams(params: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v).slice(0, 200)]));
}
