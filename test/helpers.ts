// Test helpers: a fresh migrated database and an unstarted app per test file, driven by inject;
// temporary directories removed when the test file ends.
import { createSmtpMailer } from '../src/mail/mailer.ts';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import type { KyselyPlugin } from 'kysely';
import yazl from 'yazl';
import { createSecretBox } from '../src/crypto/secret-box.ts';
import { createInProcessNotifier } from '../src/notifier.ts';
import { secretResolverFor } from '../src/api/secrets_management/secret-resolver.ts';
import type { Logger } from 'pino';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createServiceContext, type ServiceContext } from '../src/context.ts';
import { openPostgresUrl, openSqliteFile, type DbHandle } from '../src/db/index.ts';
import type { BackgroundCheckpoints } from '../src/db/checkpoints.ts';
import { freshPostgresDatabase, onPostgres, TEST_POOL_SETTINGS } from './test-database.ts';
import type { SyncFile } from '../src/db/log-sync.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import type { EnvironmentType } from '../src/db/types.ts';
import { createLogger } from '../src/logger.ts';
import { systemClock, type Clock } from '../src/time.ts';
import {
  ADMIN_ROLE_NAME,
  createTokenForRole,
  createWorkspace,
  prepareFirstWorkspace,
} from '../src/workspaces/workspaces.service.ts';
import { insertProject, findHomeFolder } from '../src/api/folders/folders.store.ts';
import { findEnvironmentByType } from '../src/workspaces/workspaces.store.ts';
import { toStored } from '../src/time.ts';
import { createEngine, type EngineOptions, type RecipeEngine } from '../src/engine/engine.ts';

// What a test file holds until it ends, released last first: a server stops before its directory goes.
const releases: Array<() => unknown> = [];
async function releaseAll(): Promise<unknown[]> {
  // Every release runs even when one fails; the failures are returned once all have run.
  const failures: unknown[] = [];
  for (let release = releases.pop(); release; release = releases.pop()) {
    try {
      await release();
    } catch (error) {
      failures.push(error);
    }
  }
  return failures;
}
after(async () => {
  const failures = await releaseAll();
  if (failures.length > 0) throw failures[0];
});

// A test process stopped before its after hooks (Ctrl-C, the runner's or CI's SIGTERM, a process.exit)
// still releases what it holds: servers are stopped and temporary directories removed, at worst
// synchronously on the way out.
const liveTempDirs = new Set<string>();
const removeTempDir = (dir: string) => {
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  liveTempDirs.delete(dir);
};
process.once('exit', () => {
  for (const dir of liveTempDirs) {
    try {
      removeTempDir(dir);
    } catch {
      // Nothing more can be done on the way out.
    }
  }
});
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
] as const) {
  process.once(signal, () => {
    // Servers get a few seconds to stop; the exit handler then removes what is left.
    const guard = setTimeout(() => process.exit(code), 5000);
    void releaseAll().finally(() => {
      clearTimeout(guard);
      process.exit(code);
    });
  });
}

/** Runs `release` in an after hook of the test file, before whatever was registered earlier. */
export function releaseAfterFile(release: () => unknown): void {
  releases.push(release);
}

/**
 * A new empty directory under os.tmpdir() (so TMPDIR moves it), removed with its contents when the
 * test file ends. Call it anywhere: at the top of a file, in a describe, a hook or a test.
 */
export function tempDir(prefix = 'sb-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  liveTempDirs.add(dir);
  // Retried: a database's background checkpoint may still be closing its files while they go.
  releaseAfterFile(() => removeTempDir(dir));
  return dir;
}

