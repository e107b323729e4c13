// Packages (contract 15 §7–§11): bare objects. The import route takes the zip itself as the body
// (application/octet-stream or application/zip, or one file part of a multipart form), up to
// PACKAGE_MAX_BYTES, in a context of its own with those parsers; every other route keeps JSON.
import type busboy from 'busboy';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { authOf } from '../../http/auth.ts';
import { AUTH_ERRORS, errorResponses } from '../../http/schemas.ts';
import { ExportParams, ImportParams, ImportQuery, Package, PackageParams } from './packages.schemas.ts';
import { getPackage, packageZip, startExport, startImport } from './packages.service.ts';
import type { PackageRunner } from './runner.ts';

const tags = ['Recipe lifecycle management'];
const ZIP_TYPES = ['application/octet-stream', 'application/zip', 'application/x-zip-compressed'];

function contentTypeOf(request: FastifyRequest): string {
  const type = request.headers['content-type'];
  return type ? `${type.split(';')[0]?.trim().slice(0, 100)}` : 'missing';
}

/** The one file part of a multipart body. */
async function multipartZip(headers: FastifyRequest['headers'], body: Buffer, maxBytes: number): Promise<Buffer> {
  // The multipart parser loads at the first multipart body.
  const { default: createParser } = await import('busboy');
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = createParser({
        headers,
        limits: { files: 1, fields: 20, fieldSize: 4096, parts: 21, fileSize: maxBytes },
      });
    } catch {
      reject(new AppError('package_multipart_invalid'));
      return;
    }
    let file: Buffer | undefined;
    let failure: AppError | undefined;
    parser.on('file', (_name, stream) => {
      const parts: Buffer[] = [];
      stream.on('data', (part: Buffer) => parts.push(part));
      stream.on('end', () => {
        file = Buffer.concat(parts);
      });
    });
    parser.on('filesLimit', () => {
      failure ??= new AppError('package_multipart_invalid');
    });
    parser.on('partsLimit', () => {
      failure ??= new AppError('package_multipart_invalid');
    });
    parser.on('error', () => reject(new AppError('package_multipart_invalid')));
    parser.on('close', () =>
      failure
        ? reject(failure)
        : file === undefined
          ? reject(new AppError('package_multipart_invalid'))
          : resolve(file),
    );
    parser.end(body);
  });
}

export function packagesRoutes(
  fastify: FastifyInstance,
  ctx: ServiceContext,
  runtime: { packages: PackageRunner },
): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const maxBytes = ctx.config.packageMaxBytes;

  app.post(
    '/api/packages/export/:manifest_id',
    {
      config: { privilege: 'recipe_lifecycle_management:write' },
      schema: {
        tags,
        summary: 'Start an export of a manifest; poll GET /api/packages/:id, then download',
        params: ExportParams,
        response: { 200: Package, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => startExport(ctx, runtime.packages, authOf(request), request.params.manifest_id),
  );

  app.get(
    '/api/packages/:id',
    {
      config: { privilege: 'recipe_lifecycle_management:read' },
      schema: {
        tags,
        summary: 'A package: its state, and for an import what happened to each recipe',
        params: PackageParams,
        response: { 200: Package, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => getPackage(ctx, authOf(request), request.params.id),
  );

  app.get(
    '/api/packages/:id/download',
    {
      config: { privilege: 'recipe_lifecycle_management:read' },
      schema: {
        tags,
        summary: 'The zip of a completed export (application/zip)',
        params: PackageParams,
        response: { ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request, reply) => {
      const zip = await packageZip(ctx, authOf(request), request.params.id);
      reply
        .header('content-type', 'application/zip')
        .header('content-disposition', `attachment; filename="${zip.name}"`);
      if (zip.size !== null) reply.header('content-length', zip.size);
      return reply.send(zip.stream);
    },
  );

  fastify.register(async (child) => {
    child.removeAllContentTypeParsers();
    for (const type of ZIP_TYPES)
      child.addContentTypeParser(type, { parseAs: 'buffer', bodyLimit: maxBytes }, (_request, body, done) =>
        done(null, body),
      );
    child.addContentTypeParser(
      'multipart/form-data',
      { parseAs: 'buffer', bodyLimit: maxBytes + 64 * 1024 },
      (request, body, done) => {
        multipartZip(request.headers, body as Buffer, maxBytes).then(
          (zip) => done(null, zip),
          (error: Error) => done(error),
        );
      },
    );
    child.addContentTypeParser('*', (request, _payload, done) =>
      done(new AppError('package_media_type', { params: { content_type: contentTypeOf(request) } })),
    );
    child.withTypeProvider<TypeBoxTypeProvider>().post(
      '/api/packages/import/:folder_id',
      {
        bodyLimit: maxBytes + 64 * 1024,
        config: { privilege: 'recipe_lifecycle_management:write' },
        onRequest: async (request) => {
          const declared = Number(request.headers['content-length'] ?? 0);
          if (declared > maxBytes + 64 * 1024) throw new AppError('package_too_large', { params: { max: maxBytes } });
        },
        schema: {
          tags,
          summary:
            'Start an import of a zip into a folder: the body is the zip (application/octet-stream or application/zip, or a multipart form with one file)',
          params: ImportParams,
          querystring: ImportQuery,
          response: { 200: Package, ...errorResponses(...AUTH_ERRORS, 404) },
        },
      },
      async (request) => {
        const body = request.body as Buffer | undefined;
        return startImport(
          ctx,
          runtime.packages,
          authOf(request),
          request.params.folder_id,
          request.query,
          body ?? Buffer.alloc(0),
        );
      },
    );
  });
}
