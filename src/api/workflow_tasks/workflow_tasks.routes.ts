// Workflow tasks (src/api/workflow_tasks/README.md): the tasks that waiting jobs stopped at, and
// their completion or cancel, which lets the job go on.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { emptyBodyAsObject } from '../../http/empty-body.ts';
import { AUTH_ERRORS, errorResponses, IdParams } from '../../http/schemas.ts';
import { CompleteTaskBody, WorkflowTask, WorkflowTaskList, WorkflowTaskListQuery } from './workflow_tasks.schemas.ts';
import { cancelTask, completeTask, getTask, listTasks, type WorkflowTaskRuntime } from './workflow_tasks.service.ts';

const tags = ['Workflow tasks'];

export function workflowTasksRoutes(
  fastify: FastifyInstance,
  ctx: ServiceContext,
  runtime: { engine: WorkflowTaskRuntime },
): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/workflow_tasks',
    {
      config: { privilege: 'jobs:read' },
      schema: {
        tags,
        summary: 'List workflow tasks (oldest first), by recipe, status and assignee',
        querystring: WorkflowTaskListQuery,
        response: { 200: WorkflowTaskList, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => listTasks(ctx, authOf(request), request.query),
  );

  app.get(
    '/api/workflow_tasks/:id',
    {
      config: { privilege: 'jobs:read' },
      schema: {
        tags,
        summary: 'One workflow task',
        params: IdParams,
        response: { 200: WorkflowTask, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => getTask(ctx, authOf(request), request.params.id),
  );

  app.post(
    '/api/workflow_tasks/:id/complete',
    {
      config: { privilege: 'jobs:write' },
      preValidation: emptyBodyAsObject,
      schema: {
        tags,
        summary: "Complete an open task (approve, reject, or submit the form's values); its job goes on",
        params: IdParams,
        body: CompleteTaskBody,
        response: { 200: WorkflowTask, ...errorResponses(...AUTH_ERRORS, 404, 409) },
      },
    },
    async (request) => completeTask(ctx, runtime.engine, authOf(request), request.params.id, request.body ?? {}),
  );

  app.post(
    '/api/workflow_tasks/:id/cancel',
    {
      config: { privilege: 'jobs:write' },
      schema: {
        tags,
        summary: "Cancel an open task; its job goes on with the step's status canceled",
        params: IdParams,
        response: { 200: WorkflowTask, ...errorResponses(...AUTH_ERRORS, 404, 409) },
      },
    },
    async (request) => cancelTask(ctx, runtime.engine, authOf(request), request.params.id),
  );
}
