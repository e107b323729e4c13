// Route schemas compile at a route's first request (src/http/validation.ts, serialization.ts), so
// a schema that cannot compile would otherwise show only when someone calls that route: this
// compiles every registered route's request and response schemas, as start-up once did.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import type { FastifySchema } from 'fastify';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createSecretBox } from '../src/crypto/secret-box.ts';
import { openSqlite } from '../src/db/index.ts';
import { buildEagerSerializer } from '../src/http/serialization.ts';
import { compileValidator } from '../src/http/validation.ts';
import { createLogger } from '../src/logger.ts';

interface RouteSeen {
  method: string | string[];
  url: string;
  schema?: FastifySchema & { response?: Record<string, unknown> };
  serializerCompiler?: (route: { schema: unknown; method: string; url: string; httpStatus: string }) => unknown;
}

describe('route schemas', () => {
  test("every route's request and response schemas compile", async () => {
    const db = openSqlite(':memory:');
    const routes: RouteSeen[] = [];
    const app = await buildApp({
      config: loadConfig({ LOG_LEVEL: 'silent' }),
      database: { db, dialect: 'sqlite', location: ':memory:' },
      secretBox: createSecretBox(randomBytes(32)),
      logger: createLogger('silent'),
      onRoute: (route) => void routes.push(route as RouteSeen),
    });
    try {
      await app.ready();
      const serialize = buildEagerSerializer({}, {});
      let compiled = 0;
      const failures: string[] = [];
      for (const route of routes) {
        const schema = route.schema;
        if (!schema) continue;
        const name = `${[route.method].flat().join(',')} ${route.url}`;
        for (const part of ['body', 'querystring', 'params', 'headers'] as const) {
          if (schema[part] === undefined) continue;
          try {
            compileValidator(schema[part], part);
            compiled++;
          } catch (error) {
            failures.push(`${name} ${part}: ${(error as Error).message}`);
          }
        }
        for (const [httpStatus, response] of Object.entries(schema.response ?? {})) {
          const def = { schema: response, method: String(route.method), url: route.url, httpStatus };
          try {
            if (route.serializerCompiler) route.serializerCompiler(def);
            else serialize(def);
            compiled++;
          } catch (error) {
            failures.push(`${name} response ${httpStatus}: ${(error as Error).message}`);
          }
        }
      }
      assert.deepEqual(failures, []);
      // Hundreds of routes have schemas: an empty walk would prove nothing.
      assert.ok(compiled > 300, `only ${compiled} schemas compiled`);
    } finally {
      await app.close();
      await db.destroy();
    }
  });
});
