// POST /api/tags_assignments (contract 23 §3): attach and detach tags on recipes and connections.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { AUTH_ERRORS, errorResponses } from '../../http/schemas.ts';
import { AssignmentBody, AssignmentResult } from '../tags/tags.schemas.ts';
import { tagCallerOf } from '../tags/tags.routes.ts';
import { assignTags } from '../tags/tags.service.ts';

export function tagsAssignmentsRoutes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/tags_assignments',
    {
      config: { privilege: 'tags:write', activity: 'in_service' },
      schema: {
        tags: ['Tags'],
        summary: 'Attach (add_tags) or detach (remove_tags) tags on recipes and connections, all or nothing',
        body: AssignmentBody,
        response: { 200: AssignmentResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => assignTags(ctx, tagCallerOf(request), request.body),
  );
}
