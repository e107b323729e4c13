// Developer API client roles (contract 02 §2.7, §2.8). Envelope: { result: ... }.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import { AUTH_ERRORS, errorResponses, IdParams } from '../../http/schemas.ts';
import { CopyRoleBody, RoleListQuery, RoleListResult, RoleResult } from './developer_api_client_roles.schemas.ts';
import { copyRole, listRoles } from './developer_api_client_roles.service.ts';

const tags = ['Developer API clients'];

export function developerApiClientRolesRoutes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/developer_api_client_roles',
    {
      config: { privilege: 'developer_api_client_roles:read' },
      schema: {
        tags,
        summary: 'List developer API client roles',
        querystring: RoleListQuery,
        response: { 200: RoleListResult, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => ({ result: await listRoles(ctx, authOf(request).workspaceId, parsePage(request.query)) }),
  );

  app.post(
    '/api/developer_api_client_roles/:id/copy',
    {
      config: { privilege: 'developer_api_client_roles:write' },
      schema: {
        tags,
        summary: 'Copy a role, optionally with a narrower privilege list',
        params: IdParams,
        body: CopyRoleBody,
        response: { 200: RoleResult, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) => ({ result: await copyRole(ctx, authOf(request), request.params.id, request.body) }),
  );
}
