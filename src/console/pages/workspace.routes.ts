// The console's workspace section: its routes, rendered by ./workspace.ts (src/console/README.md).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError, invalid, type FieldErrors } from '../../errors.ts';
import { IdParams } from '../../http/schemas.ts';
import { listProfiles, refreshSecret } from '../../api/api_access_profiles/api_access_profiles.service.ts';
import { listApiClients } from '../../api/api_clients/api_clients.service.ts';
import { listCollections } from '../../api/api_collections/api_collections.service.ts';
import { listEndpoints } from '../../api/api_endpoints/api_endpoints.service.ts';
import { listConnections } from '../../api/connections/connections.service.ts';
import { tagsByHandle } from '../../api/tags/tags.service.ts';
import { listProperties, upsertProperties } from '../../api/properties/properties.service.ts';
import { createTopic, deleteTopic, getTopic, listTopics } from '../../api/event_streams/event_streams.service.ts';
import { EMPTY_TOPIC, RETENTION_UNITS, topicNewPage, type RetentionUnit, type TopicDraft } from './topic-form.ts';
import { refusalOf } from './form-fields.ts';
import { propertiesPage, type PropertiesData } from './properties.ts';
import { query } from '../html.ts';
import { publishMessage, recentMessages } from '../../api/topics/topics.service.ts';
import { listDeployments } from '../../api/deployments/deployments.service.ts';
import { listProjects } from '../../api/projects/projects.service.ts';
import { getRunRequest, listRecentRunRequests, startRunRequest } from '../../api/test_cases/test_cases.service.ts';
import {
  apiPlatformPage,
  connectionsPage,
  deploymentsPage,
  testRunPage,
  testRunsPage,
  topicPage,
  topicsPage,
} from './workspace.ts';
import { type ConsoleKit, Form, NoticeQuery } from '../kit.ts';

