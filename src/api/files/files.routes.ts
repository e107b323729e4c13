// The file store of recipes (workato_files): list, download and delete files (our own routes).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { parsePage } from '../../http/pagination.ts';
import { AUTH_ERRORS, errorResponses, PageQuery, SuccessBody, Timestamp } from '../../http/schemas.ts';
import { deleteFile, fileInfo, listFiles, normalizePath, readFile, writeFile } from './files.service.ts';
import { checkSharedLink } from './shared-links.ts';

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
const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 4096 }) });
const SharedFile = Type.Object({ path: Type.String(), size: Type.Integer({ description: 'Bytes' }) });
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

  // Shareable links (made by a recipe's create_shareable_link): no token, the link is the key.
  // The body of an upload or an append is the file's bytes, whatever its content type.
  fastify.register(async (child) => {
    child.removeAllContentTypeParsers();
    child.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: ctx.config.fileMaxBytes }, (_request, body, done) =>
      done(null, body),
    );
    const shared = child.withTypeProvider<TypeBoxTypeProvider>();
    const sharedSchema = (summary: string, ok: unknown) => ({
      tags,
      summary,
      params: TokenParams,
      response: { 200: ok, ...errorResponses(404, 405) },
    });

    shared.get(
      '/api/files/shared/:token',
      {
        config: { public: true },
        schema: {
          ...sharedSchema(
            'Download a file through a shareable link',
            Type.Unsafe({ type: 'string', format: 'binary' }),
          ),
          produces: ['application/octet-stream'],
        },
      },
      async (request, reply) => {
        const link = checkSharedLink(ctx, request.params.token, 'download');
        const { info, content } = await readFile(ctx, link.scope, link.path);
        return reply
          .header('content-type', 'application/octet-stream')
          .header('cache-control', 'no-store')
          .header('content-disposition', `attachment; filename="${info.name.replace(/[^A-Za-z0-9._-]/g, '_')}"`)
          .send(content);
      },
    );

    const write = (mode: 'create' | 'append') => async (request: { params: { token: string }; body: unknown }) => {
      const link = checkSharedLink(ctx, request.params.token, mode === 'create' ? 'upload' : 'append');
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      // An append link reaches the file it was made for: one deleted since is not made anew.
      if (mode === 'append') await fileInfo(ctx, link.scope, link.path);
      const info = await writeFile(ctx, link.scope, link.path, body, mode);
      return { path: info.path, size: info.size };
    };
    shared.put(
      '/api/files/shared/:token',
      { config: { public: true }, schema: sharedSchema('Upload a new file through a shareable link', SharedFile) },
      write('create'),
    );
    shared.post(
      '/api/files/shared/:token',
      { config: { public: true }, schema: sharedSchema('Append to a file through a shareable link', SharedFile) },
      write('append'),
    );
  });
}
