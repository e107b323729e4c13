// POST /api/member_invitations (contract 05 §6.1): invite a collaborator; {"result": "ok"}.
// Dev-environment clients only, as the vendor requires for collaborator management.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { AUTH_ERRORS, errorResponses, toId } from '../../http/schemas.ts';
import { InvitationBody, InvitationResult } from './member_invitations.schemas.ts';
import { inviteMember } from './member_invitations.service.ts';

export function memberInvitationsRoutes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/member_invitations',
    {
      config: { privilege: 'collaborators:write', devOnly: true },
      schema: {
        tags: ['Collaborators'],
        summary: 'Invite a collaborator to the workspace',
        body: InvitationBody,
        response: { 200: InvitationResult, ...errorResponses(...AUTH_ERRORS, 422, 429, 502) },
      },
    },
    async (request) => {
      const auth = authOf(request);
      const { user_group_ids: groupIds, ...rest } = request.body;
      await inviteMember(
        ctx,
        { workspaceId: auth.workspaceId, clientId: auth.clientId },
        { ...rest, ...(groupIds ? { user_group_ids: groupIds.map(toId) } : {}) },
      );
      return { result: 'ok' as const };
    },
  );
}