export interface TestApp {
  app: FastifyInstance;
  ctx: ServiceContext;
  engine: RecipeEngine;
  workspaceId: number;
  adminToken: string;
  call(method: InjectOptions['method'], url: string, options?: CallOptions): Promise<Reply>;
  tokenFor(roleName: string, environment?: EnvironmentType, workspaceId?: number): Promise<string>;
  /** The id of the role of that name in the test workspace ('Admin', 'Read only', or one a test made). */
  roleId(roleName: string): Promise<number>;
  /** A token of a new role of that name holding exactly these privileges (a copy of Admin made with POST .../copy). */
  tokenWith(roleName: string, privileges: string[]): Promise<string>;
  /** A new API client limited to these project folders (all_folders false), with the Admin role unless another is named. */
  scopedClient(projectFolderIds: number[], roleName?: string): Promise<{ id: number; token: string }>;
  createProject(
    name: string,
    environment?: EnvironmentType,
    workspaceId?: number,
  ): Promise<{ folderId: number; projectId: number }>;
  newWorkspace(name: string): Promise<{ workspaceId: number; adminToken: string }>;
  close(): Promise<void>;
}

const yieldAfterEachQuery: KyselyPlugin = {
  transformQuery: (args) => args.node,
  transformResult: async (args) => {
    await new Promise((resolve) => setImmediate(resolve));
    return args.result;
  },
};

