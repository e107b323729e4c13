// Real server processes for tests: `switchboard serve` on a free port and a data directory.
// Every server started here is killed when the test file ends, if the test has not stopped it.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import pg from 'pg';
import { SQLITE_FILENAME } from '../src/db/index.ts';
import { postgresTypes } from '../src/db/postgres.ts';
import { releaseAfterFile } from './helpers.ts';
import { freshPostgresDatabase, onPostgres } from './test-database.ts';

const CLI = path.resolve(import.meta.dirname, '../src/entry.js');

export interface Running {
  child: ChildProcess;
  baseUrl: string;
  /** The event streams listener's address, when EVENT_STREAMS_PORT is set. */
  eventStreamsUrl: string | undefined;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * `switchboard serve` with only PATH and these settings in its environment. It is killed (SIGKILL)
 * when the test file ends if it is still running, before the directories made earlier are removed.
 */
export function spawnServe(
  env: Record<string, string>,
  stdio: StdioOptions = ['ignore', 'pipe', 'pipe'],
): ChildProcess {
  const child = spawn(process.execPath, [CLI, 'serve'], { env: { PATH: process.env.PATH, ...env }, stdio });
  releaseAfterFile(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  });
  return child;
}

/** Under TEST_DATABASE_URL, each data directory's PostgreSQL database (a restart finds its data again). */
const databaseOfDataDir = new Map<string, string>();

/** The DATABASE_URL a server on `dataDir` uses under TEST_DATABASE_URL: a database of its own, dropped when the test process ends. */
export async function databaseUrlFor(dataDir: string): Promise<string> {
  const known = databaseOfDataDir.get(dataDir);
  if (known !== undefined) return known;
  const url = await freshPostgresDatabase();
  databaseOfDataDir.set(dataDir, url);
  return url;
}

export async function startServer(dataDir: string, env: Record<string, string> = {}): Promise<Running> {
  // On PostgreSQL a restarted server is a new node: it takes up what the killed one held (a
  // package, a build) once that one's lease runs out; a short lease keeps restarts quick.
  const database: Record<string, string> =
    onPostgres && env.DATABASE_URL === undefined
      ? { DATABASE_URL: await databaseUrlFor(dataDir), NODE_LEASE_MS: '5000' }
      : {};
  const child = spawnServe({
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    OUTBOUND_ALLOW_LOOPBACK: 'true',
    ...database,
    ...env,
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  // A last guard, not a figure: a fresh process loads and type-strips the whole server, which on a
  // loaded shared machine has taken over 20 s.
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const ready = /"msg":"switchboard is ready"/.test(out);
    const listening = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
    // The banner, when there is one, comes right after "ready".
    if (ready && listening?.[1]) {
      await new Promise((r) => setTimeout(r, 100));
      const eventStreams = /Event streams listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      return { child, baseUrl: listening[1], eventStreamsUrl: eventStreams?.[1], output: () => out, exited };
    }
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const why = child.exitCode !== null ? `exited with code ${child.exitCode}` : 'not ready within 60 s';
  child.kill('SIGKILL');
  throw new Error(`server did not start (${why}):\n${out}`);
}

export async function api(
  base: string,
  method: string,
  url: string,
  token?: string,
  body?: unknown,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ status: number; body: any }> {
  const res = await fetch(base + url, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * A JSON POST in flight during a graceful shutdown: the headers and the first `sentBefore`
 * characters of the body go out, then the server gets SIGTERM, then the rest follows 300 ms later.
 */
export function postAcrossShutdown(
  child: ChildProcess,
  url: string,
  token: string,
  body: string,
  sentBefore: number,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.write(body.slice(0, sentBefore));
    setTimeout(() => {
      child.kill('SIGTERM');
      setTimeout(() => req.end(body.slice(sentBefore)), 300);
    }, 200);
  });
}

/**
 * A bounded burst against a server that is killed (SIGKILL) in the middle of it: 20 senders, 600
 * requests at most, the kill once 150 are acknowledged. `send` says whether the server acknowledged
 * request `seq`; one refused or cut by the kill (it throws) is not. Returns the acknowledged ones.
 */
export async function burstUntilKilled(
  child: ChildProcess,
  send: (seq: number) => Promise<boolean>,
): Promise<Set<number>> {
  const acknowledged = new Set<number>();
  let next = 0;
  let killed = false;
  const sender = async () => {
    while (next < 600) {
      const seq = next++;
      try {
        if (await send(seq)) acknowledged.add(seq);
      } catch {
        // refused or cut by the kill: not acknowledged
      }
      if (!killed && acknowledged.size >= 150) {
        killed = true;
        child.kill('SIGKILL');
      }
    }
  };
  await Promise.all(Array.from({ length: 20 }, sender));
  return acknowledged;
}

/** A port free at the time of the call (for settings that cannot be 0, such as EVENT_STREAMS_PORT). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A server process that always runs with this admin token, and API calls made with it: the
 * set-up of the crash tests, which restart the same data directory.
 */
export function asAdmin(token: string) {
  return {
    async startServer(dataDir: string) {
      const running = await startServer(dataDir, { SWITCHBOARD_ADMIN_TOKEN: token });
      return { child: running.child, base: running.baseUrl, exited: running.exited };
    },
    api: (base: string, method: string, url: string, body?: unknown) => api(base, method, url, token, body),
  };
}

export interface ServerDatabase {
  /** Rows of a query with `?` placeholders (standard SQL that both databases accept). */
  all<T>(query: string, ...params: unknown[]): Promise<T[]>;
  get<T>(query: string, ...params: unknown[]): Promise<T | undefined>;
  close(): Promise<void>;
}

/**
 * The database of the server on `dataDir`, to check what it stored behind its API: its SQLite file
 * (read-only), or under TEST_DATABASE_URL its PostgreSQL database. Integers come back as numbers.
 */
export async function openServerDatabase(dataDir: string): Promise<ServerDatabase> {
  if (!onPostgres) {
    const db = new DatabaseSync(path.join(dataDir, SQLITE_FILENAME), { readOnly: true });
    return {
      all: async <T>(query: string, ...params: unknown[]) =>
        db.prepare(query).all(...(params as SQLInputValue[])) as T[],
      get: async <T>(query: string, ...params: unknown[]) =>
        db.prepare(query).get(...(params as SQLInputValue[])) as T | undefined,
      close: async () => db.close(),
    };
  }
  const client = new pg.Client({ connectionString: await databaseUrlFor(dataDir), types: postgresTypes });
  await client.connect();
  const numbered = (query: string) => {
    let n = 0;
    return query.replace(/\?/g, () => `$${++n}`);
  };
  const all = async <T>(query: string, ...params: unknown[]) =>
    (await client.query(numbered(query), params)).rows as T[];
  return {
    all,
    get: async <T>(query: string, ...params: unknown[]) => (await all<T>(query, ...params))[0],
    close: () => client.end(),
  };
}
