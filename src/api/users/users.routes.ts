// GET /api/users/me (contract 05 §7): bare object; dev-environment clients only.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { AUTH_ERRORS, errorResponses } from '../../http/schemas.ts';
import { WorkspaceDetails } from './users.schemas.ts';
import { getWorkspaceDetails } from './users.service.ts';

export function usersRoutes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/users/me',
    {
      config: { privilege: 'workspace_details:read', devOnly: true },
      schema: {
        tags: ['Users'],
        summary: 'Details of the workspace the token belongs to',
        response: { 200: WorkspaceDetails, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => getWorkspaceDetails(ctx, authOf(request)),
  );
}