export interface CallOptions {
  token?: string | null;
  body?: unknown;
  /** Sent as-is (no JSON encoding). */
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

export interface Reply {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test assertions read arbitrary JSON
  text: string;
  headers: Record<string, unknown>;
}

export interface TestAppOptions {
  clock?: Clock;
  logger?: Logger;
  env?: Record<string, string>;
  /**
   * Every query gives the event loop a turn before its result is used, as a networked database
   * does. The embedded database answers synchronously, so without this concurrent requests never
   * interleave between their queries and a concurrency test could not fail.
   */
  interleaveQueries?: boolean;
  engine?: EngineOptions;
  /**
   * A database file (SQLITE_SYNCHRONOUS=FULL, its log synced by `syncFile`) instead of memory.
   * Always SQLite, even under TEST_DATABASE_URL: only tests of SQLite's own machinery ask for it.
   */
  database?: { file: string; syncFile?: SyncFile };
}

/**
 * The test app's database: a file when asked, otherwise a new PostgreSQL database under
 * TEST_DATABASE_URL (dropped when the test process ends), otherwise SQLite in memory.
 */
async function openTestDatabase(options: TestAppOptions): Promise<DbHandle & { checkpoints?: BackgroundCheckpoints }> {
  if (options.database) {
    const file = options.database.file;
    return {
      ...openSqliteFile(file, 'FULL', options.database.syncFile ? { syncFile: options.database.syncFile } : {}),
      dialect: 'sqlite',
      location: file,
    };
  }
  if (onPostgres) return openPostgresUrl(await freshPostgresDatabase(), TEST_POOL_SETTINGS);
  return { ...openSqliteFile(':memory:'), dialect: 'sqlite', location: ':memory:' };
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  // Stand-ins of outside services listen on loopback: tests allow it explicitly (the default refuses it).
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: '/nonexistent-test-data-dir',
    OUTBOUND_ALLOW_LOOPBACK: 'true',
    ...options.env,
  });
  const database = await openTestDatabase(options);
  const opened = database.db;
  const db = options.interleaveQueries ? opened.withPlugin(yieldAfterEachQuery) : opened;
  await migrateToLatest(db, database.dialect);
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger('silent');
  const secretBox = createSecretBox(randomBytes(32));
  // One resolver and notifier for the app and the test's own context, so both see the same caches.
  const secrets = secretResolverFor(config, clock, secretBox);
  const notifier = createInProcessNotifier();
  // The engine's context has the mailer when SMTP_URL is set, as the server's has (e-mail steps).
  const mailer =
    config.smtpUrl === undefined ? undefined : createSmtpMailer({ url: config.smtpUrl, from: config.smtpFrom });
  const base: ServiceContext = createServiceContext({
    db,
    config,
    secretBox,
    log: logger,
    clock,
    secrets,
    notifier,
    mailer,
  });
  const engine = createEngine(base, { pollMs: 50, ...options.engine });
  const ctx: ServiceContext = base;
  const first = await prepareFirstWorkspace(ctx, {
    workspace: { name: 'Acme Integrations', ownerEmail: 'integrations@example.com' },
  });
  const app = await buildApp({
    config,
    database: { ...database, db },
    secretBox,
    secrets,
    notifier,
    clock,
    logger,
    engine,
  });
  await app.ready();
  const adminToken = first.printableToken as string;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await app.close();
      mailer?.close();
      await db.destroy();
      // A file database's last checkpoint worker closes its files after the stop: the test's
      // directory goes once it has.
      await database.checkpoints?.exited();
    })();
    return closing;
  };
  let counter = 0;

  const call: TestApp['call'] = async (method, url, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    const token = opts.token === undefined ? adminToken : opts.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let payload: string | Buffer | undefined;
    if (opts.raw !== undefined) payload = opts.raw;
    else if (opts.body !== undefined) {
      payload = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await app.inject({ method, url, headers, ...(payload !== undefined ? { payload } : {}) });
    let body: unknown;
    try {
      body = res.body === '' ? undefined : JSON.parse(res.body);
    } catch {
      body = undefined;
    }
    return { status: res.statusCode, body, text: res.body, headers: res.headers };
  };
  const tokenFor: TestApp['tokenFor'] = async (roleName, environment = 'dev', workspaceId = first.workspace.id) => {
    counter += 1;
    const { token } = await createTokenForRole(ctx, {
      workspaceId,
      roleName,
      clientName: `test-${roleName}-${environment}-${counter}`,
      environment,
    });
    return token;
  };
  const roleId: TestApp['roleId'] = async (roleName) => {
    const roles = await call('GET', '/api/developer_api_client_roles');
    assert.equal(roles.status, 200, roles.text);
    const role = (roles.body.result.items as Array<{ id: number; name: string }>).find((r) => r.name === roleName);
    assert.ok(role, `a role named ${roleName}`);
    return role.id;
  };

  return {
    app,
    ctx,
    engine,
    workspaceId: first.workspace.id,
    adminToken,
    call,
    tokenFor,
    roleId,
    async tokenWith(roleName, privileges) {
      const copy = await call('POST', `/api/developer_api_client_roles/${await roleId(ADMIN_ROLE_NAME)}/copy`, {
        body: { name: roleName, privileges },
      });
      assert.equal(copy.status, 200, copy.text);
      return tokenFor(roleName);
    },
    async scopedClient(projectFolderIds, roleName = ADMIN_ROLE_NAME) {
      counter += 1;
      const body = {
        name: `scoped-${counter}`,
        api_privilege_group_id: await roleId(roleName),
        all_folders: false,
        folder_ids: projectFolderIds,
      };
      const res = await call('POST', '/api/developer_api_clients', { body });
      assert.equal(res.status, 200, res.text);
      return { id: res.body.result.id, token: res.body.result.token.value };
    },
    async createProject(name, environment = 'dev', workspaceId = first.workspace.id) {
      const env = await findEnvironmentByType(db, workspaceId, environment);
      const home = await findHomeFolder(db, env!.id);
      const { folder, projectId } = await insertProject(db, {
        workspaceId,
        environmentId: env!.id,
        homeFolderId: home!.id,
        name,
        now: toStored(clock.now()),
      });
      return { folderId: folder.id, projectId };
    },
    async newWorkspace(name) {
      const workspace = await createWorkspace(ctx, {
        name,
        ownerEmail: `${name.toLowerCase().replace(/\W+/g, '-')}@example.com`,
      });
      const { token } = await createTokenForRole(ctx, {
        workspaceId: workspace.id,
        roleName: ADMIN_ROLE_NAME,
        clientName: 'admin',
        environment: 'dev',
      });
      return { workspaceId: workspace.id, adminToken: token };
    },
    close,
  };
}

