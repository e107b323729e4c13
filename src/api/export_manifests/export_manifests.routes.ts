// Export manifests (contract 15 §2–§6): every reply wrapped in `result`; create answers 201.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { AUTH_ERRORS, errorResponses } from '../../http/schemas.ts';
import { startExport } from '../packages/packages.service.ts';
import type { PackageRunner } from '../packages/runner.ts';
import {
  DeleteResult,
  FolderAssetsQuery,
  FolderAssetsResult,
  ManifestBody,
  ManifestParams,
  ManifestResult,
} from './export_manifests.schemas.ts';
import {
  createManifest,
  deleteManifest,
  folderAssets,
  getManifest,
  updateManifest,
  type ManifestInput,
  type StartExport,
} from './export_manifests.service.ts';

const tags = ['Recipe lifecycle management'];

function fieldsOf(body: Record<string, unknown> | undefined): ManifestInput {
  const b = body ?? {};
  const inner = b.export_manifest;
  return (typeof inner === 'object' && inner !== null ? inner : b) as ManifestInput;
}

export function exportManifestsRoutes(
  fastify: FastifyInstance,
  ctx: ServiceContext,
  runtime: { packages: PackageRunner },
): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const exportNow: StartExport = async (c, caller, id) => startExport(c, runtime.packages, caller, id);

  app.get(
    '/api/export_manifests/folder_assets',
    {
      config: { privilege: 'export_manifests:read' },
      schema: {
        tags,
        summary: 'The assets of a folder (and below) with their dependencies, in manifest form',
        querystring: FolderAssetsQuery,
        response: { 200: FolderAssetsResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => ({ result: await folderAssets(ctx, authOf(request), request.query) }),
  );

  app.post(
    '/api/export_manifests',
    {
      config: { privilege: 'export_manifests:write' },
      schema: {
        tags,
        summary: 'Create an export manifest (with auto_run, also start its export)',
        body: ManifestBody,
        response: { 201: ManifestResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request, reply) => {
      const manifest = await createManifest(
        ctx,
        authOf(request),
        fieldsOf(request.body as Record<string, unknown> | undefined),
        exportNow,
      );
      return reply.code(201).send({ result: manifest });
    },
  );

  app.put(
    '/api/export_manifests/:id',
    {
      config: { privilege: 'export_manifests:write' },
      schema: {
        tags,
        summary: 'Update an export manifest; a given assets list replaces the previous one',
        params: ManifestParams,
        body: ManifestBody,
        response: { 200: ManifestResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => ({
      result: await updateManifest(
        ctx,
        authOf(request),
        request.params.id,
        fieldsOf(request.body as Record<string, unknown> | undefined),
        exportNow,
      ),
    }),
  );

  app.get(
    '/api/export_manifests/:id',
    {
      config: { privilege: 'export_manifests:read' },
      schema: {
        tags,
        summary: 'View an export manifest with its assets',
        params: ManifestParams,
        response: { 200: ManifestResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => ({ result: await getManifest(ctx, authOf(request), request.params.id) }),
  );

  app.delete(
    '/api/export_manifests/:id',
    {
      config: { privilege: 'export_manifests:write' },
      schema: {
        tags,
        summary: 'Delete (archive) an export manifest; its packages stay',
        params: ManifestParams,
        response: { 200: DeleteResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      await deleteManifest(ctx, authOf(request), request.params.id);
      return { result: { success: true } };
    },
  );
}
