// The file store of recipes (workato_files): list, download and delete files (our own routes).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import { AUTH_ERRORS, errorResponses, PageQuery, SuccessBody, Timestamp } from '../../http/schemas.ts';
import { deleteFile, listFiles, normalizePath, readFile } from './files.service.ts';

const tags = ['Files'];

const FileInfo = Type.Object({
  name: Type.String(),
  path: Type.String({ description: 'Absolute path, e.g. /reports/q1.csv' }),
  directory: Type.String(),
  size: Type.Integer({ description: 'Bytes' }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
const ListQuery = Type.Object({
  ...PageQuery,
  directory: Type.Optional(Type.String({ maxLength: 1024, description: 'Default /' })),
  recursive: Type.Optional(Type.Boolean({ description: 'Also the files of sub-directories' })),
});
const PathQuery = Type.Object({
  path: Type.String({ minLength: 1, maxLength: 1024, description: 'The file, e.g. /reports/q1.csv' }),
});

export function filesRoutes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/files',
    {
      config: { privilege: 'files:read' },
      schema: {
        tags,
        summary: 'List the files of a directory (per_page ≤ 1000, by path)',
        querystring: ListQuery,
        response: { 200: Type.Object({ data: Type.Array(FileInfo) }), ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => {
      const directory = normalizePath(request.query.directory, 'directory', true);
      const page = parsePage(request.query, { max: 1000, fallback: 100 });
      return {
        data: await listFiles(ctx, authOf(request), directory, request.query.recursive === true, {
          offset: page.offset,
          limit: page.perPage,
        }),
      };
    },
  );

  app.get(
    '/api/files/content',
    {
      config: { privilege: 'files:read' },
      schema: {
        tags,
        summary: 'Download a file',
        querystring: PathQuery,
        produces: ['application/octet-stream'],
        response: { 200: Type.Unsafe({ type: 'string', format: 'binary' }), ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request, reply) => {
      const { info, content } = await readFile(ctx, authOf(request), normalizePath(request.query.path, 'path'));
      return reply
        .header('content-type', 'application/octet-stream')
        .header('content-disposition', `attachment; filename="${info.name.replace(/[^A-Za-z0-9._-]/g, '_')}"`)
        .send(content);
    },
  );

  app.delete(
    '/api/files',
    {
      config: { privilege: 'files:write' },
      schema: {
        tags,
        summary: 'Delete a file',
        querystring: PathQuery,
        response: { 200: SuccessBody, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      await deleteFile(ctx, authOf(request), normalizePath(request.query.path, 'path'));
      return { success: true };
    },
  );
}
