// A throwaway PostgreSQL server for tests: initdb in a new temporary directory, started on
// loopback on a free port (and a socket in that directory), stopped and removed by `remove`.
// Run as root (CI, containers), it runs as the `postgres` system user, which Debian's package
// creates: PostgreSQL refuses to run as root.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface PostgresCluster {
  /** Connection string of the maintenance database `postgres` (user postgres, no password). */
  url: string;
  port: number;
  /** Stop the server (fast shutdown: connections are cut), keeping its files. */
  stop(): void;
  /** Start it again on the same port, with the same data. */
  start(): void;
  /** Stop it and delete its directory. */
  remove(): void;
  /** The server's log (written while it runs; gone once removed). */
  logFile: string;
}

/** The directory of PostgreSQL's programs (initdb, pg_ctl), the newest installed; undefined when none is. */
export function postgresBinDir(): string | undefined {
  const fromEnv = process.env.POSTGRES_BIN_DIR;
  if (fromEnv && fs.existsSync(path.join(fromEnv, 'initdb'))) return fromEnv;
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return undefined;
  const versions = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : path.join(root, versions[0], 'bin');
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A new cluster. `settings` become `-c name=value` options of the server. fsync stays on unless a
 * caller turns it off (the test suite does: its data is thrown away).
 */
export async function startPostgresCluster(settings: Record<string, string> = {}): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  if (bin === undefined)
    throw new Error('PostgreSQL is not installed (apt-get install postgresql), or set POSTGRES_BIN_DIR');
  const asRoot = process.getuid?.() === 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-pg-'));
  const data = path.join(dir, 'data');
  const run = (program: string, args: string[]) => {
    const command = asRoot ? 'runuser' : path.join(bin, program);
    const argv = asRoot ? ['-u', 'postgres', '--', path.join(bin, program), ...args] : args;
    const result = spawnSync(command, argv, { cwd: dir, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${program} failed: ${result.stderr || result.stdout}`);
  };
  if (asRoot) execFileSync('chown', ['postgres', dir]);
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    '-c max_connections=200',
    ...Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`),
  ].join(' ');
  let running = false;
  const cluster: PostgresCluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    logFile: path.join(dir, 'server.log'),
    start() {
      if (running) return;
      run('pg_ctl', ['-D', data, '-l', cluster.logFile, '-o', options, '-w', '-t', '60', 'start']);
      running = true;
    },
    stop() {
      if (!running) return;
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']);
      running = false;
    },
    remove() {
      try {
        cluster.stop();
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  try {
    cluster.start();
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return cluster;
}
