// The console's workflow tasks section: its routes, rendered by ./workflow-tasks.ts (src/console/README.md).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../errors.ts';
import { IdParams } from '../../http/schemas.ts';
import { completeTask, getTask, listTasks } from '../../api/workflow_tasks/workflow_tasks.service.ts';
import { getClient } from '../../api/developer_api_clients/developer_api_clients.service.ts';
import { TASK_STATUSES, workflowTaskPage, workflowTasksPage } from './workflow-tasks.ts';
import { type ConsoleKit, NoticeQuery } from '../kit.ts';

export function consoleWorkflowTasksRoutes(fastify: FastifyInstance, kit: ConsoleKit): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx, engine, frameOf, callerWith, can, send, csrfOf, noticeOf, hide } = kit;

  // Workflow tasks
  app.get(
    '/console/workflow-tasks',
    {
      schema: {
        ...hide,
        querystring: Type.Object({
          status: Type.Optional(Type.Union(TASK_STATUSES.map((s) => Type.Literal(s)))),
          assignee: Type.Optional(Type.String({ maxLength: 255 })),
        }),
      },
    },
    async (request, reply) => {
      const status = request.query.status ?? 'open';
      const assignee = request.query.assignee || undefined;
      const { items } = await listTasks(ctx, callerWith(request, 'jobs:read'), {
        status,
        ...(assignee ? { assignee } : {}),
        per_page: 100,
      });
      // Newest first (the service pages oldest first by id).
      return send(
        reply,
        workflowTasksPage(
          { ...frameOf(request, 'workflow-tasks'), title: 'Workflow tasks' },
          { tasks: [...items].reverse(), status, assignee },
        ),
      );
    },
  );

  async function showTask(
    request: FastifyRequest,
    reply: FastifyReply,
    id: number,
    extra: { message?: { text: string; kind: 'ok' | 'error' } | undefined; draft?: Record<string, string> } = {},
    status = 200,
  ) {
    const task = await getTask(ctx, callerWith(request, 'jobs:read'), id);
    return send(
      reply,
      workflowTaskPage(
        { ...frameOf(request, 'workflow-tasks'), title: task.name },
        { task, canComplete: can(request, 'jobs:write'), ...extra },
        csrfOf(request),
      ),
      status,
    );
  }

  app.get(
    '/console/workflow-tasks/:id',
    { schema: { ...hide, params: IdParams, querystring: NoticeQuery } },
    async (request, reply) => showTask(request, reply, request.params.id, { message: noticeOf(request.query.done) }),
  );

  /** A form field's text as the value its type takes (what cannot be read stays text: the service names the problem). */
  function fieldValue(type: string, text: string): unknown {
    if ((type === 'integer' || type === 'number') && /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(text))
      return Number(text);
    if (type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
    return text;
  }

  app.post(
    '/console/workflow-tasks/:id/complete',
    {
      schema: {
        ...hide,
        params: IdParams,
        body: Type.Object(
          {
            _csrf: Type.String({ maxLength: 100 }),
            decision: Type.Union([Type.Literal('approved'), Type.Literal('rejected'), Type.Literal('completed')]),
            comments: Type.Optional(Type.String({ maxLength: 10_000 })),
          },
          { additionalProperties: Type.String({ maxLength: 10_240 }) },
        ),
      },
    },
    async (request, reply) => {
      const auth = callerWith(request, 'jobs:write');
      const task = await getTask(ctx, auth, request.params.id);
      const body = request.body as Record<string, string>;
      const fields: Record<string, unknown> = {};
      task.form_fields.forEach((field, i) => {
        const text = body[`field_${i}`];
        if (text !== undefined && text !== '') fields[field.name] = fieldValue(field.type, text);
      });
      try {
        await completeTask(ctx, engine, auth, task.id, {
          ...(task.task_type === 'approval' ? { status: request.body.decision } : {}),
          fields,
          ...(request.body.comments ? { comments: request.body.comments } : {}),
          // Whoever completes it here, not the assignee the API would default to.
          completed_by: (await getClient(ctx, auth.workspaceId, auth.clientId)).name,
        });
      } catch (error) {
        const problem =
          error instanceof AppError && (error.status === 400 || error.code === 'workflow_task_not_open')
            ? error
            : undefined;
        if (!problem) throw error;
        return showTask(
          request,
          reply,
          task.id,
          { message: { text: `Not completed: ${problem.message}`, kind: 'error' }, draft: body },
          problem.status,
        );
      }
      return reply.redirect(`/console/workflow-tasks/${task.id}?done=task_completed`, 303);
    },
  );
}
