// Folders (contract 05 §3.1-3.6). Bare objects and arrays; delete answers { success: true }.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import { AUTH_ERRORS, errorResponses, SuccessBody, toId, type IdInput } from '../../http/schemas.ts';
import {
  CreateFolderBody,
  Folder,
  FolderList,
  FolderListQuery,
  FolderParams,
  queryId,
  UpdateFolderBody,
} from './folders.schemas.ts';
import { createFolder, deleteFolder, getFolder, listFolders, updateFolder } from './folders.service.ts';

const tags = ['Folders and projects'];

export function foldersRoutes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/folders',
    {
      config: { privilege: 'projects_folders:read' },
      schema: {
        tags,
        summary: 'List the sub-folders of a folder (default: the projects under Home), by name then id',
        querystring: FolderListQuery,
        response: { 200: FolderList, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      const { parent_id, with_nested_folders } = request.query;
      const parentId = queryId(parent_id);
      return listFolders(ctx, authOf(request), {
        ...(parentId !== undefined ? { parentId } : {}),
        nested: with_nested_folders === 'true' || with_nested_folders === '1',
        page: parsePage(request.query),
      });
    },
  );

  app.get(
    '/api/folders/:folder_id',
    {
      config: { privilege: 'projects_folders:read' },
      schema: {
        tags,
        summary: 'Get a folder',
        params: FolderParams,
        response: { 200: Folder, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => getFolder(ctx, authOf(request), request.params.folder_id),
  );

  app.post(
    '/api/folders',
    {
      config: { privilege: 'projects_folders:write' },
      schema: {
        tags,
        summary: 'Create a folder, or a project when there is no parent (or the parent is Home)',
        body: CreateFolderBody,
        response: { 200: Folder, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) => {
      const { name, parent_id } = request.body;
      return createFolder(ctx, authOf(request), { name, parentId: optionalId(parent_id) ?? null });
    },
  );

  app.put(
    '/api/folders/:folder_id',
    {
      config: { privilege: 'projects_folders:write' },
      schema: {
        tags,
        summary: 'Rename a folder or move it under another folder',
        params: FolderParams,
        body: UpdateFolderBody,
        response: { 200: Folder, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) => {
      const body = request.body ?? {};
      return updateFolder(ctx, authOf(request), request.params.folder_id, {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.parent_id !== undefined ? { parentId: optionalId(body.parent_id) } : {}),
      });
    },
  );

  app.delete(
    '/api/folders/:folder_id',
    {
      config: { privilege: 'projects_folders:write' },
      schema: {
        tags,
        summary:
          'Delete a folder with its sub-folders and stopped recipes (not a project: use DELETE /api/projects/:project_id); 422 while a recipe inside runs',
        params: FolderParams,
        response: { 200: SuccessBody, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request) => {
      await deleteFolder(ctx, authOf(request), request.params.folder_id);
      return { success: true };
    },
  );
}

function optionalId(value: IdInput | null | undefined): number | null | undefined {
  return value === undefined || value === null ? value : toId(value);
}