export function consoleWorkspaceRoutes(fastify: FastifyInstance, kit: ConsoleKit): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx, frameOf, sessionOf, callerWith, can, send, csrfOf, noticeOf, hide } = kit;

  // API platform
  async function showApiPlatform(
    request: FastifyRequest,
    reply: FastifyReply,
    issued?: { profile: Awaited<ReturnType<typeof refreshSecret>>; secret: string },
  ) {
    const auth = callerWith(request, 'api_platform_clients:read');
    const seesCollections = can(request, 'api_platform_collections:read');
    const all = { offset: 0, perPage: 100 };
    const [collections, endpoints, clients, profiles] = await Promise.all([
      seesCollections ? listCollections(ctx, auth, all) : null,
      seesCollections ? listEndpoints(ctx, auth, undefined, all) : null,
      listApiClients(ctx, auth, undefined, all),
      listProfiles(ctx, auth, undefined, all),
    ]);
    return send(
      reply,
      apiPlatformPage(
        { ...frameOf(request, 'api-platform'), title: 'API platform' },
        {
          collections,
          endpoints,
          clients,
          profiles,
          canWrite: can(request, 'api_platform_clients:write'),
          issued,
        },
        csrfOf(request),
      ),
    );
  }

  app.get('/console/api-platform', { schema: hide }, async (request, reply) => showApiPlatform(request, reply));

  app.post(
    '/console/api-platform/access-profiles/:id/refresh-secret',
    { schema: { ...hide, params: IdParams, body: Form({}) } },
    async (request, reply) => {
      const profile = await refreshSecret(ctx, callerWith(request, 'api_platform_clients:write'), request.params.id);
      const secret = profile.oauth_client_secret ?? profile.secret ?? '';
      // Shown in this reply only (never in a URL, never stored in the clear).
      return showApiPlatform(request, reply, { profile, secret });
    },
  );

  // Connections, properties, topics
  app.get('/console/connections', { schema: { ...hide, querystring: NoticeQuery } }, async (request, reply) => {
    const connections = await listConnections(
      ctx,
      callerWith(request, 'connections:read'),
      { includeRuntime: false },
      { offset: 0, perPage: 100 },
    );
    const tags = await tagsByHandle(
      ctx,
      sessionOf(request).auth,
      connections.flatMap((c) => c.tags),
    );
    return send(
      reply,
      connectionsPage({ ...frameOf(request, 'connections'), title: 'Connections' }, connections, tags, {
        canWrite: can(request, 'connections:write'),
        message: noticeOf(request.query.done),
      }),
    );
  });

  // Environment properties, or a project's (`project_id`): listed, set and changed as POST /api/properties.
  async function showProperties(
    request: FastifyRequest,
    reply: FastifyReply,
    projectId: number | undefined,
    extra: Pick<PropertiesData, 'message' | 'draft' | 'refusal'> = {},
    status = 200,
  ) {
    const properties = await listProperties(ctx, callerWith(request, 'environment_properties:read'), {
      ...(projectId !== undefined ? { projectId } : {}),
    });
    return send(
      reply,
      propertiesPage(
        { ...frameOf(request, 'properties'), title: 'Properties' },
        { properties, projectId, canWrite: can(request, 'environment_properties:write'), ...extra },
        csrfOf(request),
      ),
      status,
    );
  }

  app.get('/console/properties', { schema: { ...hide, querystring: PropertiesQuery } }, async (request, reply) =>
    showProperties(request, reply, projectOf(request.query.project_id), { message: noticeOf(request.query.done) }),
  );

  app.post('/console/properties', { schema: { ...hide, body: PropertyForm } }, async (request, reply) => {
    const caller = callerWith(request, 'environment_properties:write');
    const projectId = projectOf(request.body.project_id);
    const draft = { name: request.body.name ?? '', value: request.body.value ?? '' };
    try {
      await upsertProperties(ctx, caller, {
        properties: { [draft.name]: draft.value },
        ...(projectId !== undefined ? { projectId } : {}),
      });
    } catch (error) {
      const refusal = refusalOf(error);
      return showProperties(request, reply, projectId, { draft, refusal }, refusal.status);
    }
    return reply.redirect(`/console/properties${query({ project_id: projectId, done: 'property_saved' })}`, 303);
  });
}

const ProjectIdText = Type.String({ maxLength: 16, pattern: '^([1-9][0-9]{0,14})?$' });
const PropertiesQuery = Type.Object({
  project_id: Type.Optional(ProjectIdText),
  done: NoticeQuery.properties.done,
});
const PropertyForm = Type.Object({
  _csrf: Type.String({ maxLength: 100 }),
  project_id: Type.Optional(ProjectIdText),
  name: Type.Optional(Type.String({ maxLength: 1000 })),
  value: Type.Optional(Type.String({ maxLength: 10_000 })),
});
const projectOf = (text: string | undefined) => (text === undefined || text === '' ? undefined : Number(text));

const NewTopicForm = Type.Object({
  _csrf: Type.String({ maxLength: 100 }),
  name: Type.Optional(Type.String({ maxLength: 255 })),
  description: Type.Optional(Type.String({ maxLength: 10_000 })),
  retention: Type.Optional(Type.String({ maxLength: 20 })),
  unit: Type.Optional(Type.Union((Object.keys(RETENTION_UNITS) as RetentionUnit[]).map((u) => Type.Literal(u)))),
  schema: Type.Optional(Type.String({ maxLength: 200_000 })),
  folder_id: Type.Optional(Type.String({ maxLength: 40 })),
});

