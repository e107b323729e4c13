// The console's API clients (URLs under /console/api-platform/clients), rendered by ./api-clients.ts:
// the same services as /api/v2/api_clients and their keys, with the same privilege.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdParams } from '../../http/schemas.ts';
import {
  createApiClientV2,
  createApiKey,
  deleteApiKey,
  getApiClientV2,
} from '../../api/api_clients/api_clients_v2.service.ts';
import { listCollections } from '../../api/api_collections/api_collections.service.ts';
import {
  apiClientNewPage,
  apiClientPage,
  CLIENT_AUTH_TYPES,
  type ClientAuthType,
  type ClientData,
} from './api-clients.ts';
import { refusalOf } from './form-fields.ts';
import { actorOf } from '../../api/activity_logs/activity_logs.routes.ts';
import { recordActivity } from '../../api/activity_logs/activity.ts';
import { type ConsoleKit, Form, NoticeQuery } from '../kit.ts';

const NewClientForm = Type.Object(
  {
    _csrf: Type.String({ maxLength: 100 }),
    name: Type.Optional(Type.String({ maxLength: 1000 })),
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
    auth_type: Type.Optional(
      Type.Union((Object.keys(CLIENT_AUTH_TYPES) as ClientAuthType[]).map((a) => Type.Literal(a))),
    ),
  },
  // One `collection_<id>` checkbox per collection.
  { additionalProperties: Type.String({ maxLength: 10 }) },
);
const KeyParams = Type.Object({ id: IdParams.properties.id, key_id: IdParams.properties.id });

export function consoleApiClientsRoutes(fastify: FastifyInstance, kit: ConsoleKit): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx, frameOf, callerWith, can, send, csrfOf, noticeOf, hide } = kit;
  const all = { offset: 0, perPage: 1000 };

  app.get('/console/api-platform/clients/new', { schema: hide }, async (request, reply) => {
    const auth = callerWith(request, 'api_platform_clients:write');
    return send(
      reply,
      apiClientNewPage(
        { ...frameOf(request, 'api-platform'), title: 'New API client' },
        await listCollections(ctx, auth, all),
        { name: '', description: '', auth_type: 'token', collection_ids: [] },
        csrfOf(request),
      ),
    );
  });

  app.post(
    '/console/api-platform/clients/new',
    { schema: { ...hide, body: NewClientForm } },
    async (request, reply) => {
      const auth = callerWith(request, 'api_platform_clients:write');
      const body = request.body as Record<string, string | undefined>;
      const draft = {
        name: body.name ?? '',
        description: body.description ?? '',
        auth_type: (body.auth_type ?? 'token') as ClientAuthType,
        collection_ids: Object.keys(body).flatMap((k) => {
          const id = /^collection_([1-9]\d{0,14})$/.exec(k)?.[1];
          return id !== undefined ? [Number(id)] : [];
        }),
      };
      try {
        const client = await createApiClientV2(ctx, auth, {
          name: draft.name,
          ...(draft.description.trim() !== '' ? { description: draft.description } : {}),
          auth_type: draft.auth_type,
          api_collection_ids: draft.collection_ids,
        });
        return reply.redirect(`/console/api-platform/clients/${client.id}?done=client_created`, 303);
      } catch (error) {
        const refusal = refusalOf(error);
        return send(
          reply,
          apiClientNewPage(
            { ...frameOf(request, 'api-platform'), title: 'New API client' },
            await listCollections(ctx, auth, all),
            draft,
            csrfOf(request),
            refusal,
          ),
          refusal.status,
        );
      }
    },
  );

  async function showClient(
    request: FastifyRequest,
    reply: FastifyReply,
    id: number,
    extra: Pick<ClientData, 'message' | 'issued' | 'keyName' | 'refusal'> = {},
    status = 200,
  ) {
    const client = await getApiClientV2(ctx, callerWith(request, 'api_platform_clients:read'), id);
    return send(
      reply,
      apiClientPage(
        { ...frameOf(request, 'api-platform'), title: client.name },
        { client, canWrite: can(request, 'api_platform_clients:write'), ...extra },
        csrfOf(request),
      ),
      status,
    );
  }

  app.get(
    '/console/api-platform/clients/:id',
    { schema: { ...hide, params: IdParams, querystring: NoticeQuery } },
    async (request, reply) => showClient(request, reply, request.params.id, { message: noticeOf(request.query.done) }),
  );

  // A key's secret is in this reply only (200, not a redirect): it is stored as a hash.
  app.post(
    '/console/api-platform/clients/:id/keys',
    {
      schema: {
        ...hide,
        params: IdParams,
        body: Type.Object({
          _csrf: Type.String({ maxLength: 100 }),
          name: Type.Optional(Type.String({ maxLength: 1000 })),
        }),
      },
    },
    async (request, reply) => {
      const auth = callerWith(request, 'api_platform_clients:write');
      const name = request.body.name ?? '';
      try {
        const key = await createApiKey(ctx, auth, request.params.id, { name, active: true });
        // The reply is the page with the secret (200), which the activity hook does not read: recorded
        // here as the API records POST /api/v2/api_clients/:api_client_id/api_keys, by the key's id.
        await ctx.groupCommit.run((trx) =>
          recordActivity(trx, ctx.clock, actorOf(request, 'console'), {
            eventType: 'api_key_created',
            resourceType: 'api_key',
            resourceId: String(key.id),
            details: { route: `POST ${request.routeOptions.url}`, params: { id: String(request.params.id) } },
          }),
        );
        return showClient(request, reply, request.params.id, {
          issued: { name: key.name, secret: key.auth_token, oauthClientId: key.oauth_client_id },
        });
      } catch (error) {
        const refusal = refusalOf(error);
        return showClient(request, reply, request.params.id, { keyName: name, refusal }, refusal.status);
      }
    },
  );

  app.post(
    '/console/api-platform/clients/:id/keys/:key_id/revoke',
    { schema: { ...hide, params: KeyParams, body: Form({}) } },
    async (request, reply) => {
      await deleteApiKey(
        ctx,
        callerWith(request, 'api_platform_clients:write'),
        request.params.id,
        request.params.key_id,
      );
      return reply.redirect(`/console/api-platform/clients/${request.params.id}?done=key_revoked`, 303);
    },
  );
}
