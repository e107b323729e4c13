// Triggers of connectors (custom connectors' Ruby, SaaS services) as the engine runs them: the
// context their code gets outside a job, and their state in the recipe's trigger_closure:
//
//   {"closure": <what the connector keeps>, "seen": [<recent dedup keys>], "subscription": <webhook>}
//
// A polling trigger's `closure` is what its last poll returned (polls.ts moves it with the jobs in
// one transaction); `seen` holds the last SEEN_KEYS dedup keys, so an event seen again (a record
// polled twice at the edge of a time window, a webhook delivered twice) is not a second job;
// `subscription` is what a webhook trigger's subscribe returned when the recipe started, given to
// its notifications and to unsubscribe when it stops.
import type { ServiceContext } from '../context.ts';
import {
  deleteStaticWebhookKey,
  findConnectorWorkspace,
  hasStaticWebhookKey,
  listStaticWebhookCandidates,
  listStaticWebhookRecipes,
  putStaticWebhookKey,
} from '../api/custom_connectors/custom_connectors.store.ts';
import { toStored } from '../time.ts';
import type { RecipeRow } from '../db/types.ts';
import {
  findRecipeById,
  findTriggerClosure,
  moveRunningTriggerClosureFrom,
  replaceTriggerClosure,
} from '../api/recipes/recipes.store.ts';
import { connectionSlot, resolveSlot } from './connection-slots.ts';
import { findConnection } from '../api/connections/connections.store.ts';
import type { ConfigEntry } from '../recipe/document.ts';
import {
  StepError,
  type ConnectionValues,
  type TriggerContext,
  type TriggerDef,
  type TriggerEvent,
  type WebhookAnswer,
  type WebhookRequest,
  type WebhookTriggerDef,
} from './connectors/types.ts';
import type { EngineEventBus } from './events.ts';
import { BACKLOG_RETRY_AFTER_SECONDS } from './backlog.ts';
import { BACKLOG_FULL, type JobQueue } from './queue.ts';
import type { RecipeCache } from './recipe-cache.ts';
import type { EngineSettings } from './settings.ts';
import { evaluateTriggerInput } from './validate.ts';
import { newHash, type Hash } from '../recipe/formula/values.ts';

/** Dedup keys remembered per recipe (the newest). */
export const SEEN_KEYS = 2000;

export interface TriggerState {
  closure: unknown;
  seen: string[];
  subscription?: unknown;
}

/** The stored state; anything unreadable (or another trigger's cursor) reads as a fresh start. */
export function readTriggerState(text: string | null): TriggerState {
  if (text === null) return { closure: null, seen: [] };
  try {
    const parsed = JSON.parse(text) as Partial<TriggerState> | null;
    if (parsed === null || typeof parsed !== 'object') return { closure: null, seen: [] };
    const seen = Array.isArray(parsed.seen) ? parsed.seen.filter((k): k is string => typeof k === 'string') : [];
    return {
      closure: parsed.closure ?? null,
      seen,
      ...(parsed.subscription !== undefined ? { subscription: parsed.subscription } : {}),
    };
  } catch {
    return { closure: null, seen: [] };
  }
}

export function writeTriggerState(state: TriggerState): string {
  return JSON.stringify({
    closure: state.closure ?? null,
    seen: state.seen.slice(-SEEN_KEYS),
    ...(state.subscription !== undefined ? { subscription: state.subscription } : {}),
  });
}

/** The events not seen before (keys recorded in `seen`, which this changes), in their order. */
export function unseen(events: readonly TriggerEvent[], seen: string[]): Hash[] {
  const known = new Set(seen);
  const out: Hash[] = [];
  for (const { event, dedup } of events) {
    if (typeof dedup === 'string' && dedup !== '') {
      if (known.has(dedup)) continue;
      known.add(dedup);
      seen.push(dedup);
    }
    out.push(event);
  }
  return out;
}

/** The recipe's trigger when it is a connector's polling or webhook trigger. */
export function connectorTriggerOf(cache: RecipeCache, row: RecipeRow): TriggerDef | undefined {
  const def = cache.triggerOf(row)?.trigger.trigger ?? undefined;
  return def && (def.poll || def.webhook) ? def : undefined;
}

/** What a trigger's code gets: the recipe, the connection of its provider's slot (resolved once), the limits. */
export function triggerContext(
  ctx: ServiceContext,
  settings: EngineSettings,
  cache: RecipeCache,
  row: RecipeRow,
): TriggerContext {
  let connection: Promise<ConnectionValues | null> | undefined;
  const scope = { workspaceId: row.workspace_id, environmentId: row.environment_id };
  return {
    ctx,
    recipe: { id: row.id, name: row.name, ...scope },
    limits: settings.limits,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref()),
    connection: () =>
      (connection ??= resolveSlot(
        ctx,
        row,
        cache.compiledFor(row).recipe?.config ?? [],
        row.trigger_application ?? '',
        scope,
      )),
  };
}