/** Poll GET /api/packages/:id until the package is no longer in progress; its last reply. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function waitPackage(t: TestApp, id: number, token?: string): Promise<Record<string, any>> {
  for (let i = 0; i < 400; i += 1) {
    const res = await t.call('GET', `/api/packages/${id}`, token ? { token } : {});
    assert.equal(res.status, 200, res.text);
    if (res.body.status !== 'in_progress') return res.body;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`package ${id} did not finish`);
}

/** A zip of these files (name -> content), in memory; `extra` may add entries of its own. */
export function makeZip(files: Record<string, string | Buffer>, extra?: (zip: yazl.ZipFile) => void): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of Object.entries(files))
    zip.addBuffer(Buffer.isBuffer(content) ? content : Buffer.from(content), name);
  extra?.(zip);
  zip.end();
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    zip.outputStream.on('data', (p: Buffer) => parts.push(p));
    zip.outputStream.on('end', () => resolve(Buffer.concat(parts)));
    zip.outputStream.on('error', reject);
  });
}

/** A browser signed in to the web console: its session cookie and the CSRF token of its forms. */
/** A signed-in console session as a test of sign-in itself holds it: its cookie and CSRF token. */
export interface ConsoleSession {
  cookie: string;
  csrf: string;
}

/**
 * Console requests with the cookie given each time (or none), for the tests of sign-in, sessions
 * and CSRF themselves; `app` is read at each call (the test app is made in a `before`).
 */
export function consoleRequests(app: () => Pick<TestApp, 'app'>) {
  const cookieFrom = (setCookie: unknown): string => {
    const header = [setCookie].flat()[0];
    assert.equal(typeof header, 'string', 'a Set-Cookie header');
    return (header as string).split(';')[0] as string;
  };
  const csrfIn = (page: string): string => {
    const match = /name="_csrf" value="([^"]+)"/.exec(page);
    assert.ok(match, 'the page holds a form with a CSRF token');
    return match[1] as string;
  };
  const get = (url: string, cookie?: string) =>
    app().app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });
  const post = (url: string, form: Record<string, string>, cookie?: string, headers: Record<string, string> = {}) =>
    app().app.inject({
      method: 'POST',
      url,
      payload: new URLSearchParams(form).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}), ...headers },
    });
  const signIn = async (token: string): Promise<ConsoleSession> => {
    const res = await post('/console/sign-in', { token });
    assert.equal(res.statusCode, 303, res.body);
    const cookie = cookieFrom(res.headers['set-cookie']);
    const home = await get('/console/', cookie);
    assert.equal(home.statusCode, 200, home.body);
    return { cookie, csrf: csrfIn(home.body) };
  };
  return { cookieFrom, csrfIn, get, post, signIn };
}

export interface ConsoleBrowser {
  cookie: string;
  csrf: string;
  get(url: string): Promise<Awaited<ReturnType<FastifyInstance['inject']>>>;
  /** A URL-encoded form, as a browser sends it (the CSRF token added unless the form has one). */
  post(url: string, form?: Record<string, string>): Promise<Awaited<ReturnType<FastifyInstance['inject']>>>;
}

/** Sign in to the console with a token through HTTP, as the sign-in form does. */
export async function consoleSignIn(t: Pick<TestApp, 'app'>, token: string): Promise<ConsoleBrowser> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/console/sign-in',
    payload: new URLSearchParams({ token }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assert.equal(res.statusCode, 303, res.body);
  const cookie = String([res.headers['set-cookie']].flat()[0]).split(';')[0] as string;
  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie } });
  const page = await get('/console/properties');
  const match = /name="_csrf" value="([^"]+)"/.exec(page.body);
  assert.ok(match, 'a signed-in page holds the sign-out form with its CSRF token');
  const csrf = match[1] as string;
  return {
    cookie,
    csrf,
    get,
    post: (url, form = {}) =>
      t.app.inject({
        method: 'POST',
        url,
        payload: new URLSearchParams({ _csrf: csrf, ...form }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      }),
  };
}

/** Reads until `done` holds (a background run finishing), every 25 ms for at most 10 s. */
export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 400; i += 1) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${what} did not finish`);
}
