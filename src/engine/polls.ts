// Polling triggers of running recipes (rest/new_poll_event): every poll interval (and on
// poll_now) the trigger's request is sent, the records of the answer newer than the cursor become
// jobs, oldest first, and the cursor moves to the newest of them in the same transaction, guarded
// by its previous value and by `running = 1`: a record is never stored twice nor skipped, whatever
// stops or restarts. The cursor lives in the recipe's trigger_closure ({"cursor": value}), so it
// survives restarts; reset_trigger clears it. Every node sharing the database arms every running
// recipe's polling trigger, but the timed polls are turns (src/leases.ts, `poll:<recipe id>`): the
// node that takes the turn polls, the turn runs for the poll interval, and every node wakes when
// it ends to try for the next; so the URL is asked once per interval whatever the number of nodes.
// poll_now polls at once on the node asked, turn or not.
// Connectors' polling triggers (TriggerDef.poll: custom connectors, SaaS services) run the same
// way: their closure and recent dedup keys are the trigger_closure (connector-triggers.ts).
import type { ServiceContext } from '../context.ts';
import type { RecipeRow } from '../db/types.ts';
import { findRecipeById, findTriggerClosure, moveRunningTriggerClosureFrom } from '../api/recipes/recipes.store.ts';
import { resolveSlot } from './connection-slots.ts';
import { sendRequest } from './connectors/rest.ts';
import { StepError, type PollPage, type TriggerDef } from './connectors/types.ts';
import {
  connectorTriggerOf,
  readTriggerState,
  triggerContext,
  unseen,
  writeTriggerState,
} from './connector-triggers.ts';
import type { EngineEventBus } from './events.ts';
import {
  fromPlain,
  hashGet,
  isHash,
  newHash,
  toPlain,
  toRubyString,
  type Hash,
  type Value,
} from '../recipe/formula/values.ts';
import type { JobQueue, Lifecycle } from './queue.ts';
import type { RecipeCache } from './recipe-cache.ts';
import type { EngineSettings } from './settings.ts';
import { forgetTurn, takeTurn } from '../leases.store.ts';
import { toStored } from '../time.ts';
import { pollStore, type StorePoll } from './store-polls.ts';

/** Records turned into jobs per poll; the rest come at the next poll (the cursor moves only past those stored). */
export const MAX_RECORDS_PER_POLL = 100;
/** Pages of a connector's polling trigger read in one poll while it can poll more (the rest at the next poll). */
export const MAX_PAGES_PER_POLL = 50;
/** The longest delay a timer takes. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Records read from one answer. */
const MAX_RECORDS_READ = 100_000;

/**
 * How long after a restart a running recipe's first poll waits: a point of the poll interval
 * picked from the recipe's id (Knuth's multiplicative hash), so the polls of thousands of recipes
 * armed together spread evenly over one interval instead of all going out at start, and each
 * recipe keeps the same place at every restart.
 */
export function firstPollDelay(recipeId: number, intervalMs: number): number {
  const fraction = (Math.imul(recipeId, 2654435761) >>> 0) / 2 ** 32;
  return Math.floor(fraction * intervalMs);
}

export interface PollDeps {
  ctx: ServiceContext;
  settings: EngineSettings;
  cache: RecipeCache;
  events: EngineEventBus;
  queue: JobQueue;
  lifecycle: Lifecycle;
}

type Cursor = string | number;

interface Armed {
  input: Hash;
  /** The trigger's name (the store triggers of store-polls.ts tell theirs apart by it). */
  name: string;
  timer: NodeJS.Timeout | undefined;
}

/** The turn of a recipe's timed polls (src/leases.ts). */
function turnOf(recipeId: number): string {
  return `poll:${recipeId}`;
}

/** The value of a dotted path in a record. */
function at(record: Value, path: string): Value {
  let v: Value = record;
  for (const key of path.split('.')) v = isHash(v) ? (hashGet(v, key) ?? null) : null;
  return v;
}

/** Numbers compare as numbers, anything else as text (ISO timestamps sort as text). */
function cursorOf(value: Value): Cursor | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value !== '') return value;
  return null;
}