export function consoleTopicsRoutes(fastify: FastifyInstance, kit: ConsoleKit): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx, eventStreams, frameOf, callerWith, can, send, csrfOf, noticeOf, hide } = kit;

  app.get('/console/topics', { schema: { ...hide, querystring: NoticeQuery } }, async (request, reply) => {
    const topics = await listTopics(
      ctx,
      callerWith(request, 'event_streams:read'),
      { sort: 'name', includeSchema: false },
      { offset: 0, perPage: 100 },
    );
    return send(
      reply,
      topicsPage({ ...frameOf(request, 'topics'), title: 'Topics' }, topics, {
        canWrite: can(request, 'event_streams:write'),
        message: noticeOf(request.query.done),
      }),
    );
  });

  // A new topic (as POST /api/event_streams/topics).
  app.get('/console/topics/new', { schema: hide }, async (request, reply) => {
    callerWith(request, 'event_streams:write');
    return send(
      reply,
      topicNewPage({ ...frameOf(request, 'topics'), title: 'New topic' }, EMPTY_TOPIC, csrfOf(request)),
    );
  });

  app.post('/console/topics/new', { schema: { ...hide, body: NewTopicForm } }, async (request, reply) => {
    const auth = callerWith(request, 'event_streams:write');
    const body = request.body;
    const draft: TopicDraft = {
      name: body.name ?? '',
      description: body.description ?? '',
      retention: (body.retention ?? '').trim(),
      unit: body.unit ?? 'days',
      schema: body.schema ?? '',
      folder_id: (body.folder_id ?? '').trim(),
    };
    try {
      const errors: FieldErrors = {};
      let schema: unknown;
      if (draft.schema.trim() !== '') {
        try {
          schema = JSON.parse(draft.schema);
        } catch {
          errors.schema = ['is not valid JSON'];
        }
      }
      if (draft.retention !== '' && !/^\d{1,12}$/.test(draft.retention)) errors.retention = ['must be a whole number'];
      if (draft.folder_id !== '' && !/^[1-9]\d{0,15}$/.test(draft.folder_id)) errors.folder_id = ['must be an integer'];
      // The service checks what it can (name, schema, retention) so that every problem shows at once.
      if (Object.keys(errors).length > 0) throw invalid(errors);
      const topic = await createTopic(ctx, auth, {
        name: draft.name,
        ...(draft.description.trim() !== '' ? { description: draft.description } : {}),
        ...(schema !== undefined ? { schema } : {}),
        ...(draft.retention !== '' ? { retention: Number(draft.retention) * RETENTION_UNITS[draft.unit] } : {}),
        ...(draft.folder_id !== '' ? { folder_id: Number(draft.folder_id) } : {}),
      });
      return reply.redirect(`/console/topics/${topic.id}?done=topic_created`, 303);
    } catch (error) {
      const refusal = refusalOf(error);
      // A problem inside the schema (`schema[0].type`) is shown on the schema, naming where.
      const errors: FieldErrors = {};
      for (const [key, problems] of Object.entries(refusal.errors)) {
        if (key.startsWith('schema') && key !== 'schema')
          (errors.schema ??= []).push(...problems.map((p) => `${key.slice('schema'.length).replace(/^\./, '')} ${p}`));
        else errors[key] = [...(errors[key] ?? []), ...problems];
      }
      return send(
        reply,
        topicNewPage({ ...frameOf(request, 'topics'), title: 'New topic' }, draft, csrfOf(request), {
          ...refusal,
          errors,
        }),
        refusal.status,
      );
    }
  });

  // Delete a topic and its messages (as DELETE /api/event_streams/topics/:id).
  app.post(
    '/console/topics/:id/delete',
    { schema: { ...hide, params: IdParams, body: Form({}) } },
    async (request, reply) => {
      await deleteTopic(ctx, callerWith(request, 'event_streams:write'), request.params.id);
      return reply.redirect('/console/topics?done=topic_deleted', 303);
    },
  );

  async function showTopic(
    request: FastifyRequest,
    reply: FastifyReply,
    id: number,
    extra: { message?: { text: string; kind: 'ok' | 'error' } | undefined; draft?: string } = {},
    status = 200,
  ) {
    const topic = await getTopic(ctx, callerWith(request, 'event_streams:read'), id);
    const state = await eventStreams.topics.get(topic.id);
    const messages = state ? await recentMessages(ctx, state, 20) : [];
    return send(
      reply,
      topicPage(
        { ...frameOf(request, 'topics'), title: topic.name },
        { topic, schema: topic.schema, messages, canPublish: can(request, 'event_streams:write'), ...extra },
        csrfOf(request),
      ),
      status,
    );
  }

  app.get(
    '/console/topics/:id',
    { schema: { ...hide, params: IdParams, querystring: NoticeQuery } },
    async (request, reply) => showTopic(request, reply, request.params.id, { message: noticeOf(request.query.done) }),
  );

  app.post(
    '/console/topics/:id/publish',
    {
      schema: {
        ...hide,
        params: IdParams,
        body: Type.Object({ _csrf: Type.String({ maxLength: 100 }), payload: Type.String({ maxLength: 200_000 }) }),
      },
    },
    async (request, reply) => {
      const topic = await getTopic(ctx, callerWith(request, 'event_streams:write'), request.params.id);
      let payload: unknown;
      try {
        payload = JSON.parse(request.body.payload);
      } catch {
        return showTopic(
          request,
          reply,
          topic.id,
          { message: { text: 'The message is not JSON.', kind: 'error' }, draft: request.body.payload },
          400,
        );
      }
      const state = await eventStreams.topics.get(topic.id);
      if (!state) throw new AppError('topic_not_found');
      try {
        await publishMessage(eventStreams, state, payload);
      } catch (error) {
        if (error instanceof AppError && error.status < 500)
          return showTopic(
            request,
            reply,
            topic.id,
            { message: { text: error.message, kind: 'error' }, draft: request.body.payload },
            error.status,
          );
        throw error;
      }
      return reply.redirect(`/console/topics/${topic.id}?done=published`, 303);
    },
  );
}

