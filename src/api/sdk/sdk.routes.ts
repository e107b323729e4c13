// Schema generation for connector developers (contract 04 Part 3): POST /api/sdk/generate_schema/json
// and /csv. The reply is the schema itself, a bare array of fields.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../../context.ts';
import { AUTH_ERRORS, errorResponses } from '../../http/schemas.ts';
import { GenerateCsvSchemaBody, GenerateJsonSchemaBody, GeneratedSchema } from './sdk.schemas.ts';
import { createSchemaRunner } from './schema-runner.ts';
import { MAX_SAMPLE_BYTES } from './schema-inference.ts';

const tags = ['Custom connectors'];

/**
 * A 10 MB sample grows when it is escaped inside a JSON body (quotes and line breaks double,
 * non-ASCII text sent as \u escapes triples), so these two routes accept larger bodies than
 * BODY_LIMIT_BYTES; the sample itself is then held to MAX_SAMPLE_BYTES (413 "Sample too large").
 */
export const SAMPLE_BODY_LIMIT_BYTES = 3 * MAX_SAMPLE_BYTES + 64 * 1024;

/**
 * Generated fields keep the key order of the vendor's output (control_type, label, conversions,
 * toggles, type, name: contract 04 §3.3), which the schema serialiser would reorder (required keys
 * first). The objects come from schema-inference.ts alone, so nothing unlisted can leak.
 */
const keepKeyOrder = () => (data: unknown) => JSON.stringify(data);

export function sdkRoutes(fastify: FastifyInstance, _ctx: ServiceContext): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  // Samples are analysed in a worker thread, never on the event loop that serves other requests.
  const runner = createSchemaRunner();
  fastify.addHook('onClose', async () => runner.close());

  app.post(
    '/api/sdk/generate_schema/json',
    {
      bodyLimit: SAMPLE_BODY_LIMIT_BYTES,
      serializerCompiler: keepKeyOrder,
      config: { privilege: 'sdk_cli:read' },
      schema: {
        tags,
        summary: 'Generate a schema from a stringified JSON sample',
        body: GenerateJsonSchemaBody,
        response: { 200: GeneratedSchema, ...errorResponses(...AUTH_ERRORS, 429) },
      },
    },
    async (request) => runner.generate({ kind: 'json', input: request.body ?? {} }),
  );

  app.post(
    '/api/sdk/generate_schema/csv',
    {
      bodyLimit: SAMPLE_BODY_LIMIT_BYTES,
      serializerCompiler: keepKeyOrder,
      config: { privilege: 'sdk_cli:read' },
      schema: {
        tags,
        summary: 'Generate a schema from a stringified CSV sample',
        body: GenerateCsvSchemaBody,
        response: { 200: GeneratedSchema, ...errorResponses(...AUTH_ERRORS, 429) },
      },
    },
    async (request) => runner.generate({ kind: 'csv', input: request.body ?? {} }),
  );
}