/** The URL a webhook trigger registers at its service: the recipe's webhook URL. */
export function webhookUrlOf(ctx: ServiceContext, row: RecipeRow): string {
  return `${ctx.config.publicBaseUrl}/webhooks/rest/${row.webhook_key}/${row.webhook_event ?? 'event'}`;
}

export interface ConnectorWebhookDeps {
  ctx: ServiceContext;
  settings: EngineSettings;
  cache: RecipeCache;
  queue: JobQueue;
  events: EngineEventBus;
}

export type ConnectorWebhookOutcome =
  | { status: 200; jobIds: string[]; reply?: { status: number; body: unknown } }
  | { status: 400; message: string }
  | { status: 429; retryAfterSeconds: number };

/** Tries of a state move that raced another request's. */
const MAX_STATE_TRIES = 20;

/**
 * A request to the webhook URL of a running recipe whose trigger is a connector's webhook trigger:
 * the connector turns it into events; those whose dedup key was not seen become jobs, the keys
 * recorded with them in one transaction (events without keys are admitted as any webhook's).
 */
export async function receiveConnectorWebhook(
  deps: ConnectorWebhookDeps,
  row: RecipeRow,
  def: TriggerDef,
  request: WebhookRequest,
): Promise<ConnectorWebhookOutcome> {
  const { ctx, settings, cache, queue, events } = deps;
  const webhook = def.webhook as WebhookTriggerDef;
  const compiled = cache.compiledFor(row).recipe;
  const input = compiled ? evaluateTriggerInput(settings, compiled.trigger) : newHash();
  let stored = await findTriggerClosure(ctx.db, row.id);
  let answer: WebhookAnswer;
  try {
    answer = await webhook.notification(
      input,
      request,
      readTriggerState(stored?.trigger_closure ?? null).subscription ?? null,
      triggerContext(ctx, settings, cache, row),
    );
  } catch (error) {
    if (error instanceof StepError) return { status: 400, message: error.message.slice(0, 1000) };
    throw error;
  }
  const jobIds: string[] = [];
  const reply = answer.reply ? { reply: answer.reply } : {};
  if (answer.events.length === 0) return { status: 200, jobIds, ...reply };
  if (answer.events.every((e) => typeof e.dedup !== 'string' || e.dedup === '')) {
    for (const { event } of answer.events) {
      const handle = await queue.admit(row, event);
      if (handle === BACKLOG_FULL) return { status: 429, retryAfterSeconds: BACKLOG_RETRY_AFTER_SECONDS };
      if (handle) jobIds.push(handle);
    }
    return { status: 200, jobIds, ...reply };
  }
  for (let tries = 0; tries < MAX_STATE_TRIES; tries++) {
    const previous = stored?.trigger_closure ?? null;
    const state = readTriggerState(previous);
    const seen = [...state.seen];
    const fresh = unseen(answer.events, seen);
    if (fresh.length === 0) return { status: 200, jobIds, ...reply };
    const next = writeTriggerState({ ...state, seen });
    const handles = await ctx.groupCommit.run(async (trx) => {
      if (!(await moveRunningTriggerClosureFrom(trx, row.id, previous, next))) return null;
      const out: string[] = [];
      for (const event of fresh) {
        const job = await queue.storeJob(trx, row, event, {});
        if (job?.queued) out.push(job.handle);
      }
      return out;
    });
    if (handles !== null) {
      queue.backlog.add(row, handles.length);
      for (const handle of handles) events.emit('job.queued', { recipeId: row.id, jobId: handle });
      if (handles.length > 0) queue.kick();
      return { status: 200, jobIds: handles, ...reply };
    }
    stored = await findTriggerClosure(ctx.db, row.id);
    if (stored?.running !== 1) return { status: 200, jobIds, ...reply };
  }
  throw new Error('the trigger state kept changing under this webhook call');
}

/** A call of a webhook URL whose recipe is no webhook recipe: a connector's webhook trigger's, or 404. */
export async function connectorWebhookCall(
  deps: ConnectorWebhookDeps,
  key: string,
  request: WebhookRequest,
): Promise<
  | { status: 200; jobId: string | null; reply?: { status: number; body: unknown } }
  | { status: 400; message: string }
  | { status: 404 }
  | { status: 429; retryAfterSeconds: number }
