// Jobs of a recipe (contract 10): GET /api/recipes/:recipe_id/jobs and .../jobs/:job_handle.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { AUTH_ERRORS, errorResponses } from '../../http/schemas.ts';
import { JobDetail, JobList, JobListParams, JobListQuery, JobParams } from './jobs.schemas.ts';
import { getJob, listJobs } from './jobs.service.ts';

const tags = ['Jobs'];

export function jobsRoutes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/api/recipes/:recipe_id/jobs', {
    config: { privilege: 'jobs:read' },
    schema: { tags, summary: "List a recipe's jobs (newest first) with its job counters", params: JobListParams, querystring: JobListQuery, response: { 200: JobList, ...errorResponses(...AUTH_ERRORS, 404) } },
  }, async (request) => listJobs(ctx, authOf(request), request.params.recipe_id, request.query));

  app.get('/api/recipes/:recipe_id/jobs/:job_handle', {
    config: { privilege: 'jobs:read' },
    schema: { tags, summary: 'One job with its lines (never the step data)', params: JobParams, response: { 200: JobDetail, ...errorResponses(...AUTH_ERRORS, 404) } },
  }, async (request) => getJob(ctx, authOf(request), request.params.recipe_id, request.params.job_handle));
}
