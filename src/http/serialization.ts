// Response serializers compiled at a route's first reply instead of when the route is registered.
// Fastify compiles a fast-json-stringify function for every response schema of every route at
// start-up; a server has hundreds of routes and a process answers a few of them, so that cost most
// of the start time and of the idle heap. The compiler is fastify's own (same options, same shared
// schemas); only its timing changes, and the compiler itself (fast-json-stringify, with Ajv) loads at
// the first reply that needs one, so an idle server holds neither. `test/schemas-compile.test.ts`
// compiles every route's schemas.
import { createRequire } from 'node:module';
import type * as SerializerCompiler from '@fastify/fast-json-stringify-compiler';
import type { SerializerFactory } from '@fastify/fast-json-stringify-compiler';

const load = createRequire(import.meta.url);
let buildDefault: SerializerFactory | undefined;

/** Fastify's default serializer compiler, loaded at the first call. */
function defaultSerializerFactory(): SerializerFactory {
  return (buildDefault ??= (
    load('@fastify/fast-json-stringify-compiler') as typeof SerializerCompiler
  ).SerializerSelector());
}

/** `schemaController.compilersFactory.buildSerializer` for Fastify: the default compiler, called lazily. */
export const buildLazySerializer: SerializerFactory = (externalSchemas, options) => {
  let compile: ReturnType<SerializerFactory> | undefined;
  return (route) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data: unknown) =>
      (serialize ??= (compile ??= defaultSerializerFactory()(externalSchemas, options))(route))(data);
  };
};

/** Fastify's own compiler, at once: the test that compiles every route's schemas uses it. */
export const buildEagerSerializer: SerializerFactory = (externalSchemas, options) =>
  defaultSerializerFactory()(externalSchemas, options);