> {
  const found = await deps.cache.connectorWebhookRecipe(key);
  if (!found) return { status: 404 };
  const outcome = await receiveConnectorWebhook(deps, found.row, found.trigger, request);
  if (outcome.status !== 200) return outcome;
  return { status: 200, jobId: outcome.jobIds[0] ?? null, ...(outcome.reply ? { reply: outcome.reply } : {}) };
}

/**
 * A call of a custom connector's static webhook URL (`webhook_keys`): the connector computes the
 * request's key (in the context of one of the recipes it serves); each started recipe of the
 * connector's workspace whose key, kept in the index when it started (indexStaticWebhook), is that
 * key gets the request as its own webhook call (`webhook_notification`, dedup, a job per event,
 * stored before the answer). Another workspace's recipes are never looked at.
 */
export async function receiveStaticWebhook(
  deps: ConnectorWebhookDeps,
  connectorId: number,
  request: WebhookRequest,
): Promise<
  | { status: 200; jobIds: string[] }
  | { status: 400; message: string }
  | { status: 404 }
  | { status: 429; retryAfterSeconds: number }
> {
  const { ctx, settings, cache } = deps;
  const workspaceId = await findConnectorWorkspace(ctx.db, connectorId);
  if (workspaceId === undefined) return { status: 404 };
  const jobIds: string[] = [];
  // The request's key is the connector's (`webhook_keys`), computed with one recipe it serves.
  const [first] = await listStaticWebhookRecipes(ctx.db, connectorId, workspaceId, null, 1);
  if (!first) return { status: 200, jobIds };
  await cache.prepare(first);
  const hook = connectorTriggerOf(cache, first)?.webhook?.static;
  if (!hook || hook.connectorId !== connectorId) return { status: 200, jobIds };
  let requestKey: string | null;
  try {
    requestKey = await hook.requestKey(request, triggerContext(ctx, settings, cache, first));
  } catch (error) {
    if (error instanceof StepError) return { status: 400, message: error.message.slice(0, 1000) };
    throw error;
  }
  if (requestKey === null) return { status: 200, jobIds };
  for (const row of await listStaticWebhookRecipes(ctx.db, connectorId, workspaceId, requestKey)) {
    await cache.prepare(row);
    const def = connectorTriggerOf(cache, row);
    if (def?.webhook?.static?.connectorId !== connectorId) continue;
    const outcome = await receiveConnectorWebhook(deps, row, def, request);
    if (outcome.status !== 200) return outcome;
    jobIds.push(...outcome.jobIds);
  }
  return { status: 200, jobIds };
}

/**
 * A started recipe whose trigger is a custom connector's static webhook trigger: its `webhook_key`
 * (of its connection and input) is kept in the index, where every node finds it. A key that fails
 * (its connection, its input) or is nil leaves the recipe out of the index (logged): no call
 * reaches it until it starts again. `missingOnly`: only when the recipe has none yet (a node
 * resuming its running recipes).
 */
export async function indexStaticWebhook(
  deps: ConnectorWebhookDeps,
  row: RecipeRow,
  options: { missingOnly?: boolean } = {},
): Promise<void> {
  const { ctx, settings, cache } = deps;
  if (options.missingOnly && row.trigger_application === 'workato_webhooks') return;
  await cache.prepare(row);
  const hook = connectorTriggerOf(cache, row)?.webhook?.static;
  const compiled = cache.compiledFor(row).recipe;
  if (!hook) {
    if (!options.missingOnly) await deleteStaticWebhookKey(ctx.db, row.id);
    return;
  }
  if (options.missingOnly && (await hasStaticWebhookKey(ctx.db, row.id))) return;
  let key: string | null;
  try {
    key = await hook.recipeKey(
      compiled ? evaluateTriggerInput(settings, compiled.trigger) : newHash(),
      triggerContext(ctx, settings, cache, row),
    );
  } catch (error) {
    if (!(error instanceof StepError)) throw error;
    ctx.log.warn({ recipe_id: row.id, error: error.message }, 'a static webhook key failed: the recipe gets no calls');
    key = null;
  }
  if (key === null) {
    await deleteStaticWebhookKey(ctx.db, row.id);
    return;
  }
  await putStaticWebhookKey(ctx.db, {
    recipeId: row.id,
    connectorId: hook.connectorId,
    key,
    createdAt: toStored(ctx.clock.now()),
  });
}

/**
 * A connection changed (its values, a new authorization, a refresh): the started recipes whose
 * static webhook trigger uses it get their key computed again from what is stored now, so a call
 * keyed by the new values reaches them on every node without a restart (and one keyed by the old
 * ones no longer does). Recipes on other connections are left alone.
 */
