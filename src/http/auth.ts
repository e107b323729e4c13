// Authentication and authorisation of the management API (contract 00 §2, 02 §3).
// Every /api route declares the one privilege it needs, that it is public, or that it is an
// event streams operation (authenticated in src/api/topics/); a route that declares none of
// these stops the server at start-up, so nothing is ever open by omission.
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { ServiceContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { authenticateCached, ipAllowed, type AuthContext } from '../auth/credentials.ts';
import type { Privilege } from '../auth/privileges.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The privilege a developer API client's role must hold to call this route. */
    privilege?: Privilege;
    /** Served without a token (health, docs, the OpenAPI document). */
    public?: boolean;
    /** Only clients bound to the dev environment may call it (e.g. GET /api/users/me). */
    devOnly?: boolean;
    /**
     * An event streams operation (contract 13 §1): authenticated by its own hook, which accepts
     * developer API client tokens and API platform access tokens, and needs this right on the topic.
     */
    eventStreams?: 'publish' | 'consume';
  }
  interface FastifyRequest {
    authContext: AuthContext | null;
  }
}

export function registerAuth(app: FastifyInstance, ctx: ServiceContext): void {
  app.decorateRequest('authContext', null);

  app.addHook('onRoute', (route) => {
    const config = route.config ?? {};
    if (
      route.url.startsWith('/api') &&
      config.privilege === undefined &&
      config.public !== true &&
      config.eventStreams === undefined
    ) {
      throw new Error(
        `Route ${String(route.method)} ${route.url} declares neither a privilege, public: true nor an eventStreams right`,
      );
    }
    const { privilege, devOnly } = config;
    if (privilege === undefined) return;
    if (route.schema) {
      const needs = `Requires the \`${privilege}\` privilege${devOnly ? ' and a client of the dev environment' : ''}.`;
      route.schema = {
        ...route.schema,
        security: [{ bearerAuth: [] }],
        description: route.schema.description ? `${route.schema.description}\n\n${needs}` : needs,
      };
    }
    // A hook of the route itself, after the app's own onRequest hooks (host routing answers 404
    // before any 401): routes without a privilege (the token endpoint, the gateway, event
    // streams, health) run no authentication code at all.
    const authHook: onRequestHookHandler = (request, _reply, done) => {
      authenticate(request, privilege, devOnly === true).then(() => done(), done);
    };
    route.onRequest = [authHook, ...(route.onRequest === undefined ? [] : [route.onRequest].flat())];
  });

  async function authenticate(request: FastifyRequest, privilege: Privilege, devOnly: boolean): Promise<void> {
    const token = bearerToken(request);
    if (token === undefined) throw new AppError('unauthorized');
    const auth = await authenticateCached(ctx, token);
    if (auth === null) throw new AppError('unauthorized');
    if (!ipAllowed(auth.ipAllowList, request.ip)) throw new AppError('ip_not_allowed');
    if (!auth.privileges.has(privilege)) {
      throw new AppError('privilege_missing', { params: { privilege } });
    }
    if (devOnly && auth.environmentType !== 'dev') throw new AppError('environment_not_allowed');
    request.authContext = auth;
  }
}

/** The caller of an authenticated route (set by the onRequest hook before any handler runs). */
export function authOf(request: FastifyRequest): AuthContext {
  const auth = request.authContext;
  if (auth === null) throw new AppError('unauthorized');
  return auth;
}

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
