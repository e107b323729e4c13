// The OpenAPI document (GET /api/openapi.json and the /docs page), generated from the routes'
// schemas by @fastify/swagger. The routes are recorded as they are registered (what the plugin's
// own hook keeps: each route's options); @fastify/swagger and its modules (yaml, a JSON Schema
// resolver) load at the first request for the document, in an app of their own onto which the
// recorded routes are replayed with the same options in the same order, so the document is the one
// the plugin registered here would give. An idle server never holds them.
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';

/** The plugin's document function: the object, or the YAML text with `{ yaml: true }`. */
export type OpenApiDocument = (options?: { yaml?: boolean }) => unknown;

/**
 * Record the routes registered from now on (as @fastify/swagger would, HEAD routes left out as it
 * does by default) and return the loader of their document, made at its first call and kept.
 */
export function recordOpenApi(
  app: FastifyInstance,
  options: FastifyDynamicSwaggerOptions,
): () => Promise<OpenApiDocument> {
  const routes: RouteOptions[] = [];
  app.addHook('onRoute', (route) => {
    if (route.method !== 'HEAD') routes.push(route);
  });
  let document: Promise<OpenApiDocument> | undefined;
  const load = async (): Promise<OpenApiDocument> => {
    const { default: swagger } = await import('@fastify/swagger');
    const inner = Fastify({ logger: false, routerOptions: { maxParamLength: 2048 } });
    // The replayed routes never answer: nothing to validate or serialize.
    inner.setValidatorCompiler(() => () => true);
    inner.setSerializerCompiler(() => (data) => JSON.stringify(data));
    await inner.register(swagger, options);
    for (const route of routes)
      inner.route({
        method: route.method,
        url: route.url,
        ...(route.schema === undefined ? {} : { schema: route.schema }),
        ...(route.config === undefined ? {} : { config: route.config }),
        ...(route.constraints === undefined ? {} : { constraints: route.constraints }),
        exposeHeadRoute: false,
        handler: async () => null,
      });
    await inner.ready();
    const generate = inner.swagger.bind(inner) as OpenApiDocument;
    generate(); // the document is made once; the app's routes do not change after start
    await inner.close();
    return generate;
  };
  return () =>
    (document ??= load().catch((error: unknown) => {
      document = undefined;
      throw error;
    }));
}
