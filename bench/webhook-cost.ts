// A webhook's cost on a server started by the footprint benchmark (bench/footprint.ts): the
// server's CPU per webhook, its job included, read from /proc; and the same on two servers side by
// side in alternating rounds, so that the machine's drift falls on both alike.
import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import { cpuMicros } from './lib.ts';

export const load1 = () => os.loadavg()[0]!.toFixed(1);

export interface Proc {
  child: ChildProcess;
  url: string;
  readyMs: number;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function line(label: string, value: string, target: string): void {
  console.log(`${label.padEnd(66)} ${value.padStart(22)}   target ${target.padEnd(14)} load ${load1()}`);
}

/**
 * Wait until the process is at rest: a second in which it used under 10% of a core (the triggers
 * of running recipes are armed in the background after /ready). Returns the ms it took.
 */
export async function settled(pid: number, limitMs = 180_000): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < limitMs) {
    const before = cpuMicros(pid);
    await sleep(1000);
    const after = cpuMicros(pid);
    if (before !== null && after !== null && after - before < 100_000) break;
  }
  return performance.now() - started;
}

/** Webhooks sent per second when measuring one's cost: a rate the benchmark's recipe sustains. */
export const WEBHOOK_RATE = 100;

/**
 * A webhook's cost on a server: server CPU per webhook (µs), its job included. Webhooks go out at
 * WEBHOOK_RATE a second for `seconds` (paced, at most 16 in flight, so the recipe's backlog never
 * fills), then the benchmark waits until the server is at rest again (the jobs ended) before it
 * reads the CPU. Answers are counted by status: the figure is void (null) unless every answer
 * accepted its webhook, since a refusal costs far less than a job.
 */
export async function webhookCost(
  p: Proc,
  hookUrl: string,
  seconds: number,
): Promise<{ cpuUs: number | null; sent: number; p50: number; statuses: Record<string, number> }> {
  // Start from rest: the previous window's jobs (or another server's) are not counted here.
  await settled(p.child.pid!);
  const before = cpuMicros(p.child.pid);
  const total = WEBHOOK_RATE * seconds;
  const statuses: Record<string, number> = {};
  const times: number[] = [];
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / WEBHOOK_RATE;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    while (inFlight.size >= 16) await Promise.race(inFlight);
    const sent = (async () => {
      const t0 = performance.now();
      let key: string;
      try {
        const res = await fetch(hookUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ id: i }),
        });
        await res.arrayBuffer();
        key = String(res.status);
      } catch {
        key = 'error';
      }
      times.push(performance.now() - t0);
      statuses[key] = (statuses[key] ?? 0) + 1;
    })();
    inFlight.add(sent);
    void sent.then(() => inFlight.delete(sent));
  }
  await Promise.all(inFlight);
  await settled(p.child.pid!);
  const after = cpuMicros(p.child.pid);
  times.sort((a, b) => a - b);
  const accepted = Object.entries(statuses).every(([status]) => status === '200' || status === '202');
  return {
    cpuUs: before === null || after === null || !accepted ? null : (after - before) / total,
    sent: total,
    p50: times[Math.floor(times.length / 2)] ?? NaN,
    statuses,
  };
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export interface HookTarget {
  label: string;
  proc: Proc;
  hookUrl: string;
}

/**
 * A webhook's cost on two servers running side by side, measured in alternating rounds (A B, B A,
 * ...) so that the machine's load, which drifts by more than the 10% being judged, falls on both
 * alike; each round is a webhookCost window, and the polls that went out during each window are
 * counted. Before the rounds, one untimed window on each warms both (route schemas compiled, the
 * recipe's code cached, JIT). The figure is the ratio of the medians; the spread of the per-round
 * ratios says how far to trust it.
 */
export async function pairedWebhookCost(
  a: HookTarget,
  b: HookTarget,
  rounds: number,
  seconds: number,
  pollsSoFar: () => number,
): Promise<{ a: number[]; b: number[]; aPolls: number[]; bPolls: number[]; ratio: number | null; ratios: number[] }> {
  for (const t of [a, b]) await webhookCost(t.proc, t.hookUrl, 1);
  const out = { a: [] as number[], b: [] as number[], aPolls: [] as number[], bPolls: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const)) {
      const t = side === 'a' ? a : b;
      const polls0 = pollsSoFar();
      const w = await webhookCost(t.proc, t.hookUrl, seconds);
      if (w.cpuUs === null) {
        line(`  round ${round + 1}: ${t.label}`, webhookFigure(w), '-');
        return { ...out, ratio: null, ratios: [] };
      }
      out[side].push(w.cpuUs);
      out[side === 'a' ? 'aPolls' : 'bPolls'].push(pollsSoFar() - polls0);
    }
  }
  const ratios = out.a.map((cost, i) => out.b[i]! / cost);
  return { ...out, ratio: median(out.b) / median(out.a), ratios };
}

export function printPaired(label: string, r: Awaited<ReturnType<typeof pairedWebhookCost>>): void {
  const us = (values: number[]) => values.map((v) => v.toFixed(0)).join(' ');
  console.log(`  ${label}, server CPU per webhook (µs) by round:`);
  console.log(`    empty server:     ${us(r.a)}`);
  console.log(`    with the recipes: ${us(r.b)}`);
  console.log(`    polls in each window: empty server ${r.aPolls.join(' ')}; with the recipes ${r.bPolls.join(' ')}`);
  if (r.ratio === null) {
    line(`  ${label}: beside the empty server`, 'VOID (refusals above)', '<= 110 %');
    return;
  }
  const sorted = [...r.ratios].sort((x, y) => x - y);
  line(
    `  ${label}: beside the empty server (medians ${median(r.b).toFixed(0)} / ${median(r.a).toFixed(0)} µs)`,
    `${(r.ratio * 100).toFixed(0)} % (rounds ${(sorted[0]! * 100).toFixed(0)}–${(sorted.at(-1)! * 100).toFixed(0)} %)`,
    '<= 110 %',
  );
}

export function webhookFigure(w: Awaited<ReturnType<typeof webhookCost>>): string {
  const answers = Object.entries(w.statuses)
    .map(([status, n]) => `${n} × ${status}`)
    .join(', ');
  const cost = w.cpuUs === null ? 'VOID (not every answer 200)' : `${w.cpuUs.toFixed(0)} µs`;
  return `${cost} (${w.sent} at ${WEBHOOK_RATE}/s, p50 ${w.p50.toFixed(1)} ms; answers ${answers})`;
}