function after(a: Cursor, b: Cursor): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a > b;
  return String(a) > String(b);
}

/** The records of an answer: the list at `records_path` in the body, or the body when it is a list. */
export function recordsOf(body: Value, recordsPath: string | null): Value[] {
  const list = recordsPath ? at(body, recordsPath) : body;
  if (!Array.isArray(list))
    throw new StepError(
      'Bad response',
      recordsPath
        ? `the answer has no list at ${recordsPath}`
        : 'the answer is not a list: name the list in records_path',
    );
  return list.slice(0, MAX_RECORDS_READ);
}

export class Polls {
  readonly #deps: PollDeps;
  readonly #armed = new Map<number, Armed>();
  readonly #running = new Map<number, Promise<number>>();
  /** Timed polls between their wake-up and their poll (taking the turn). */
  readonly #turns = new Set<Promise<void>>();

  constructor(deps: PollDeps) {
    this.#deps = deps;
  }

  /**
   * Start polling a running recipe's trigger: at once (if the turn is free), then every poll
   * interval. With `spread` (the recipes running at start), the first poll waits for the recipe's
   * point of the interval (firstPollDelay).
   */
  arm(row: RecipeRow, input: Hash, name = 'new_poll_event', options: { spread?: boolean } = {}): void {
    this.disarm(row.id);
    const armed: Armed = { input, name, timer: undefined };
    this.#armed.set(row.id, armed);
    if (!options.spread) {
      this.#timed(row.id, armed);
      return;
    }
    const delay = Math.min(firstPollDelay(row.id, this.#deps.settings.triggerPollMs), MAX_TIMER_MS);
    armed.timer = setTimeout(() => {
      if (this.#armed.get(row.id) === armed && !this.#deps.lifecycle.closing) this.#timed(row.id, armed);
    }, delay);
    armed.timer.unref();
  }

  disarm(recipeId: number): void {
    const armed = this.#armed.get(recipeId);
    if (armed) clearTimeout(armed.timer);
    this.#armed.delete(recipeId);
  }

  /** The recipe stopped (on this node): its turn is forgotten, so a new start polls at once. */
  async stopped(recipeId: number): Promise<void> {
    this.disarm(recipeId);
    await forgetTurn(this.#deps.ctx.db, turnOf(recipeId));
  }

  has(recipeId: number): boolean {
    return this.#armed.has(recipeId);
  }

  busy(): boolean {
    return this.#running.size > 0 || this.#turns.size > 0;
  }

  async close(): Promise<void> {
    for (const id of [...this.#armed.keys()]) this.disarm(id);
    await Promise.allSettled([...this.#turns, ...this.#running.values()]);
  }

  /**
   * A timed poll: take the recipe's turn and poll, or leave it to the node that has it; then wake
   * when the turn ends (this node's or the other's) for the next.
   */
  #timed(recipeId: number, armed: Armed): void {
    const { ctx, settings, lifecycle } = this.#deps;
    // Turns are counted in the time the timers keep (the machine's), whatever the engine's clock.
    const task = (async () => {
      let wakeAt = Date.now() + settings.triggerPollMs;
      try {
        const now = Date.now();
        const turn = await takeTurn(
          ctx.db,
          turnOf(recipeId),
          ctx.nodeId,
          toStored(new Date(now)),
          toStored(new Date(now + settings.triggerPollMs)),
        );
        const endsAt = Date.parse(turn.endsAt);
        if (!Number.isNaN(endsAt)) wakeAt = endsAt;
        if (turn.taken && this.#armed.get(recipeId) === armed) await this.poll(recipeId);
      } catch (error) {
        ctx.log.error({ err: error, recipe_id: recipeId }, 'polling trigger failed');
      }
      // A timer waits 2^31 - 1 ms at most (TRIGGER_POLL_SECONDS goes up to 30 days): longer waits go in steps.
      const sleep = () => {
        if (this.#armed.get(recipeId) !== armed || lifecycle.closing) return;
        const delay = Math.max(0, wakeAt - Date.now());
        armed.timer =
          delay > MAX_TIMER_MS
            ? setTimeout(sleep, MAX_TIMER_MS)
            : setTimeout(() => this.#timed(recipeId, armed), delay);
        armed.timer.unref();
      };
      sleep();
    })();
    this.#turns.add(task);
    void task.finally(() => this.#turns.delete(task));
  }

  /** Poll now (poll_now, the timer): the number of jobs stored. One poll of a recipe at a time. */
  poll(recipeId: number): Promise<number> {
    const current = this.#running.get(recipeId);
    if (current) return current;
    const task = this.#pollOnce(recipeId)
      .catch((error: unknown) => {
        this.#deps.ctx.log.error({ err: error, recipe_id: recipeId }, 'polling trigger failed');
        return 0;
      })
      .finally(() => this.#running.delete(recipeId));
    this.#running.set(recipeId, task);
    return task;
  }

  async #pollOnce(recipeId: number): Promise<number> {
    const { ctx, settings, queue, lifecycle } = this.#deps;
    const armed = this.#armed.get(recipeId);
    if (!armed || lifecycle.closing) return 0;
    const row = await findRecipeById(ctx.db, recipeId);
    if (!row || row.running !== 1) return 0;
    const stored = await findTriggerClosure(ctx.db, recipeId);
    const previous = stored?.trigger_closure ?? null;
    const input = armed.input;
    await this.#deps.cache.prepare(row);
    const def = connectorTriggerOf(this.#deps.cache, row);
    if (def?.poll) return this.#pollConnectorOnce(row, armed, def, previous);
    if (row.trigger_application !== 'rest') return this.#pollStoreOnce(row, armed, previous);
    const field = toRubyString(hashGet(input, 'cursor_field')).trim();
    let cursor: Cursor | null = null;
    if (previous !== null) {
      try {
        cursor = cursorOf(fromPlain((JSON.parse(previous) as { cursor?: unknown }).cursor ?? null));
      } catch {
        cursor = null;
      }
    } else {
      cursor = cursorOf(hashGet(input, 'since') ?? null);
    }
    let records: Value[];
    try {
      const request = hashGet(input, 'request');
      const requestInput: Hash = isHash(request) ? newHash(Object.entries(request)) : newHash();
      // The server may filter by itself: the cursor is sent in the query parameter `since_param` names.
      const sinceParam = toRubyString(hashGet(input, 'since_param')).trim();
      if (sinceParam !== '' && cursor !== null) {
        const query = hashGet(requestInput, 'query');
        requestInput.query = newHash([...(isHash(query) ? Object.entries(query) : []), [sinceParam, cursor]]);
      }
      const connection = await resolveSlot(
        ctx,
        row,
        this.#deps.cache.triggerOf(row)?.config ?? [],
        row.trigger_application ?? 'rest',
        { workspaceId: row.workspace_id, environmentId: row.environment_id },
      );
      const answer = await sendRequest(
        newHash([
          ['request', requestInput],
          ['response', hashGet(input, 'response') ?? newHash()],
        ]),
        connection,
        settings.limits,
        ctx.outbound.dispatcher,
        (url) => ctx.outbound.checkUrl(url),
      );
      const path = toRubyString(hashGet(input, 'records_path')).trim();
      records = recordsOf(hashGet(answer, 'body') ?? null, path === '' ? null : path);
    } catch (error) {
      // A failed poll is a failed job with is_poll_error (20 §12.7); the cursor stays.
      const type = error instanceof StepError ? error.errorType : 'Trigger error';
      const message = error instanceof Error ? error.message : 'the poll failed';
      await ctx.groupCommit.run((trx) => queue.storePollError(trx, row, type, message));
      return 0;
    }
    const fresh = records
      .map((record) => ({ record, key: cursorOf(at(record, field)) }))
      .filter(
        (r): r is { record: Value; key: Cursor } =>
          r.key !== null && isHash(r.record) && (cursor === null || after(r.key, cursor)),
      )
      .sort((a, b) => (after(a.key, b.key) ? 1 : after(b.key, a.key) ? -1 : 0));
    // Records sharing the cursor value of the last one taken go with it (the cursor moves past them all).
    let take = Math.min(fresh.length, MAX_RECORDS_PER_POLL);
    while (
      take < fresh.length &&
      !after((fresh[take] as { key: Cursor }).key, (fresh[take - 1] as { key: Cursor }).key)
    )
      take++;
    const batch = fresh.slice(0, take);
    if (batch.length === 0) return 0;
    const next = JSON.stringify({ cursor: toPlain((batch[batch.length - 1] as { key: Cursor }).key) });
    const handles = await ctx.groupCommit.run(async (trx) => {
      if (!(await moveRunningTriggerClosureFrom(trx, row.id, previous, next))) return null;
      const out: string[] = [];
      for (const { record } of batch) {
        const job = await queue.storeJob(trx, row, record as Hash, {});
        if (job?.queued) out.push(job.handle);
      }
      return out;
    });
    return this.#stored(row, handles);
  }

  /**
   * A poll of a connector's polling trigger (TriggerDef.poll): each page's new events become jobs
   * and its closure is kept, in one transaction; while the connector says it can poll more, the
   * next page is asked at once (up to MAX_PAGES_PER_POLL, the rest at the next poll).
   */
  async #pollConnectorOnce(row: RecipeRow, armed: Armed, def: TriggerDef, previous: string | null): Promise<number> {
    const { ctx, settings, cache, queue, lifecycle } = this.#deps;
    const poll = def.poll as NonNullable<TriggerDef['poll']>;
    const tc = triggerContext(ctx, settings, cache, row);
    let stored = 0;
    let current = previous;
    for (let page = 0; page < MAX_PAGES_PER_POLL; page++) {
      const state = readTriggerState(current);
      let result: PollPage;
      try {
        result = await poll(armed.input, state.closure, tc);
      } catch (error) {
        const type = error instanceof StepError ? error.errorType : 'Trigger error';
        const message = error instanceof Error ? error.message : 'the poll failed';
        await ctx.groupCommit.run((trx) => queue.storePollError(trx, row, type, message));
        return stored;
      }
      const seen = [...state.seen];
      const events = unseen(result.events, seen);
      const next = writeTriggerState({ ...state, closure: result.closure ?? null, seen });
      if (next === current && events.length === 0) break;
      const guard = current;
      const handles = await ctx.groupCommit.run(async (trx) => {
        if (!(await moveRunningTriggerClosureFrom(trx, row.id, guard, next))) return null;
        const out: string[] = [];
        for (const event of events) {
          const job = await queue.storeJob(trx, row, event, {});
          if (job?.queued) out.push(job.handle);
        }
        return out;
      });
      if (handles === null) break;
      stored += this.#stored(row, handles);
      current = next;
      if (!result.canPollMore || lifecycle.closing || this.#armed.get(row.id) !== armed) break;
    }
    return stored;
  }

  /** A poll of a trigger over Switchboard's own stores (store-polls.ts): its jobs and cursor in one transaction. */
  async #pollStoreOnce(row: RecipeRow, armed: Armed, previous: string | null): Promise<number> {
    const { ctx, queue } = this.#deps;
    let plan: StorePoll;
    try {
      plan = await pollStore(ctx, row, armed.name, armed.input, previous);
    } catch (error) {
      const type = error instanceof StepError ? error.errorType : 'Trigger error';
      const message = error instanceof Error ? error.message : 'the poll failed';
      await ctx.groupCommit.run((trx) => queue.storePollError(trx, row, type, message));
      return 0;
    }
    if (plan.next === null) return 0;
    const next = plan.next;
    const handles = await ctx.groupCommit.run(async (trx) => {
      if (!(await moveRunningTriggerClosureFrom(trx, row.id, previous, next))) return null;
      const out: string[] = [];
      for (const event of plan.events) {
        const job = await queue.storeJob(trx, row, event, {});
        if (job?.queued) out.push(job.handle);
      }
      return out;
    });
    return this.#stored(row, handles);
  }

  #stored(row: RecipeRow, handles: string[] | null): number {
    const { queue, events } = this.#deps;
    if (handles === null) return 0;
    queue.backlog.add(row, handles.length);
    for (const handle of handles) events.emit('job.queued', { recipeId: row.id, jobId: handle });
    if (handles.length > 0) queue.kick();
    return handles.length;
  }
}
