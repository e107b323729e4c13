// The server under the campaign: `switchboard serve` (the real CLI, the project's Node.js) on a data
// directory and a free loopback port, an admin token that every start ensures, and calls with it.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

const CLI = path.resolve(import.meta.dirname, '../src/entry.js');
export const ADMIN_TOKEN = `soak-admin-${'0123456789abcdef'.repeat(3)}`;
const START_TIMEOUT_MS = 300_000;

// A server left running when this process ends (an error, a cancelled test) is killed with it.
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface Server {
  url: string;
  child: ChildProcess;
  exited: Promise<void>;
  output: () => string;
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts the server and waits until GET /ready answers 200; a server that does not start is killed and reported. */
export async function startServer(dataDir: string, env: Record<string, string> = {}): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: {
      PATH: process.env.PATH,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      SWITCHBOARD_ADMIN_TOKEN: ADMIN_TOKEN,
      // The campaign's upstreams listen on loopback.
      OUTBOUND_ALLOW_LOOPBACK: 'true',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out = (out + d).slice(-20_000);
  });
  child.stderr!.on('data', (d) => {
    out = (out + d).slice(-20_000);
  });
  running.add(child);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      running.delete(child);
      resolve();
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  // Generous: a campaign run under `nice` on a busy machine may wait long for the CPU.
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline && child.exitCode === null && child.signalCode === null) {
    try {
      if ((await fetch(`${url}/ready`, { signal: AbortSignal.timeout(10_000) })).ok)
        return { url, child, exited, output: () => out };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  await kill({ child, exited });
  throw new Error(
    `the server did not become ready on ${dataDir} within ${START_TIMEOUT_MS / 1000} s (exit code ${child.exitCode}, signal ${child.signalCode}):\n${out}`,
  );
}

export async function kill(
  server: Pick<Server, 'child' | 'exited'>,
  signal: NodeJS.Signals = 'SIGKILL',
): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill(signal);
  await server.exited;
}

export interface Reply {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- the campaign reads arbitrary JSON
}

/** A call with the admin token; throws on a transport error (a killed server). */
export async function call(
  url: string,
  method: string,
  route: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const res = await fetch(url + route, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed };
}

/** Like `call`, for set-up steps that must succeed. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function must(url: string, method: string, route: string, body?: unknown): Promise<any> {
  const res = await call(url, method, route, body);
  if (res.status !== 200) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
