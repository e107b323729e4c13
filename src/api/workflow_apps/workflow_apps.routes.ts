// Workflow apps (src/api/workflow_apps/README.md): the apps (a data table of requests and its
// workflow stages), a request's stage, and the calls of app function recipes that a page's
// components make.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { emptyBodyAsObject } from '../../http/empty-body.ts';
import { parsePage } from '../../http/pagination.ts';
import { AUTH_ERRORS, errorResponses, IdParams, SuccessBody } from '../../http/schemas.ts';
import {
  AppFunctionBody,
  AppFunctionParams,
  AppFunctionResult,
  CreateWorkflowAppBody,
  RequestParams,
  UpdateWorkflowAppBody,
  WorkflowApp,
  WorkflowAppList,
  WorkflowAppListQuery,
  WorkflowRequest,
} from './workflow_apps.schemas.ts';
import {
  callAppFunction,
  createApp,
  deleteApp,
  getApp,
  getRequest,
  listApps,
  updateApp,
  type AppFunctionRuntime,
} from './workflow_apps.service.ts';

const tags = ['Workflow apps'];

export function workflowAppsRoutes(
  fastify: FastifyInstance,
  ctx: ServiceContext,
  runtime: { engine: AppFunctionRuntime },
): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/workflow_apps',
    {
      config: { privilege: 'data_tables:read' },
      schema: {
        tags,
        summary: "List the environment's Workflow apps",
        querystring: WorkflowAppListQuery,
        response: { 200: WorkflowAppList, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => listApps(ctx, authOf(request), parsePage(request.query)),
  );

  app.post(
    '/api/workflow_apps',
    {
      config: { privilege: 'data_tables:write' },
      schema: {
        tags,
        summary: 'Create a Workflow app: the data table of its requests and its workflow stages',
        body: CreateWorkflowAppBody,
        response: { 200: WorkflowApp, ...errorResponses(...AUTH_ERRORS, 422) },
      },
    },
    async (request) => createApp(ctx, authOf(request), request.body),
  );

  app.get(
    '/api/workflow_apps/:id',
    {
      config: { privilege: 'data_tables:read' },
      schema: {
        tags,
        summary: 'One Workflow app',
        params: IdParams,
        response: { 200: WorkflowApp, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => getApp(ctx, authOf(request), request.params.id),
  );

  app.put(
    '/api/workflow_apps/:id',
    {
      config: { privilege: 'data_tables:write' },
      preValidation: emptyBodyAsObject,
      schema: {
        tags,
        summary: 'Rename an app or change its stages (requests at a removed stage go back to the first)',
        params: IdParams,
        body: UpdateWorkflowAppBody,
        response: { 200: WorkflowApp, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) => updateApp(ctx, authOf(request), request.params.id, request.body ?? {}),
  );

  app.delete(
    '/api/workflow_apps/:id',
    {
      config: { privilege: 'data_tables:write' },
      schema: {
        tags,
        summary: 'Delete a Workflow app (its data table and records stay)',
        params: IdParams,
        response: { 200: SuccessBody, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => deleteApp(ctx, authOf(request), request.params.id),
  );

  app.get(
    '/api/workflow_apps/:id/requests/:record_id',
    {
      config: { privilege: 'data_tables:read' },
      schema: {
        tags,
        summary: 'A request of the app: its record and its workflow stage',
        params: RequestParams,
        response: { 200: WorkflowRequest, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => getRequest(ctx, authOf(request), request.params.id, request.params.record_id),
  );

  app.post(
    '/api/workflow_apps/app_functions/:recipe_id',
    {
      config: { privilege: 'jobs:write' },
      preValidation: emptyBodyAsObject,
      schema: {
        tags,
        summary:
          "Call an app function recipe as a page's component does, and answer what its app_function_return gives back",
        params: AppFunctionParams,
        body: AppFunctionBody,
        response: { 200: AppFunctionResult, ...errorResponses(...AUTH_ERRORS, 404, 422, 429, 504) },
      },
    },
    async (request) =>
      callAppFunction(ctx, authOf(request), runtime.engine, request.params.recipe_id, request.body ?? {}),
  );
}
