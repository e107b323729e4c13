// Secrets management (contract 05 §5): clear the cache of resolved secrets, and (an addition the
// contract does not cover) manage the built-in secret store of the caller's environment.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { AUTH_ERRORS, errorResponses, SuccessBody } from '../../http/schemas.ts';
import {
  PutSecretBody,
  SecretDeleteResult,
  SecretListResult,
  SecretNameParams,
  SecretResult,
} from './secrets_management.schemas.ts';
import {
  clearSecretsCache,
  deleteStoredSecret,
  listStoredSecrets,
  setStoredSecret,
} from './secrets_management.service.ts';

const tags = ['Secrets management'];

export function secretsManagementRoutes(fastify: FastifyInstance, ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/secrets_management/clear_cache',
    {
      config: { privilege: 'secrets_management:write' },
      schema: {
        tags,
        summary: 'Clear the secrets cache of the workspace: the next use of each secret reads it afresh',
        response: { 200: SuccessBody, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => {
      clearSecretsCache(ctx, authOf(request).workspaceId);
      return { success: true };
    },
  );

  app.get(
    '/api/secrets_management/secrets',
    {
      config: { privilege: 'secrets_management:read' },
      schema: {
        tags,
        summary: 'List the names of the built-in secrets of the environment (values are never returned)',
        response: { 200: SecretListResult, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => ({ result: await listStoredSecrets(ctx, scopeOf(request)) }),
  );

  app.put(
    '/api/secrets_management/secrets/:name',
    {
      config: { privilege: 'secrets_management:write' },
      schema: {
        tags,
        summary: 'Create or replace a built-in secret; reference it from a connection as {"secret": "NAME"}',
        params: SecretNameParams,
        body: PutSecretBody,
        response: { 200: SecretResult, ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => ({
      result: await setStoredSecret(ctx, authOf(request), scopeOf(request), request.params.name, request.body.value),
    }),
  );

  app.delete(
    '/api/secrets_management/secrets/:name',
    {
      config: { privilege: 'secrets_management:write' },
      schema: {
        tags,
        summary: 'Delete a built-in secret',
        params: SecretNameParams,
        response: { 200: SecretDeleteResult, ...errorResponses(...AUTH_ERRORS, 404) },
      },
    },
    async (request) => {
      await deleteStoredSecret(ctx, authOf(request), scopeOf(request), request.params.name);
      return { result: { success: true } };
    },
  );
}

function scopeOf(request: FastifyRequest) {
  const auth = authOf(request);
  return { workspaceId: auth.workspaceId, environmentId: auth.environmentId };
}
