// GET /api/members (contract 23 §6, 05 §6.2): collaborators and open invitations; dev clients only.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import { AUTH_ERRORS, errorResponses } from '../../http/schemas.ts';
import { MemberList, MembersQuery } from './members.schemas.ts';
import { listMembers } from './members.service.ts';

export function membersRoutes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/members',
    {
      config: { privilege: 'collaborators:read', devOnly: true },
      schema: {
        tags: ['Team collaborators'],
        summary: "The workspace's collaborators, then the invitations of people who have not joined",
        querystring: MembersQuery,
        response: { 200: MemberList, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => listMembers(ctx, authOf(request), request.query, parsePage(request.query)),
  );
}