export function consoleDeploymentsRoutes(fastify: FastifyInstance, kit: ConsoleKit): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx, tests, frameOf, callerWith, can, send, hide } = kit;

  // Deployments and test runs
  app.get('/console/deployments', { schema: hide }, async (request, reply) => {
    const auth = callerWith(request, 'project_deployments:read');
    const [{ items }, projects] = await Promise.all([
      listDeployments(ctx, auth, {}, { offset: 0, perPage: 100 }),
      // Each deployment's project by its name, when the caller may read projects.
      can(request, 'projects_folders:read') ? listProjects(ctx, auth, { offset: 0, perPage: 1000 }) : [],
    ]);
    const names = new Map(projects.map((p) => [String(p.id), p.name]));
    return send(reply, deploymentsPage({ ...frameOf(request, 'deployments'), title: 'Deployments' }, items, names));
  });

  app.get('/console/test-runs', { schema: hide }, async (request, reply) => {
    const runs = await listRecentRunRequests(ctx, callerWith(request, 'test_cases:read'), 20);
    return send(reply, testRunsPage({ ...frameOf(request, 'test-runs'), title: 'Test runs' }, runs));
  });

  app.post(
    '/console/test-runs',
    {
      schema: {
        ...hide,
        body: Type.Object({
          _csrf: Type.String({ maxLength: 100 }),
          recipe_id: Type.String({ minLength: 1, maxLength: 20, pattern: '^[0-9]+$' }),
          test_case_id: Type.Optional(Type.String({ maxLength: 100 })),
        }),
      },
    },
    async (request, reply) => {
      const auth = callerWith(request, 'test_cases:write');
      const input = request.body.test_case_id
        ? { test_case_ids: [request.body.test_case_id] }
        : { recipe_id: Number(request.body.recipe_id) };
      const { data } = await startRunRequest(ctx, tests, auth, input);
      return reply.redirect(`/console/test-runs/${encodeURIComponent(data.id)}`, 303);
    },
  );

  app.get(
    '/console/test-runs/:id',
    { schema: { ...hide, params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }) } },
    async (request, reply) => {
      const { data } = await getRunRequest(ctx, callerWith(request, 'test_cases:read'), request.params.id);
      return send(reply, testRunPage({ ...frameOf(request, 'test-runs'), title: `Test run ${data.id}` }, data));
    },
  );
}
