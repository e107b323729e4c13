// Legacy collaborator roles (contract 05 §4). Bare replies: the list is an array, a role an object.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import { AUTH_ERRORS, errorResponses, toId } from '../../http/schemas.ts';
import {
  CollaboratorRole,
  CollaboratorRoleList,
  CopyRoleBody,
  RoleIdParams,
  RoleListQuery,
  UpdateRoleBody,
} from './roles.schemas.ts';
import { copyRole, listRoles, updateRoleFolders } from './roles.service.ts';

const tags = ['Roles'];

/** 00 §7: per_page defaults to 100 and goes up to 500 here (baton asks 500 per page). */
const MAX_ROLES_PER_PAGE = 500;

export function rolesRoutes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/roles',
    {
      config: { privilege: 'collaborator_roles:read' },
      schema: {
        tags,
        summary: 'List custom collaborator roles',
        querystring: RoleListQuery,
        response: { 200: CollaboratorRoleList, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) =>
      listRoles(ctx, authOf(request).workspaceId, parsePage(request.query, { max: MAX_ROLES_PER_PAGE })),
  );

  app.put(
    '/api/roles/:role_id',
    {
      config: { privilege: 'collaborator_roles:write' },
      schema: {
        tags,
        summary: 'Set the folders a custom role reaches',
        params: RoleIdParams,
        body: UpdateRoleBody,
        response: { 200: CollaboratorRole, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) =>
      updateRoleFolders(ctx, authOf(request), request.params.role_id, {
        all_folders: request.body.all_folders,
        folder_ids: request.body.folder_ids?.map(toId),
      }),
  );

  app.post(
    '/api/roles/:role_id/copy',
    {
      config: { privilege: 'collaborator_roles:write' },
      schema: {
        tags,
        summary: 'Copy a custom role',
        params: RoleIdParams,
        body: CopyRoleBody,
        response: { 200: CollaboratorRole, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) =>
      copyRole(ctx, authOf(request), request.params.role_id, {
        name: request.body.name,
        folder_ids: request.body.folder_ids?.map(toId),
      }),
  );
}
