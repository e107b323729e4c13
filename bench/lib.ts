// Shared by the benchmarks: child servers on loopback and a bounded load run with autocannon.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

export interface Child {
  url: string;
  process: ChildProcess;
  output: () => string;
}

const atExit: Array<() => void> = [];

/**
 * Runs `release` (synchronous) when this process exits: at the end of a benchmark, after an error,
 * or on Ctrl-C (SIGINT) or SIGTERM, which then end the process. What was registered last goes first.
 */
export function releaseAtExit(release: () => void): void {
  if (atExit.length === 0) {
    process.once('exit', () => {
      for (let next = atExit.pop(); next; next = atExit.pop()) next();
    });
    for (const signal of ['SIGINT', 'SIGTERM'] as const)
      process.once(signal, () => process.exit(128 + os.constants.signals[signal]));
  }
  atExit.push(release);
}

/** A new directory under os.tmpdir(), removed with its contents when the benchmark process exits, unless `keep`. */
export function tempDir(prefix: string, options: { keep?: boolean } = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  if (!options.keep) releaseAtExit(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Start a server script (or the CLI) and wait for its address. The server is killed when this process exits, if still running. */
export async function startChild(
  args: string[],
  env: Record<string, string> = {},
  ready = /LISTENING (http:\/\/\S+)|Server listening at (http:\/\/\S+)/,
): Promise<Child> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  releaseAtExit(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const match = ready.exec(out);
    if (match) return { url: (match[1] ?? match[2]) as string, process: child, output: () => out };
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`child did not start: ${args.join(' ')}\n${out}`);
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

/** A fixed-duration load with keep-alive connections; it stops by itself. */
export async function load(options: {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  seconds: number;
  connections: number;
}): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    ...(options.body !== undefined ? { body: options.body } : {}),
    connections: options.connections,
    duration: options.seconds,
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}

export function row(label: string, r: LoadResult): string {
  return `${label.padEnd(52)} ${r.requestsPerSecond.toFixed(0).padStart(8)} req/s   p50 ${r.p50Ms.toFixed(2).padStart(6)} ms   p99 ${r.p99Ms.toFixed(2).padStart(6)} ms   errors ${r.errors}   non-2xx ${r.non2xx}`;
}

/** `--seconds N --connections N` of the load benchmarks. */
export function loadOptions(args: string[]): { seconds: number; connections: number } {
  const { values } = parseArgs({
    args,
    options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '32' } },
  });
  return { seconds: Number(values.seconds), connections: Number(values.connections) };
}

/**
 * CPU time (user + system, microseconds) a process has used so far, from /proc on Linux; null
 * elsewhere. CPU per operation is far steadier than operations per second on a shared machine.
 */
export function cpuMicros(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10_000 : null;
  } catch {
    return null;
  }
}

export interface Comparison {
  ours: LoadResult;
  baseline: LoadResult;
  /** ours/baseline of each round, in order: how far one round's ratio is from another's. */
  roundRatios: number[];
}

/**
 * Ours and the baseline loaded in alternation (ours, baseline, ours, baseline...), `rounds` times
 * `seconds / rounds` each, rather than one after the other: on this shared machine the speed drifts
 * by 20% or more within a minute, and a drift lands on both sides alike. Requests per second are
 * the mean over the rounds (all of one length); latencies are the worst round's p99 and the mean of
 * the rounds' p50.
 */
export async function compareLoads(
  ours: Parameters<typeof load>[0],
  baseline: Parameters<typeof load>[0],
  rounds = 4,
): Promise<Comparison> {
  const each = Math.max(1, Math.round(ours.seconds / rounds));
  const a: LoadResult[] = [];
  const b: LoadResult[] = [];
  for (let i = 0; i < rounds; i++) {
    a.push(await load({ ...ours, seconds: each }));
    b.push(await load({ ...baseline, seconds: each }));
  }
  const merge = (runs: LoadResult[]): LoadResult => ({
    requestsPerSecond: runs.reduce((n, r) => n + r.requestsPerSecond, 0) / runs.length,
    p50Ms: runs.reduce((n, r) => n + r.p50Ms, 0) / runs.length,
    p99Ms: Math.max(...runs.map((r) => r.p99Ms)),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
  });
  return {
    ours: merge(a),
    baseline: merge(b),
    roundRatios: a.map((r, i) => r.requestsPerSecond / (b[i] as LoadResult).requestsPerSecond),
  };
}

/** The p-th percentile of sorted values (0 for none). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/**
 * A run's two phases from its jobs' completion times (ms): the jobs done per second while the
 * load of `seconds` from `start` lasted, then the backlog it left and the rate at which it drained.
 */
export function phases(completedAt: number[], start: number, seconds: number): string {
  const end = start + seconds * 1000;
  const during = completedAt.filter((t) => t <= end).length;
  const drainSeconds = Math.max(0.001, (Math.max(end, ...completedAt) - end) / 1000);
  const left = completedAt.length - during;
  return `jobs done during the ${seconds} s of webhooks: ${(during / seconds).toFixed(0)}/s; the backlog after them: ${left} jobs in ${drainSeconds.toFixed(1)} s, ${(left / drainSeconds).toFixed(0)}/s`;
}
