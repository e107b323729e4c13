// A connection's console page and its Connect: through the provider's OAuth 2.0 redirect, or a
// test of the connection's fields (rendered by ./connection.ts; src/console/README.md).
import { actorOf } from '../../api/activity_logs/activity_logs.routes.ts';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdParams } from '../../http/schemas.ts';
import { describeConnection, updateConnection } from '../../api/connections/connections.service.ts';
import { OAUTH_COOKIE, OAUTH_STATE_TTL_MS, startAuthorization } from '../../connectors/auth/flow.ts';
import { connectionPage, toProviderPage } from './connection.ts';
import { type ConsoleKit, Form } from '../kit.ts';

export function consoleConnectionRoutes(fastify: FastifyInstance, kit: ConsoleKit): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx, frameOf, callerWith, can, send, csrfOf, noticeOf, hide } = kit;

  app.get(
    '/console/connections/:id',
    {
      schema: {
        ...hide,
        params: IdParams,
        querystring: Type.Object({
          done: Type.Optional(Type.String({ maxLength: 40 })),
          authorization: Type.Optional(Type.String({ maxLength: 20 })),
        }),
      },
    },
    async (request, reply) => {
      const described = await describeConnection(ctx, callerWith(request, 'connections:read'), request.params.id);
      const { authorization, done } = request.query;
      const status = described.connection.authorization_status;
      const message =
        authorization === 'success' && status === 'success'
          ? { text: 'Connected.', kind: 'ok' as const }
          : authorization === 'failed'
            ? { text: 'The connection was not authorized: see the problem below.', kind: 'error' as const }
            : noticeOf(done);
      return send(
        reply,
        connectionPage(
          { ...frameOf(request, 'connections'), title: described.connection.name },
          described.connection,
          {
            connectorTitle: described.connectorTitle,
            redirect: described.redirect,
            canWrite: can(request, 'connections:write'),
          },
          csrfOf(request),
          message,
        ),
      );
    },
  );

  app.post(
    '/console/connections/:id/connect',
    { schema: { ...hide, params: IdParams, body: Form({}) } },
    async (request, reply) => {
      const caller = callerWith(request, 'connections:write');
      const described = await describeConnection(ctx, caller, request.params.id);
      if (!described.redirect) {
        await updateConnection(
          ctx,
          caller,
          request.params.id,
          { shell_connection: false },
          actorOf(request, 'console'),
        );
        return reply.redirect(`/console/connections/${request.params.id}?done=tested`, 303);
      }
      const { url, browserNonce } = await startAuthorization(ctx, caller, request.params.id);
      // The callback must come back to this browser: a cookie only /oauth/callback reads, sent on
      // the provider's top-level redirect back (SameSite=Lax), gone after ten minutes.
      const secure = request.protocol === 'https' ? '; Secure' : '';
      reply.header(
        'set-cookie',
        `${OAUTH_COOKIE}=${browserNonce}; Path=/oauth/callback; HttpOnly; SameSite=Lax; Max-Age=${OAUTH_STATE_TTL_MS / 1000}${secure}`,
      );
      return send(
        reply,
        toProviderPage(
          { ...frameOf(request, 'connections'), title: `Connect ${described.connection.name}` },
          described.connectorTitle ?? described.connection.provider,
          url,
        ),
      );
    },
  );
}
