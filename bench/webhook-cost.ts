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

export interface WebhookCost {
  cpuUs: number | null;
  sent: number;
  p50: number;
  statuses: Record<string, number>;
}

/**
 * A webhook's cost on each of the given servers, measured over one window: server CPU per webhook
 * (µs, from /proc, every thread), its job included. Webhooks go out to each server at WEBHOOK_RATE
 * a second for `seconds` (paced, interleaved between the servers, at most 16 in flight to each, so a
 * recipe's backlog never fills); the window opens with every server at rest and closes once every
 * server is at rest again (the jobs ended). Several servers in one window see the same machine at
 * the same moments. Answers are counted by status: a figure is void (null) unless every answer
 * accepted its webhook, since a refusal costs far less than a job.
 */
export async function webhookCost(
  targets: ReadonlyArray<{ proc: Proc; hookUrl: string }>,
  seconds: number,
): Promise<WebhookCost[]> {
  for (const t of targets) await settled(t.proc.child.pid!);
  const before = targets.map((t) => cpuMicros(t.proc.child.pid));
  const total = WEBHOOK_RATE * seconds;
  const results = targets.map(() => ({ statuses: {} as Record<string, number>, times: [] as number[] }));
  const inFlight = targets.map(() => new Set<Promise<void>>());
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / WEBHOOK_RATE;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    for (const [k, t] of targets.entries()) {
      const flying = inFlight[k]!;
      while (flying.size >= 16) await Promise.race(flying);
      const { statuses, times } = results[k]!;
      const sent = (async () => {
        const t0 = performance.now();
        let key: string;
        try {
          const res = await fetch(t.hookUrl, {
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
      flying.add(sent);
      void sent.then(() => flying.delete(sent));
    }
  }
  await Promise.all(inFlight.flatMap((flying) => [...flying]));
  for (const t of targets) await settled(t.proc.child.pid!);
  return targets.map((t, k) => {
    const after = cpuMicros(t.proc.child.pid);
    const { statuses, times } = results[k]!;
    times.sort((a, b) => a - b);
    const accepted = Object.keys(statuses).every((status) => status === '200' || status === '202');
    const b = before[k];
    return {
      cpuUs: b === null || b === undefined || after === null || !accepted ? null : (after - b) / total,
      sent: total,
      p50: times[Math.floor(times.length / 2)] ?? NaN,
      statuses,
    };
  });
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
 * A webhook's cost on two servers running side by side (an empty server and one with the recipes),
 * in rounds: each round is one webhookCost window in which both receive the same webhooks at the
 * same moments, so the machine's load, which drifts between windows by more than the 10% being
 * judged, falls on both alike. The polls that went out during each window are counted (they are the
 * recipes' server's work). One untimed window of `warmupSeconds` first warms both (route schemas
 * compiled, the recipe cached, JIT): after its collection at rest (src/idle-memory.ts) a server
 * optimizes again, under load, the code that collection deoptimized, and runs 15–30% slower
 * meanwhile (docs/performance.md), so a server collected a moment ago beside one long warm would be
 * measured in that state. The figure is the median of the rounds' ratios; their spread says how far
 * to trust it.
 */
export async function pairedWebhookCost(
  a: HookTarget,
  b: HookTarget,
  rounds: number,
  seconds: number,
  pollsSoFar: () => number,
  warmupSeconds = 1,
): Promise<{ a: number[]; b: number[]; polls: number[]; ratio: number | null; ratios: number[] }> {
  await webhookCost([a, b], warmupSeconds);
  const out = { a: [] as number[], b: [] as number[], polls: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    const polls0 = pollsSoFar();
    // Which server is sent to first in each tick alternates by round.
    const [first, second] = round % 2 === 0 ? [a, b] : [b, a];
    const costs = await webhookCost([first, second], seconds);
    const [costA, costB] = round % 2 === 0 ? costs : [costs[1]!, costs[0]!];
    for (const [t, w] of [
      [a, costA!],
      [b, costB!],
    ] as const)
      if (w.cpuUs === null) {
        line(`  round ${round + 1}: ${t.label}`, webhookFigure(w), '-');
        return { ...out, ratio: null, ratios: [] };
      }
    out.a.push(costA!.cpuUs!);
    out.b.push(costB!.cpuUs!);
    out.polls.push(pollsSoFar() - polls0);
  }
  const ratios = out.a.map((cost, i) => out.b[i]! / cost);
  return { ...out, ratio: median(ratios), ratios };
}

export function printPaired(label: string, r: Awaited<ReturnType<typeof pairedWebhookCost>>): void {
  const us = (values: number[]) => values.map((v) => v.toFixed(0)).join(' ');
  console.log(`  ${label}, server CPU per webhook (µs) by round:`);
  console.log(`    empty server:     ${us(r.a)}`);
  console.log(`    with the recipes: ${us(r.b)}`);
  console.log(`    polls in each window:  ${r.polls.join(' ')}`);
  if (r.ratio === null) {
    line(`  ${label}: beside the empty server`, 'VOID (refusals above)', '<= 110 %');
    return;
  }
  const sorted = [...r.ratios].sort((x, y) => x - y);
  line(
    `  ${label}: beside the empty server (median of the rounds' ratios)`,
    `${(r.ratio * 100).toFixed(0)} % (rounds ${(sorted[0]! * 100).toFixed(0)}–${(sorted.at(-1)! * 100).toFixed(0)} %)`,
    '<= 110 %',
  );
}

export function webhookFigure(w: WebhookCost): string {
  const answers = Object.entries(w.statuses)
    .map(([status, n]) => `${n} × ${status}`)
    .join(', ');
  const cost = w.cpuUs === null ? 'VOID (not every answer 200)' : `${w.cpuUs.toFixed(0)} µs`;
  return `${cost} (${w.sent} at ${WEBHOOK_RATE}/s, p50 ${w.p50.toFixed(1)} ms; answers ${answers})`;
}
