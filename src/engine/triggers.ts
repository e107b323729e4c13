// Trigger arming: which running recipes have their trigger armed on this node (a schedule, a poll,
// a topic subscription, a data table; webhooks need nothing), armed when a recipe starts here or
// on another node sharing the database, disarmed when it stops or is deleted, re-read when
// notifications may have been missed.
import { randomUUID } from 'node:crypto';
import type { ServiceContext } from '../context.ts';
import type { RecipeRow } from '../db/types.ts';
import { findRecipeById, listRunningRecipeIds, listRunningRecipesAfter } from '../api/recipes/recipes.store.ts';
import { batchSizeOf, type TopicSubscriptions } from './connectors/workato_pub_sub.ts';
import type { DataTableTriggers } from './data-table-triggers.ts';
import type { EngineEventBus } from './events.ts';
import type { Polls } from './polls.ts';
import type { JobQueue, Lifecycle } from './queue.ts';
import type { RecipeCache } from './recipe-cache.ts';
import type { PySandbox } from './sandbox/py-sandbox.ts';
import type { RubyCodeRunner } from './sandbox/ruby-code.ts';
import type { Schedules } from './schedules.ts';
import type { EngineSettings } from './settings.ts';
import { evaluateTriggerInput } from './validate.ts';
import {
  forgetStaticWebhook,
  indexStaticWebhook,
  reindexStaticWebhooksOf,
  subscribeWebhook,
  unsubscribeWebhook,
} from './connector-triggers.ts';

/** Running recipes read at a time when the engine arms them at start. */
const RESUME_PAGE = 500;
/** Recipes armed at start between two turns of the event loop (requests are answered between them). */
const RESUME_YIELD_EVERY = 50;

export interface TriggerDeps {
  ctx: ServiceContext;
  settings: EngineSettings;
  events: EngineEventBus;
  cache: RecipeCache;
  queue: JobQueue;
  lifecycle: Lifecycle;
  schedules: Schedules;
  polls: Polls;
  subscriptions: TopicSubscriptions;
  dataTables: DataTableTriggers;
  /** Warmed when a recipe with a Python step is armed: its interpreter takes a second or more to load. */
  python: Pick<PySandbox, 'warm'>;
  ruby: Pick<RubyCodeRunner, 'warm'>;
}

/** Whether a recipe has a Python step (its interpreter is then loaded ahead of the first job). */
function usesPython(row: RecipeRow): boolean {
  return /"provider"\s*:\s*"py_eval"/.test(row.code);
}

/** Whether a recipe has a Ruby step (its interpreter is then loaded ahead of the first job). */
function usesRuby(row: RecipeRow): boolean {
  return /"provider"\s*:\s*"workato_custom_code"/.test(row.code);
}

export class TriggerArming {
  readonly #deps: TriggerDeps;
  /** Recipes whose trigger this node has armed (or has nothing to arm for: webhooks). */
  readonly #armed = new Set<number>();
  /** This node's mark on the running_changed notices it sends (its own are not applied twice). */
  readonly #origin = randomUUID();
  readonly #unsubscribe: (() => void)[] = [];
  #resyncing: Promise<void> | undefined;
  /** Webhook triggers unsubscribing after a stop. */
  readonly #unsubscribing = new Set<Promise<void>>();
  /** Static webhook keys being computed again after a connection changed, one chain per connection. */
  readonly #reindexing = new Map<number, Promise<void>>();
  #resyncAgain = false;
  /** While the running recipes are armed at start: those started, stopped or deleted meanwhile. */
  #changedWhileResuming: Set<number> | undefined;
  /** Resolves once resumeRunning has ended (at once before it starts). */
  #resumed: Promise<void> = Promise.resolve();

