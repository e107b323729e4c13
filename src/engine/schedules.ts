// Schedule triggers (clock/scheduled_event) of running recipes: the next firing of each, one
// timer for the soonest, and the firing itself, which stores the job and the trigger closure
// (`last_fired_at`) in one transaction. Every node sharing the database arms the schedules of
// every running recipe. The stored last firing decides the next one for every node (`dueAfter`:
// the next tick of the schedule after it), whatever time each node armed it at: a firing is
// recorded only if its time is that tick or later, by moving the closure from the value read to
// the new one; a node that finds the closure moved (or its own firing early) fires nothing and
// arms the tick that follows the stored firing. So a tick fires once whatever the number of nodes.
import type { ServiceContext } from '../context.ts';
import { retryingConflicts } from '../db/conflict-retry.ts';
import type { RecipeRow } from '../db/types.ts';
import { findRecipeById, findTriggerClosure, recordScheduleFiring } from '../api/recipes/recipes.store.ts';
import { nextFireTime, scheduleOf, type Schedule } from './connectors/clock.ts';
import type { EngineEventBus } from './events.ts';
import { newHash, type Hash } from '../recipe/formula/values.ts';
import type { JobQueue, Lifecycle } from './queue.ts';
import type { EngineSettings } from './settings.ts';

const SKIPPED = Symbol('fired by another node');

/** When the schedule last fired, from the trigger closure (null: never, or unreadable). */
function lastFiredOf(closureText: string | null): number | null {
  if (!closureText) return null;
  try {
    const closure = JSON.parse(closureText) as { last_fired_at?: string };
    if (typeof closure.last_fired_at !== 'string') return null;
    const at = Date.parse(closure.last_fired_at);
    return Number.isNaN(at) ? null : at;
  } catch {
    return null;
  }
}

/**
 * The first tick of the schedule after a firing at `lastFired`: the same for every node, since it
 * depends on the stored firing only (every N minutes or hours: N after it; a cron schedule: its
 * next run).
 */
function dueAfter(schedule: Schedule, lastFired: number): number {
  return nextFireTime(schedule, lastFired + 1, lastFired);
}

interface ScheduleState {
  schedule: Schedule;
  next: number;
}

export interface ScheduleDeps {
  ctx: ServiceContext;
  settings: EngineSettings;
  events: EngineEventBus;
  queue: JobQueue;
  lifecycle: Lifecycle;
}

export class Schedules {
  readonly #deps: ScheduleDeps;
  readonly #schedules = new Map<number, ScheduleState>();
  #timer: NodeJS.Timeout | undefined;

  constructor(deps: ScheduleDeps) {
    this.#deps = deps;
  }

  /** Arm the schedule of a running recipe from its (literal) trigger input and its last firing. */
  arm(row: RecipeRow, input: Hash, options: { timer?: boolean } = {}): void {
    const schedule = scheduleOf(input);
    if (Array.isArray(schedule)) return;
    const lastFired = lastFiredOf(row.trigger_closure);
    this.#schedules.set(row.id, { schedule, next: nextFireTime(schedule, this.#deps.settings.now(), lastFired) });
    // Several arms in a row (start-up) set the timer once, after the last.
    if (options.timer !== false) this.armTimer();
  }

  /** Whether the recipe's schedule is armed here. */
  has(recipeId: number): boolean {
    return this.#schedules.has(recipeId);
  }

  disarm(recipeId: number): void {
    this.#schedules.delete(recipeId);
  }

  /** Set the timer for the soonest firing (at most a minute away: clocks drift). */
  armTimer(): void {
    const { ctx, lifecycle, settings } = this.#deps;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (lifecycle.closing || !lifecycle.started || !settings.scheduleTimer || this.#schedules.size === 0) return;
    let soonest = Infinity;
    for (const s of this.#schedules.values()) if (s.next < soonest) soonest = s.next;
    const delay = Math.max(0, Math.min(soonest - settings.now(), 60_000));
    this.#timer = setTimeout(() => {
      void this.runDue().catch((error: unknown) => ctx.log.error({ err: error }, 'scheduler failed'));
    }, delay);
    this.#timer.unref();
  }

  clearTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
  }

  /** Fire a running recipe's schedule now (poll_now), without moving its next firing; false when it has none. */
  async fireNow(recipeId: number): Promise<boolean> {
    const { ctx, events, queue, settings } = this.#deps;
    const state = this.#schedules.get(recipeId);
    if (!state) return false;
    const row = await findRecipeById(ctx.db, recipeId);
    if (!row || row.running !== 1) return false;
    const event = newHash([
      ['scheduled_time', new Date(settings.now()).toISOString()],
      ['timezone', state.schedule.zone],
    ]);
    const stored = await ctx.groupCommit.run((trx) => queue.storeJob(trx, row, event, {}));
    if (stored?.queued) {
      queue.backlog.add(row);
      events.emit('job.queued', { recipeId: row.id, jobId: stored.handle });
      queue.kick();
    }
    return true;
  }

  /** Fire the schedules that are due now (the timer calls it; tests call it with a manual clock). */
  async runDue(): Promise<number> {
    const { ctx, events, queue } = this.#deps;
    let fired = 0;
    const at = this.#deps.settings.now();
    for (const [recipeId, state] of [...this.#schedules.entries()]) {
      if (state.next > at) continue;
      // Taken before the first await: a run that starts meanwhile (the timer beside a call, while
      // this one waits on a networked database) finds it no longer due. Given back if storing fails.
      const firedAt = state.next;
      state.next = nextFireTime(state.schedule, Math.max(at, firedAt) + 1, firedAt);
      try {
        const row = await findRecipeById(ctx.db, recipeId);
        if (!row || row.running !== 1) {
          this.#schedules.delete(recipeId);
          continue;
        }
        const event = newHash([
          ['scheduled_time', new Date(firedAt).toISOString()],
          ['timezone', state.schedule.zone],
        ]);
        const stored = await retryingConflicts(() =>
          ctx.db.transaction().execute(async (trx) => {
            const current = await findTriggerClosure(trx, row.id);
            if (!current || current.running !== 1) return SKIPPED;
            // Another node fired this tick already, or this node's firing comes before the tick
            // that follows the stored one (it armed the schedule from a time of its own).
            const last = lastFiredOf(current.trigger_closure);
            if (last !== null && firedAt < dueAfter(state.schedule, last)) return SKIPPED;
            if (
              !(await recordScheduleFiring(
                trx,
                row.id,
                current.trigger_closure,
                JSON.stringify({ last_fired_at: new Date(firedAt).toISOString() }),
              ))
            )
              return SKIPPED;
            return queue.storeJob(trx, row, event, {});
          }),
        );
        if (stored === SKIPPED) {
          // Line up with the firing stored by whichever node made it.
          const fresh = await findTriggerClosure(ctx.db, recipeId);
          const last = lastFiredOf(fresh?.trigger_closure ?? null);
          if (last !== null && dueAfter(state.schedule, last) > firedAt) state.next = dueAfter(state.schedule, last);
          continue;
        }
        if (stored?.queued) {
          queue.backlog.add(row);
          events.emit('job.queued', { recipeId: row.id, jobId: stored.handle });
        }
        fired++;
      } catch (error) {
        state.next = Math.min(state.next, firedAt);
        throw error;
      }
    }
    if (fired > 0) queue.kick();
    this.armTimer();
    return fired;
  }
}
