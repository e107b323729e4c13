// Jobs of a recipe (contract 10): GET /api/recipes/:recipe_id/jobs and .../jobs/:job_handle;
// job control beside them (10 §5): repeat_jobs and cancel_jobs.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { actorOf } from '../activity_logs/activity_logs.routes.ts';
import { authOf } from '../../http/auth.ts';
import { AUTH_ERRORS, errorResponses } from '../../http/schemas.ts';
import {
  JobControlResults,
  JobDetail,
  JobIdsBody,
  JobList,
  JobListParams,
  JobListQuery,
  JobParams,
} from './jobs.schemas.ts';
import { cancelJobs, getJob, listJobs, repeatJobs, type JobControl } from './jobs.service.ts';
import { emptyBodyAsObject } from '../../http/empty-body.ts';

const tags = ['Jobs'];

export function jobsRoutes(fastify: FastifyInstance, ctx: ServiceContext, runtime: { engine: JobControl }): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/recipes/:recipe_id/repeat_jobs',
    {
      config: { privilege: 'jobs:write', activity: 'in_service' },
      schema: {
        tags,
        summary:
          'Run finished jobs again: new jobs of the same trigger events (is_repeat, master_job_id); at most 25 ids',
        params: JobListParams,
        body: JobIdsBody,
        response: { 200: JobControlResults, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) =>
      repeatJobs(ctx, runtime.engine, authOf(request), request.params.recipe_id, request.body ?? {}, actorOf(request)),
  );

  app.post(
    '/api/recipes/:recipe_id/cancel_jobs',
    {
      config: { privilege: 'jobs:write', activity: 'in_service' },
      preValidation: emptyBodyAsObject,
      schema: {
        tags,
        summary: 'Cancel pending jobs (those named, or all): a queued job at once, a running one before its next step',
        params: JobListParams,
        body: JobIdsBody,
        response: { 200: JobControlResults, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) =>
      cancelJobs(ctx, runtime.engine, authOf(request), request.params.recipe_id, request.body ?? {}, actorOf(request)),
  );

  app.get(
    '/api/recipes/:recipe_id/jobs',
    {
      config: { privilege: 'jobs:read' },
      schema: {
        tags,
        summary: "List a recipe's jobs (newest first) with its job counters",
        params: JobListParams,
        querystring: JobListQuery,
        response: { 200: JobList, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => listJobs(ctx, authOf(request), request.params.recipe_id, request.query),
  );

  app.get(
    '/api/recipes/:recipe_id/jobs/:job_handle',
    {
      config: { privilege: 'jobs:read' },
      schema: {
        tags,
        summary: 'One job with its lines (never the step data)',
        params: JobParams,
        response: { 200: JobDetail, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => getJob(ctx, authOf(request), request.params.recipe_id, request.params.job_handle),
  );
}