  constructor(deps: TriggerDeps) {
    this.#deps = deps;
    const { ctx, cache, queue, dataTables, lifecycle } = deps;
    // Deleted recipes (alone or with their folder or project) leave the cache and the backlog counts.
    this.#unsubscribe.push(
      ctx.notifier.subscribe('recipes.deleted', ({ recipeIds }) => {
        for (const recipeId of recipeIds) {
          this.#changedWhileResuming?.add(recipeId);
          cache.forget(recipeId);
          queue.backlog.forget(recipeId);
          dataTables.disarm(recipeId);
        }
      }),
    );
    // A connection changed on this node (updated, connected again, refreshed by a job): the keys of
    // the started recipes on it are computed again, after any computation still running for it.
    this.#unsubscribe.push(
      ctx.notifier.subscribe('connection.credentials_changed', (changed) => {
        if (lifecycle.closing) return;
        const previous = this.#reindexing.get(changed.connectionId) ?? Promise.resolve();
        const next = previous
          .then(() => (lifecycle.closing ? 0 : reindexStaticWebhooksOf(this.#deps, changed)))
          .then(
            () => undefined,
            (error: unknown) =>
              ctx.log.warn(
                { err: error, connection_id: changed.connectionId },
                'could not compute again the static webhook keys of a changed connection',
              ),
          )
          .finally(() => {
            if (this.#reindexing.get(changed.connectionId) === next) this.#reindexing.delete(changed.connectionId);
          });
        this.#reindexing.set(changed.connectionId, next);
      }),
    );
    // Other nodes sharing the database start and stop recipes too: arm or disarm their triggers here.
    this.#unsubscribe.push(
      ctx.notifier.subscribe('recipe.running_changed', ({ recipeId, running, origin }) => {
        if (origin === this.#origin || lifecycle.closing) return;
        this.#changedWhileResuming?.add(recipeId);
        cache.forget(recipeId);
        if (!running) {
          this.disarm(recipeId);
          return;
        }
        void findRecipeById(ctx.db, recipeId)
          .then((row) => (row?.running === 1 && !lifecycle.closing ? this.arm(row) : undefined))
          .catch((error: unknown) =>
            ctx.log.error(
              { err: error, recipe_id: recipeId },
              'could not arm the trigger of a recipe started on another node',
            ),
          );
      }),
    );
    // Starts and stops may have been missed: arm what runs and is not armed, disarm what stopped.
    this.#unsubscribe.push(ctx.notifier.subscribe('everything.changed', () => this.#resyncSoon()));
  }

  /**
   * Arm the triggers of every running recipe (at start), read a page at a time, while the server
   * already answers: webhooks need no arming (their recipe is looked up per call), and a recipe
   * started, stopped or changed on another node meanwhile is left to that change (its row in the
   * page read may be stale). The schedules' timer is set once a page: setting it after each of
   * thousands of schedules made start-up grow with the square of their number. Polls go out
   * spread over one poll interval (Polls.arm). Ends early when the engine closes.
   */
  async resumeRunning(): Promise<number> {
    const { ctx, schedules, lifecycle } = this.#deps;
    const changed = new Set<number>();
    this.#changedWhileResuming = changed;
    let count = 0;
    try {
      let after = 0;
      for (;;) {
        const rows = await listRunningRecipesAfter(ctx.db, after, RESUME_PAGE);
        for (const [i, row] of rows.entries()) {
          if (lifecycle.closing) return count;
          if (changed.has(row.id)) continue;
          count++;
          await this.arm(row, { timer: false, spread: true }).catch((error: unknown) =>
            ctx.log.error({ err: error, recipe_id: row.id }, 'could not resume the trigger of a running recipe'),
          );
          // A recipe started before static webhook keys were indexed gets its key now.
          await indexStaticWebhook(this.#deps, row, { missingOnly: true }).catch((error: unknown) =>
            ctx.log.warn({ err: error, recipe_id: row.id }, "could not index a running recipe's static webhook key"),
          );
          // Started, stopped or deleted while it was armed from the page's row: armed again from the row as it is now.
          if (changed.has(row.id)) await this.#rearm(row.id);
          // Requests go on being answered while thousands of recipes are armed.
          if (i % RESUME_YIELD_EVERY === RESUME_YIELD_EVERY - 1) await new Promise((resolve) => setImmediate(resolve));
        }
        schedules.armTimer();
        if (rows.length < RESUME_PAGE) break;
        after = rows.at(-1)!.id;
      }
      return count;
    } finally {
      this.#changedWhileResuming = undefined;
    }
  }

  /** Start arming the running recipes (resumeRunning) without waiting for it; `resumed` tells when it ends. */
  startResuming(after?: Promise<unknown>): Promise<void> {
    this.#resumed = (async () => {
      await after;
      const started = Date.now();
      const count = await this.resumeRunning();
      this.#deps.ctx.log.info(
        { recipes: count, ms: Date.now() - started },
        'armed the triggers of the running recipes',
      );
    })().catch((error: unknown) =>
      this.#deps.ctx.log.error({ err: error }, 'could not resume the triggers of the running recipes'),
    );
    return this.#resumed;
  }

  /** Resolves once the triggers of the recipes running at start are armed. */
  resumed(): Promise<void> {
    return this.#resumed;
  }

  /** Arm a recipe's trigger from its current row, or disarm it when it no longer runs. */
  async #rearm(recipeId: number): Promise<void> {
    const row = await findRecipeById(this.#deps.ctx.db, recipeId);
    if (row?.running === 1 && !this.#deps.lifecycle.closing) await this.arm(row);
    else this.disarm(recipeId);
  }

  /** A recipe was started here: arm its trigger and tell the other nodes. */
  async started(recipeId: number): Promise<void> {
    const { ctx, cache, events, queue } = this.#deps;
    this.#changedWhileResuming?.add(recipeId);
    cache.forget(recipeId);
    const row = await findRecipeById(ctx.db, recipeId);
    if (!row) return;
    await this.arm(row);
    // A connector's webhook trigger registers the recipe's webhook URL at its service (once, here).
    await subscribeWebhook(this.#deps, row);
    // A custom connector's static webhook trigger: its key goes into the index every node reads.
    await indexStaticWebhook(this.#deps, row).catch((error: unknown) =>
      ctx.log.warn({ err: error, recipe_id: recipeId }, "could not index a started recipe's static webhook key"),
    );
    ctx.notifier.publish('recipe.running_changed', { recipeId, running: true, origin: this.#origin });
    events.emit('recipe.started', { recipeId });
    queue.kick();
  }

  /** A recipe was stopped here: disarm its trigger and tell the other nodes. */
  stopped(recipeId: number): void {
    const { ctx, cache, events, polls } = this.#deps;
    this.#changedWhileResuming?.add(recipeId);
    cache.forget(recipeId);
    this.disarm(recipeId);
    // A polling trigger's turn goes with the stop: the next start polls at once.
    polls
      .stopped(recipeId)
      .catch((error: unknown) =>
        ctx.log.warn({ err: error, recipe_id: recipeId }, "could not forget a stopped recipe's polling turn"),
      );
    forgetStaticWebhook(ctx, recipeId).catch((error: unknown) =>
      ctx.log.warn({ err: error, recipe_id: recipeId }, "could not forget a stopped recipe's static webhook key"),
    );
    // A connector's webhook trigger undoes its subscription (the stop does not wait for the service).
    const unsubscribing = unsubscribeWebhook(this.#deps, recipeId)
      .catch((error: unknown) =>
        ctx.log.warn({ err: error, recipe_id: recipeId }, 'could not unsubscribe a stopped webhook trigger'),
      )
      .finally(() => this.#unsubscribing.delete(unsubscribing));
    this.#unsubscribing.add(unsubscribing);
    ctx.notifier.publish('recipe.running_changed', { recipeId, running: false, origin: this.#origin });
    events.emit('recipe.stopped', { recipeId });
  }

  /** Stop listening for starts, stops and deletions (at close). */
  close(): void {
    for (const off of this.#unsubscribe.splice(0)) off();
  }

  /** Resolves when the webhook triggers of stopped recipes have unsubscribed (close, tests). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#unsubscribing, ...this.#reindexing.values()]);
  }

  disarm(recipeId: number): void {
    const { schedules, subscriptions, polls, dataTables } = this.#deps;
    this.#armed.delete(recipeId);
    subscriptions.disarm(recipeId);
    polls.disarm(recipeId);
    dataTables.disarm(recipeId);
    schedules.disarm(recipeId);
    schedules.armTimer();
  }

  /**
   * Arm the trigger of a running recipe: its schedule, poll, data table or topic subscription.
   * Webhooks need nothing: their recipe is compiled at its first event, not at start-up.
   */
  async arm(row: RecipeRow, options: { timer?: boolean; spread?: boolean } = {}): Promise<void> {
    const { settings, cache, schedules, subscriptions, polls, dataTables, python, ruby } = this.#deps;
    schedules.disarm(row.id);
    subscriptions.disarm(row.id);
    polls.disarm(row.id);
    dataTables.disarm(row.id);
    if (usesPython(row)) python.warm();
    if (usesRuby(row)) ruby.warm();
    this.#armed.add(row.id);
    if (row.trigger_application === 'workato_webhooks') return;
    await cache.prepare(row);
    const trigger = cache.triggerOf(row)?.trigger;
    const kind = trigger?.trigger?.kind;
    if (!trigger || kind === undefined) return;
    if (kind === 'poll')
      return polls.arm(row, evaluateTriggerInput(settings, trigger), trigger.name ?? undefined, {
        spread: options.spread === true,
      });
    if (kind === 'data_table') {
      await dataTables.arm(row, trigger.name ?? '', evaluateTriggerInput(settings, trigger));
      return;
    }
    if (kind === 'topic') {
      const input = evaluateTriggerInput(settings, trigger);
      const size = trigger.name === 'batch_subscribe_to_topic' ? batchSizeOf(input) : null;
      return subscriptions.arm(row, input, typeof size === 'number' ? size : null);
    }
    if (kind !== 'schedule') return;
    schedules.arm(row, evaluateTriggerInput(settings, trigger), options);
  }

  /** Re-read the running recipes once no re-read is under way (one more if asked meanwhile). */
  #resyncSoon(): void {
    const { ctx, lifecycle } = this.#deps;
    if (!lifecycle.started || lifecycle.closing) return;
    if (this.#resyncing) {
      this.#resyncAgain = true;
      return;
    }
    this.#resyncing = (async () => {
      // The recipes running at start are armed first (a re-read beside it would arm them twice).
      await this.#resumed;
      do {
        this.#resyncAgain = false;
        await this.#resync().catch((error: unknown) =>
          ctx.log.warn({ err: error }, 'could not re-read the running recipes'),
        );
      } while (this.#resyncAgain && !lifecycle.closing);
    })().finally(() => {
      this.#resyncing = undefined;
    });
  }

  async #resync(): Promise<void> {
    const { ctx, lifecycle, queue } = this.#deps;
    const running = new Set(await listRunningRecipeIds(ctx.db));
    for (const id of this.#armed) if (!running.has(id)) this.disarm(id);
    for (const id of running) {
      if (this.#armed.has(id) || lifecycle.closing) continue;
      const row = await findRecipeById(ctx.db, id);
      if (row?.running === 1) await this.arm(row);
    }
    queue.kick();
  }
}
