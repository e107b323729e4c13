// Real server processes for tests: `switchboard serve` on a free port and a data directory.
// Every server started here is killed when the test file ends, if the test has not stopped it.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { releaseAfterFile } from './helpers.ts';

const CLI = path.resolve(import.meta.dirname, '../src/cli.ts');

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
export function spawnServe(env: Record<string, string>, stdio: StdioOptions = ['ignore', 'pipe', 'pipe']): ChildProcess {
  const child = spawn(process.execPath, [CLI, 'serve'], { env: { PATH: process.env.PATH, ...env }, stdio });
  releaseAfterFile(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  });
  return child;
}

export async function startServer(dataDir: string, env: Record<string, string> = {}): Promise<Running> {
  const child = spawnServe({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const deadline = Date.now() + 20_000;
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
  child.kill('SIGKILL');
  throw new Error(`server did not start:\n${out}`);
}

export async function api(base: string, method: string, url: string, token?: string, body?: unknown): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(base + url, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
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
