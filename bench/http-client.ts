// The HTTP side of a benchmark, in a worker thread: it loads the server from the other core, so
// that the client's own work does not queue behind the server on one event loop. Connections are
// kept alive. The client is node:http by default; `fetch` (undici) is measured too for lookups,
// since it is what many scripts use, but its own overhead is larger.
import fs from 'node:fs';
import http from 'node:http';
import { parentPort } from 'node:worker_threads';

export type ClientJob =
  | { kind: 'sequential'; client: 'http' | 'fetch'; token: string; urls: string[]; expect: string[]; expectKey: string }
  | { kind: 'concurrent-posts'; token: string; url: string; bodies: string[]; concurrency: number };

export interface ClientResult {
  latenciesMs: number[];
  elapsedMs: number;
  failures: number;
  firstFailure?: string;
  /** CPU time of this client thread during the job (user + system), so the server's share can be told apart. */
  clientCpuMs?: number;
}

interface Answer {
  status: number;
  text: string;
}

function createHttpClient(maxSockets: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  return (method: 'GET' | 'POST', url: string, headers: Record<string, string>, body?: string): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const request = http.request(
        url,
        {
          method,
          agent,
          headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          res.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(body);
    });
}

async function sequential(job: Extract<ClientJob, { kind: 'sequential' }>): Promise<ClientResult> {
  const headers = { authorization: `Bearer ${job.token}` };
  const viaHttp = createHttpClient(1);
  const get =
    job.client === 'http'
      ? (url: string) => viaHttp('GET', url, headers)
      : async (url: string): Promise<Answer> => {
          const res = await fetch(url, { headers });
          return { status: res.status, text: await res.text() };
        };
  const latenciesMs: number[] = [];
  let failures = 0;
  let firstFailure: string | undefined;
  const started = performance.now();
  for (const [i, url] of job.urls.entries()) {
    const t0 = performance.now();
    const answer = await get(url);
    latenciesMs.push(performance.now() - t0);
    if (
      answer.status !== 200 ||
      (JSON.parse(answer.text) as { data: Record<string, string> }).data[job.expectKey] !== job.expect[i]
    ) {
      failures += 1;
      firstFailure ??= `${answer.status} ${answer.text.slice(0, 200)}`;
    }
  }
  return { latenciesMs, elapsedMs: performance.now() - started, failures, ...(firstFailure ? { firstFailure } : {}) };
}

async function concurrentPosts(job: Extract<ClientJob, { kind: 'concurrent-posts' }>): Promise<ClientResult> {
  const headers = { authorization: `Bearer ${job.token}`, 'content-type': 'application/json' };
  const post = createHttpClient(job.concurrency);
  const latenciesMs: number[] = [];
  let failures = 0;
  let firstFailure: string | undefined;
  let next = 0;
  const loop = async () => {
    while (next < job.bodies.length) {
      const body = job.bodies[next++];
      const t0 = performance.now();
      const answer = await post('POST', job.url, headers, body);
      latenciesMs.push(performance.now() - t0);
      if (answer.status !== 200) {
        failures += 1;
        firstFailure ??= `${answer.status} ${answer.text.slice(0, 200)}`;
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: job.concurrency }, loop));
  return { latenciesMs, elapsedMs: performance.now() - started, failures, ...(firstFailure ? { firstFailure } : {}) };
}

/** CPU time of the calling thread (user + system) in ms, from /proc (Linux); NaN elsewhere. */
export function threadCpuMs(statPath = '/proc/thread-self/stat'): number {
  try {
    // Fields after the command name (which may hold spaces, hence the last ')'): utime is the 12th, stime the 13th, in clock ticks (100 a second).
    const fields = fs.readFileSync(statPath, 'utf8').split(')').at(-1)!.trim().split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

parentPort?.on('message', (job: ClientJob) => {
  const cpuBefore = threadCpuMs();
  const run = job.kind === 'sequential' ? sequential(job) : concurrentPosts(job);
  run.then(
    (result) => parentPort?.postMessage({ ...result, clientCpuMs: threadCpuMs() - cpuBefore }),
    (error: unknown) => parentPort?.postMessage({ error: String(error) }),
  );
});
