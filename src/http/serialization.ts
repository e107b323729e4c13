// Response serializers compiled at a route's first reply instead of when the route is registered.
// Fastify compiles a fast-json-stringify function for every response schema of every route at
// start-up; a server has hundreds of routes and a process answers a few of them, so that cost most
// of the start time and of the idle heap. The compiler is fastify's own (same options, same shared
// schemas); only its timing changes. `test/schemas-compile.test.ts` compiles every route's schemas.
import { SerializerSelector, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';

const buildDefault: SerializerFactory = SerializerSelector();

/** `schemaController.compilersFactory.buildSerializer` for Fastify: the default compiler, called lazily. */
export const buildLazySerializer: SerializerFactory = (externalSchemas, options) => {
  const compile = buildDefault(externalSchemas, options);
  return (route) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data: unknown) => (serialize ??= compile(route))(data);
  };
};

/** Fastify's own compiler, at once: the test that compiles every route's schemas uses it. */
export const buildEagerSerializer: SerializerFactory = buildDefault;
