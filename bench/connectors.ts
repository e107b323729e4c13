// Connectors: first the SaaS connectors' named actions beside the HTTP connector (saas-connectors.ts),
// then custom connectors' Ruby runtime: the first call of a fresh process, the cost of a call beside
// the same HTTP request made directly, a switch of workspace on one interpreter, each worker's
// memory. `npm run bench -- connectors [--jobs N] [--saas-only] [--calls N --concurrency N]`.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { request } from 'undici';
import { createDirectHost } from '../src/connectors/sdk/direct-host.ts';
import { installedRubySnapshotFile } from '../src/connectors/sdk/ruby-sandbox.ts';
import { createConnectorRuntime } from '../src/connectors/sdk/runtime.ts';
import { tempDir } from './lib.ts';
import { saasConnectorsBench } from './saas-connectors.ts';

const CONNECTOR = String.raw`{
  title: 'Bench',
  connection: {
    authorization: { type: 'api_key', apply: lambda { |connection| headers('X-Api-Key' => connection['key']) } },
    base_uri: lambda { |connection| connection['base'] }
  },
  actions: {
    get_item: {
      execute: lambda do |connection, input|
        item = get("/items/#{input['id']}")
        { id: item['id'], name: item['name'].upcase }
      end
    }
  }
}`;

function option(args: string[], name: string, fallback: number): number {
  const at = args.indexOf(`--${name}`);
  return at >= 0 && args[at + 1] ? Number(args[at + 1]) : fallback;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

const ms = (n: number) => `${n.toFixed(2)} ms`;

/** N calls, `concurrency` at a time: each call's latency and the calls per second. */
async function drive(calls: number, concurrency: number, one: (i: number) => Promise<void>) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    [...Array(concurrency)].map(async () => {
      while (next < calls) {
        const i = next++;
        const t = performance.now();
        await one(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), perSecond: calls / seconds };
}

/** A fresh process that makes one call and says how long each part took. */
function firstCallOfFreshProcess(base: string): Promise<{ total: number; call: number }> {
  const script = `
    const started = performance.now();
    const { createConnectorRuntime } = await import(${JSON.stringify(path.resolve(import.meta.dirname, '../src/connectors/sdk/runtime.ts'))});
    const { createDirectHost } = await import(${JSON.stringify(path.resolve(import.meta.dirname, '../src/connectors/sdk/direct-host.ts'))});
    const { installedRubySnapshotFile } = await import(${JSON.stringify(path.resolve(import.meta.dirname, '../src/connectors/sdk/ruby-sandbox.ts'))});
    const runtime = createConnectorRuntime({ workers: 1, memoryBytes: 128 * 1024 * 1024, snapshotFiles: [installedRubySnapshotFile()] });
    const host = createDirectHost();
    const t = performance.now();
    const outcome = await runtime.invoke({ source: ${JSON.stringify(CONNECTOR)}, connectorName: 'Bench', workspaceId: 1,
      path: 'actions.get_item.execute', params: { settings: { base: ${JSON.stringify(base)}, key: 'k' }, input: { id: 1 } } }, host);
    if (!outcome.ok) throw new Error(outcome.error.message);
    process.stdout.write(JSON.stringify({ call: performance.now() - t, sinceStart: performance.now() - started }));
    await runtime.close(); await host.close();
  `;
  // A file, not `-e`: worker threads inherit the process's options, and `--input-type` is refused there.
  const file = path.join(tempDir('sb-bench-connectors-'), 'first-call.mjs');
  writeFileSync(file, script);
  const launched = performance.now();
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [file], { timeout: 120_000 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`${error.message}\n${stderr}`));
      const out = JSON.parse(stdout) as { call: number; sinceStart: number };
      resolve({ total: performance.now() - launched, call: out.call });
    });
  });
}

export async function main(args: string[]): Promise<void> {
  await saasConnectorsBench(args.filter((a) => a !== '--saas-only'));
  if (args.includes('--saas-only')) return;
  const calls = option(args, 'calls', 2000);
  const concurrency = option(args, 'concurrency', 2);
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ id: Number(req.url?.split('/').pop()), name: 'widget' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

  const first = await firstCallOfFreshProcess(base);
  process.stdout.write(
    `first custom-connector call of a fresh process: ${ms(first.call)} from the runtime's creation (${ms(first.total)} from the process launch; target: 2000 ms)\n`,
  );

  const runtime = createConnectorRuntime({
    workers: concurrency,
    memoryBytes: 128 * 1024 * 1024,
    snapshotFiles: [installedRubySnapshotFile()],
  });
  const host = createDirectHost();
  const single = createConnectorRuntime({
    workers: 1,
    memoryBytes: 128 * 1024 * 1024,
    snapshotFiles: [installedRubySnapshotFile()],
  });
  const invoke = (workspaceId: number, id: number, on = runtime) =>
    on
      .invoke(
        {
          source: CONNECTOR,
          connectorName: 'Bench',
          workspaceId,
          path: 'actions.get_item.execute',
          params: { settings: { base, key: 'k' }, input: { id } },
        },
        host,
      )
      .then((outcome) => {
        if (!outcome.ok) throw new Error(outcome.error.message);
      });
  try {
    // Warm: every worker started, the module's code compiled by the optimizing tier.
    await drive(200, concurrency, (i) => invoke(1, i));
    const direct = await drive(calls, concurrency, async (i) => {
      const response = await request(`${base}/items/${i}`, { headers: { 'x-api-key': 'k' } });
      await response.body.json();
    });
    const ruby = await drive(calls, concurrency, (i) => invoke(1, i));
    // Two workspaces on two workers each keep their own (a free worker that served the same key is
    // preferred); on one worker, every call of the other workspace first restores the snapshot.
    const switching = await drive(Math.min(calls, 300), 1, (i) => invoke(i % 2 === 0 ? 1 : 2, i, single));
    process.stdout.write(
      [
        `the same GET made directly (undici):          p50 ${ms(direct.p50)}  p99 ${ms(direct.p99)}  ${direct.perSecond.toFixed(0)}/s`,
        `custom connector action (Ruby, ${concurrency} workers):   p50 ${ms(ruby.p50)}  p99 ${ms(ruby.p99)}  ${ruby.perSecond.toFixed(0)}/s`,
        `  cost of the Ruby call over the direct GET:  p50 +${ms(ruby.p50 - direct.p50)} (target +2 ms), calls/s ${(ruby.perSecond / direct.perSecond).toFixed(2)} of it (target 0.5)`,
        `calls alternating between two workspaces (a snapshot restore each), one worker: p50 ${ms(switching.p50)}  p99 ${ms(switching.p99)}`,
      ].join('\n') + '\n',
    );
    for (const [i, m] of (await runtime.workerMemory()).entries())
      process.stdout.write(
        `Ruby worker ${i + 1}: ${(m.wasmBytes / 1048576).toFixed(0)} MB WebAssembly memory + ${(m.heapBytes / 1048576).toFixed(0)} MB JavaScript heap (goal: 150 MB)\n`,
      );
    process.stdout.write(`this process's resident memory: ${(process.memoryUsage().rss / 1048576).toFixed(0)} MB\n`);
  } finally {
    await single.close();
    await runtime.close();
    await host.close();
    server.close();
  }
}