export async function reindexStaticWebhooksOf(
  deps: ConnectorWebhookDeps,
  connection: { connectionId: number; workspaceId: number; environmentId: number },
): Promise<number> {
  const { ctx, cache } = deps;
  const scope = { workspaceId: connection.workspaceId, environmentId: connection.environmentId };
  const found = await findConnection(ctx.db, scope, connection.connectionId);
  if (!found) return 0;
  let count = 0;
  for (const row of await listStaticWebhookCandidates(ctx.db, scope, found.provider)) {
    await cache.prepare(row);
    if (!connectorTriggerOf(cache, row)?.webhook?.static) continue;
    const config = cache.compiledFor(row).recipe?.config ?? [];
    const slot = await connectionSlot(ctx.db, row, config, row.trigger_application ?? '');
    // A slot whose connection is no longer authorized leaves the index as a failing key does.
    if (slot !== connection.connectionId && !(slot === 'missing' && slotNames(config, row, found.id))) continue;
    await indexStaticWebhook(deps, row);
    count++;
  }
  return count;
}

/** Whether the trigger's slot names this connection by id (a slot that no longer resolves to it). */
function slotNames(config: ConfigEntry[], row: RecipeRow, connectionId: number): boolean {
  return config.some((c) => c.provider === row.trigger_application && c.account_id === connectionId);
}

/** The recipe stopped: its static webhook key leaves the index (calls skip stopped recipes anyway). */
export async function forgetStaticWebhook(ctx: ServiceContext, recipeId: number): Promise<void> {
  await deleteStaticWebhookKey(ctx.db, recipeId);
}

/** Whether the recipe's trigger is a connector's polling or webhook trigger (reset_trigger clears its state). */
export async function keepsTriggerState(cache: RecipeCache, row: RecipeRow): Promise<boolean> {
  await cache.prepare(row);
  return connectorTriggerOf(cache, row) !== undefined;
}

/** The recipe started: a webhook trigger that subscribes does it now; what it returns is kept. */
export async function subscribeWebhook(deps: ConnectorWebhookDeps, row: RecipeRow): Promise<void> {
  const { ctx, settings, cache, queue } = deps;
  await cache.prepare(row);
  const def = connectorTriggerOf(cache, row);
  const compiled = cache.compiledFor(row).recipe;
  if (!def?.webhook?.subscribe || !compiled) return;
  let subscription: unknown;
  try {
    subscription = await def.webhook.subscribe(
      evaluateTriggerInput(settings, compiled.trigger),
      webhookUrlOf(ctx, row),
      triggerContext(ctx, settings, cache, row),
    );
  } catch (error) {
    // The recipe runs on, its trigger error a failed job (is_poll_error) as a failed poll's.
    const type = error instanceof StepError ? error.errorType : 'Trigger error';
    const message = error instanceof Error ? error.message : 'the webhook subscription failed';
    await ctx.groupCommit.run((trx) => queue.storePollError(trx, row, type, message));
    return;
  }
  await changeState(ctx, row.id, (state) => ({ ...state, subscription: subscription ?? null }));
}

/** The recipe stopped: a webhook trigger's subscription is undone (a failure is logged) and forgotten. */
export async function unsubscribeWebhook(deps: ConnectorWebhookDeps, recipeId: number): Promise<void> {
  const { ctx, settings, cache } = deps;
  const row = await findRecipeById(ctx.db, recipeId);
  if (!row) return;
  const state = readTriggerState(row.trigger_closure);
  if (state.subscription === undefined) return;
  // Forgotten first: a reset or a new start after this stop never meets the old subscription.
  await changeState(ctx, recipeId, ({ subscription: _gone, ...rest }) => rest);
  await cache.prepare(row);
  const def = connectorTriggerOf(cache, row);
  const compiled = cache.compiledFor(row).recipe;
  if (def?.webhook?.unsubscribe && compiled) {
    try {
      await def.webhook.unsubscribe(
        evaluateTriggerInput(settings, compiled.trigger),
        state.subscription,
        triggerContext(ctx, settings, cache, row),
      );
    } catch (error) {
      ctx.log.warn(
        { recipe_id: recipeId, error: error instanceof Error ? error.message : String(error) },
        'a webhook trigger could not unsubscribe',
      );
    }
  }
}

async function changeState(ctx: ServiceContext, recipeId: number, change: (s: TriggerState) => TriggerState) {
  for (let tries = 0; tries < MAX_STATE_TRIES; tries++) {
    const previous = (await findTriggerClosure(ctx.db, recipeId))?.trigger_closure ?? null;
    const next = writeTriggerState(change(readTriggerState(previous)));
    if (await replaceTriggerClosure(ctx.db, recipeId, previous, next)) return;
  }
  throw new Error('the trigger state kept changing');
}
