// Starts Switchboard (the real CLI, embedded SQLite in a temporary data directory) and sets up
// what the token and gateway benchmarks call: a proxy collection, an API client, an OAuth profile
// (the gateway benchmark adds a v2 JWT client of its own).
import net from 'node:net';
import path from 'node:path';
import { databaseEnv } from './database.ts';
import { startChild, tempDir, type Child } from './lib.ts';

const ADMIN = `bench-admin-${'0'.repeat(40)}`;

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * BENCH_SERVER_NODE_ARGS: options for the node of every Switchboard a benchmark starts, separated
 * by spaces (`--cpu-prof --cpu-prof-dir=/tmp/prof`: a CPU profile of each server, written when it
 * is stopped). Node refuses --cpu-prof in NODE_OPTIONS.
 */
function serverNodeArguments(): string[] {
  return (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
}

export async function startSwitchboard(
  env: Record<string, string> = {},
  existingDataDir?: string,
): Promise<
  Child & {
    dataDir: string;
    databaseUrl: string | undefined;
    token: string;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    api: (method: string, url: string, body?: unknown) => Promise<any>;
  }
> {
  const port = await freePort();
  // Removed when the benchmark process exits, after the server (started later) is stopped. A
  // restart passes the data directory of the server before it.
  const dataDir = existingDataDir ?? tempDir('sb-bench-');
  // `--database postgres`: a new PostgreSQL database of its own (bench/database.ts); a DATABASE_URL given joins one (a second node).
  const database = env.DATABASE_URL === undefined ? await databaseEnv() : {};
  const databaseUrl = env.DATABASE_URL ?? database.DATABASE_URL;
  const child = await startChild(
    [...serverNodeArguments(), path.resolve(import.meta.dirname, '../src/entry.js'), 'serve'],
    // The proxied upstream listens on loopback, which requests made for users may reach only when allowed.
    {
      DATA_DIR: dataDir,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      SWITCHBOARD_ADMIN_TOKEN: ADMIN,
      OUTBOUND_ALLOW_LOOPBACK: 'true',
      ...database,
      ...env,
    },
    /()()/,
  );
  const url = `http://127.0.0.1:${port}`;
  // A busy machine can take a while to start the server; give up loudly rather than measure nothing.
  let ready = false;
  for (let i = 0; i < 600 && !ready; i++) {
    try {
      ready = (await fetch(`${url}/ready`)).ok;
    } catch {
      /* not yet */
    }
    if (!ready) await new Promise((r) => setTimeout(r, 50));
  }
  if (!ready) throw new Error(`switchboard did not become ready:\n${child.output()}`);
  const api = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(url + route, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  return { ...child, url, token: ADMIN, api, dataDir, databaseUrl };
}

export async function setUpOAuthProfile(sb: Awaited<ReturnType<typeof startSwitchboard>>, upstreamUrl?: string) {
  const connection = upstreamUrl
    ? await sb.api('POST', '/api/connections', {
        name: 'Upstream',
        provider: 'rest',
        input: { base_url: upstreamUrl, auth_type: 'none' },
      })
    : undefined;
  const collection = await sb.api('POST', '/api/api_collections', {
    name: 'Bench',
    ...(connection ? { proxy_connection_id: connection.id } : {}),
  });
  let endpointUrl: string | undefined;
  if (connection) {
    const endpoint = await sb.api('POST', `/api/api_collections/${collection.id}/api_endpoints`, {
      name: 'Get order',
      method: 'GET',
      path: 'orders/{id}',
    });
    await sb.api('PUT', `/api/api_endpoints/${endpoint.id}/enable`);
    endpointUrl = endpoint.url.replace('{id}', '42');
  }
  const client = await sb.api('POST', '/api/api_clients', { name: 'Bench client' });
  const profile = await sb.api('POST', '/api/api_access_profiles', {
    name: 'Bench profile',
    api_client_id: client.id,
    api_collection_ids: [collection.id],
    auth_type: 'oauth2',
  });
  return {
    clientId: profile.oauth_client_id as string,
    clientSecret: profile.oauth_client_secret as string,
    endpointUrl,
    collectionId: collection.id as number,
  };
}
