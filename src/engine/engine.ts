// The recipe engine at run time: compiles recipes, keeps the triggers of running recipes alive
// (schedules; webhooks are looked up per call), stores every trigger event as a job before it is
// acknowledged, and runs queued jobs with each recipe's concurrency. The jobs table is the queue:
// a restart loses nothing that was acknowledged.
import { randomUUID } from 'node:crypto';
import type { ServiceContext } from '../context.ts';
import type { Db, JobLineRow, JobRow, RecipeRow } from '../db/types.ts';
import { findConnection } from '../api/connections/connections.store.ts';
import { resolveConnectionCredentials } from '../api/connections/connections.service.ts';
import { listProperties } from '../api/properties/properties.store.ts';
import { findRecipeById, findRecipeByWebhookKey, listRunningRecipeIds, updateRecipe } from '../api/recipes/recipes.store.ts';
import { claimJobs, countJobEnd, finishJob, insertJob, insertLines, interruptedJobs, newJobHandle, recipesWithQueuedJobs, countQueued } from '../api/jobs/jobs.store.ts';
import { compileRecipe, type CompiledRecipe, type CompiledStep, type ErrorDetail, type StepErrors } from './compile.ts';
import { nextFireTime, scheduleOf, DEFAULT_TIME_ZONE, type Schedule } from './connectors/clock.ts';
import { createTopicSubscriptions, resolveTopicId, type EventStreamsRuntime } from './connectors/workato_pub_sub.ts';
import { StepError, type CallOutcome, type ConnectionValues, type EngineLimits, type RecipeRef } from './connectors/types.ts';
import { DocumentError, normaliseConfig, parseJsonField, unwrapCode, type ConfigEntry } from './document.ts';
import { createEventBus, type EngineEventBus } from './events.ts';
import { filterAccepts, runJob, type JobOutcome } from './executor.ts';
import { Budget, DEFAULT_LIMITS, type Limits } from './formula/interpreter.ts';
import { toPlain, fromPlain, isHash, newHash, type Hash, type Value } from './formula/values.ts';
import { evaluateInput } from './inputs.ts';
import { toStored } from '../time.ts';

export interface EngineOptions {
  /** Jobs running at once in this process, all recipes together. */
  workers?: number;
  /** Zone of `now`/`today` in formulas (the vendor's default is US Pacific). */
  timeZone?: string;
  formulaLimits?: Limits;
  limits?: Partial<EngineLimits>;
  /** How often queued jobs are looked for besides the immediate wake-ups (ms). */
  pollMs?: number;
}

export interface Validation {
  codeErrors: StepErrors;
  configErrors: StepErrors;
}

export interface EnqueueMeta {
  isTest?: boolean;
  callingRecipeId?: number;
  callingJobHandle?: string;
  rootRecipeId?: number;
  rootJobHandle?: string;
}

export type WebhookOutcome = { status: 200; jobId: string | null } | { status: 404 };

/** What the gateway gets for a call of a recipe-backed endpoint. */
export type ApiCallOutcome =
  | { kind: 'not_running' }
  | { kind: 'timeout' }
  | { kind: 'done'; status: 'succeeded' | 'failed'; response: { status: number; body: unknown } | null };

export interface RecipeEngine {
  readonly events: EngineEventBus;
  /** Recover interrupted jobs, resume running recipes, start taking jobs. */
  start(): Promise<void>;
  /** Stop taking jobs and wait (up to timeoutMs) for those running. */
  close(timeoutMs?: number): Promise<void>;
  /** Compile and check a recipe as PUT /start does. */
  validate(row: RecipeRow): Promise<Validation>;
  /** A recipe was started: arm its trigger. */
  recipeStarted(recipeId: number): Promise<void>;
  /** A recipe was stopped: disarm its trigger (queued jobs wait for the next start). */
  recipeStopped(recipeId: number): void;
  /** Store one trigger event as a job of a running recipe; resolves once it is stored. */
  enqueue(recipe: RecipeRow, event: Hash, meta?: EnqueueMeta): Promise<string | null>;
  receiveWebhook(key: string, event: Hash): Promise<WebhookOutcome>;
  /** A call of a recipe-backed API endpoint: store it as a job of the recipe and wait for its response. */
  receiveApiRequest(recipeId: number, environmentId: number, event: Hash, timeoutMs: number): Promise<ApiCallOutcome>;
  /** Fire the schedules that are due now (the timer calls it; tests call it with a manual clock). */
  runDueSchedules(): Promise<number>;
  /** Resolves when no job is queued or running (tests). */
  idle(timeoutMs?: number): Promise<void>;
  /** Wake the dispatcher. */
  kick(): void;
  /** The event streams runtime of the app (publish actions use its publisher); set by buildApp. */
  useEventStreams(runtime: EventStreamsRuntime): void;
}

const DEFAULT_ENGINE_LIMITS: EngineLimits = { callTimeoutMs: 90_000, httpTimeoutMs: 30_000, httpMaxResponseBytes: 10 * 1024 * 1024, maxWaitSeconds: 732 * 86400 };

interface ScheduleState {
  schedule: Schedule;
  next: number;
}

export function createEngine(ctx: ServiceContext, options: EngineOptions = {}): RecipeEngine {
  const workers = options.workers ?? 16;
  const timeZone = options.timeZone ?? DEFAULT_TIME_ZONE;
  const formulaLimits = options.formulaLimits ?? DEFAULT_LIMITS;
  const limits: EngineLimits = { ...DEFAULT_ENGINE_LIMITS, ...options.limits };
  const pollMs = options.pollMs ?? 1000;
  const events = createEventBus((error, name) => ctx.log.error({ err: error, event: name }, 'engine event listener failed'));
  const compiled = new Map<number, { key: string; recipe: CompiledRecipe }>();
  const schedules = new Map<number, ScheduleState>();
  const inflight = new Map<number, number>();
  const running = new Set<Promise<void>>();
  // Callers waiting for a job's end (synchronous recipe calls, API requests), by job handle.
  const waiters = new Map<string, (outcome: JobOutcome) => void>();
  // Jobs blocked in a synchronous call do not hold one of the process's worker slots.
  let blocked = 0;
  const shutdown = new AbortController();
  // The server's one group commit: jobs share their commits with every other small write.
  const commits = ctx.groupCommit;
  let eventStreams: EventStreamsRuntime | null = null;
  // Topic triggers: one subscription per running recipe, woken by event_topic.published.
  const subscriptions = createTopicSubscriptions({
    ctx,
    commits,
    storeJob: (trx, row, event) => storeJob(trx, row, event, {}),
    stored(recipeId, handles) {
      for (const handle of handles) events.emit('job.queued', { recipeId, jobId: handle });
      if (handles.length > 0) kick();
    },
  });
  // Running recipes cannot be changed, moved or deleted, so their rows are kept while they run
  // (dropped when they stop); webhook keys of running recipes too.
  const runningRows = new Map<number, RecipeRow>();
  const webhookKeys = new Map<string, number>();
  // Properties by environment and project, dropped on every change (values freeze at job start).
  const propertyCache = new Map<string, Promise<Map<string, string>>>();
  ctx.notifier.subscribe('properties.changed', () => propertyCache.clear());

  async function runningRow(id: number): Promise<RecipeRow | undefined> {
    const cached = runningRows.get(id);
    if (cached) return cached;
    const row = await findRecipeById(ctx.db, id);
    if (row?.running === 1) runningRows.set(id, row);
    return row;
  }

  function forget(recipeId: number): void {
    runningRows.delete(recipeId);
    for (const [key, id] of webhookKeys) if (id === recipeId) webhookKeys.delete(key);
  }
  let total = 0;
  let started = false;
  let closing = false;
  let pumping = false;
  let again = false;
  let pollTimer: NodeJS.Timeout | undefined;
  let scheduleTimer: NodeJS.Timeout | undefined;
  const now = () => ctx.clock.now().getTime();

  function compiledFor(row: RecipeRow): { recipe: CompiledRecipe | null; codeErrors: StepErrors } {
    const key = `${row.version_no}:${row.updated_at}`;
    const cached = compiled.get(row.id);
    if (cached && cached.key === key) return { recipe: cached.recipe, codeErrors: [] };
    let code: unknown;
    let config: ConfigEntry[];
    try {
      code = unwrapCode(parseJsonField(row.code, 'code')).code;
      config = normaliseConfig(row.config, code);
    } catch (error) {
      if (error instanceof DocumentError) return { recipe: null, codeErrors: [[0, [[error.field, null, error.message]]]] };
      throw error;
    }
    const result = compileRecipe(code, config);
    if (result.recipe) {
      if (compiled.size > 5000) compiled.clear();
      compiled.set(row.id, { key, recipe: result.recipe });
    }
    return result;
  }

  async function connectionSlot(row: RecipeRow, config: ConfigEntry[], provider: string): Promise<number | null | 'missing'> {
    const slot = config.find((c) => c.provider === provider);
    if (!slot || slot.account_id === null) return null;
    const scope = { workspaceId: row.workspace_id, environmentId: row.environment_id };
    if (typeof slot.account_id === 'number') {
      const found = await findConnection(ctx.db, scope, slot.account_id);
      return found && found.authorization_status === 'success' ? found.id : 'missing';
    }
    // A reference from an export: the connection of that name and provider in this environment.
    const name = typeof slot.account_id.name === 'string' ? slot.account_id.name : null;
    if (name === null) return 'missing';
    const match = await ctx.db.selectFrom('connections').select(['id', 'authorization_status']).where('workspace_id', '=', row.workspace_id).where('environment_id', '=', row.environment_id).where('name', '=', name).where('provider', '=', provider).executeTakeFirst();
    return match && match.authorization_status === 'success' ? match.id : 'missing';
  }

  async function validate(row: RecipeRow): Promise<Validation> {
    const { recipe, codeErrors } = compiledFor(row);
    if (!recipe) return { codeErrors, configErrors: [] };
    const configErrors: StepErrors = [];
    const stepsByProvider = new Map<string, CompiledStep[]>();
    for (const step of [recipe.trigger, ...recipe.steps.values()]) {
      if (!step.provider || (step.keyword !== 'trigger' && step.keyword !== 'action')) continue;
      const list = stepsByProvider.get(step.provider) ?? [];
      if (!list.includes(step)) list.push(step);
      stepsByProvider.set(step.provider, list);
    }
    const extra: StepErrors = [];
    for (const [provider, steps] of stepsByProvider) {
      const first = Math.min(...steps.map((s) => s.number));
      const slot = await connectionSlot(row, recipe.config, provider);
      const entry = recipe.config.find((c) => c.provider === provider);
      const detail: ErrorDetail = ['account_id', typeof entry?.account_id === 'number' ? entry.account_id : null, 'unconnected', { key: 'recipe.validation.config_unconnected' }];
      if (slot === 'missing') configErrors.push([first, [detail]]);
      else if (slot === null && (provider === 'rest' || provider === 'http')) {
        // Without a connection, an HTTP step needs an absolute URL.
        const relative = steps.some((s) => {
          const url = literalAt(s, ['request', 'url']);
          return typeof url === 'string' && url !== '' && !/^https?:\/\//i.test(url) && !url.includes('#{') && !url.startsWith('=');
        });
        if (relative) configErrors.push([first, [detail]]);
      }
    }
    // Calls of recipe functions named literally must name a recipe function of this environment.
    for (const step of recipe.steps.values()) {
      if (step.provider !== 'workato_recipe_function' || (step.name !== 'call_recipe' && step.name !== 'call_recipe_async') || step.input.k !== 'object') continue;
      const entry = step.input.entries.find(([key]) => key === 'flow_id');
      if (!entry) continue;
      let flow: Value;
      try {
        flow = evaluateInput(entry[1], literalEnv());
      } catch {
        continue;
      }
      const target = await resolveFlow(row, flow);
      const label = isHash(flow) && typeof flow.name === 'string' ? flow.name : JSON.stringify(toPlain(flow)).slice(0, 100);
      if (!target) extra.push([step.number, [['Recipe', label, 'does not name a recipe of this environment', 'flow_id']]]);
      else if (target.trigger_application !== 'workato_recipe_function') extra.push([step.number, [['Recipe', label, 'is not a recipe function (its trigger is not workato_recipe_function/execute)', 'flow_id']]]);
    }
    // Trigger inputs are read once when the recipe starts: they must be literal.
    const trigger = recipe.trigger;
    if (trigger.trigger) {
      try {
        const input = evaluateTriggerInput(trigger);
        if (trigger.trigger.kind === 'topic' && input.topic_id !== undefined && input.topic_id !== null && input.topic_id !== '') {
          const topicId = await resolveTopicId(ctx.db, row.environment_id, input.topic_id);
          if (topicId === undefined) extra.push([trigger.number, [['Topic', JSON.stringify(toPlain(input.topic_id)).slice(0, 100), 'does not name an event topic of this environment', 'topic_id']]]);
        }
      } catch (error) {
        extra.push([trigger.number, [['input', null, `trigger input must not use datapills or formulas that fail: ${(error as Error).message}`]]]);
      }
    }
    return { codeErrors: [...codeErrors, ...extra], configErrors };
  }

  function literalEnv() {
    return {
      bindings: new Map<string, Value>(),
      resolvePill: (): Value => {
        throw new StepError('Bad request', 'datapills are not available here');
      },
      lookup: () => null,
      now,
      timeZone,
      budget: new Budget(formulaLimits),
    };
  }

  function evaluateTriggerInput(trigger: CompiledStep): Hash {
    const env = {
      bindings: new Map<string, Value>(),
      resolvePill: () => {
        throw new StepError('Bad request', 'datapills are not available in a trigger');
      },
      lookup: () => null,
      now,
      timeZone,
      budget: new Budget(formulaLimits),
    };
    const value = evaluateInput(trigger.input, env);
    return isHash(value) ? value : newHash();
  }

  async function armSchedule(row: RecipeRow): Promise<void> {
    schedules.delete(row.id);
    subscriptions.disarm(row.id);
    const { recipe } = compiledFor(row);
    if (recipe && recipe.trigger.trigger?.kind === 'topic') return subscriptions.arm(row, evaluateTriggerInput(recipe.trigger));
    if (!recipe || recipe.trigger.trigger?.kind !== 'schedule') return;
    const schedule = scheduleOf(evaluateTriggerInput(recipe.trigger));
    if (Array.isArray(schedule)) return;
    let lastFired: number | null = null;
    if (row.trigger_closure) {
      try {
        const closure = JSON.parse(row.trigger_closure) as { last_fired_at?: string };
        if (typeof closure.last_fired_at === 'string') lastFired = Date.parse(closure.last_fired_at);
      } catch {
        lastFired = null;
      }
    }
    schedules.set(row.id, { schedule, next: nextFireTime(schedule, now(), lastFired) });
    armTimer();
  }

  function armTimer(): void {
    if (scheduleTimer) clearTimeout(scheduleTimer);
    scheduleTimer = undefined;
    if (closing || !started || schedules.size === 0) return;
    const soonest = Math.min(...[...schedules.values()].map((s) => s.next));
    const delay = Math.max(0, Math.min(soonest - now(), 60_000));
    scheduleTimer = setTimeout(() => {
      void runDueSchedules().catch((error: unknown) => ctx.log.error({ err: error }, 'scheduler failed'));
    }, delay);
    scheduleTimer.unref();
  }

  async function runDueSchedules(): Promise<number> {
    let fired = 0;
    const at = now();
    for (const [recipeId, state] of [...schedules.entries()]) {
      if (state.next > at) continue;
      const row = await findRecipeById(ctx.db, recipeId);
      if (!row || row.running !== 1) {
        schedules.delete(recipeId);
        continue;
      }
      const firedAt = state.next;
      const event = newHash([['scheduled_time', new Date(firedAt).toISOString()], ['timezone', state.schedule.zone]]);
      const stored = await ctx.db.transaction().execute(async (trx) => {
        const job = await storeJob(trx, row, event, {});
        await updateRecipe(trx, row.id, { trigger_closure: JSON.stringify({ last_fired_at: new Date(firedAt).toISOString() }) });
        return job;
      });
      if (stored?.queued) events.emit('job.queued', { recipeId: row.id, jobId: stored.handle });
      fired++;
      state.next = nextFireTime(state.schedule, Math.max(at, firedAt) + 1, firedAt);
    }
    if (fired > 0) kick();
    armTimer();
    return fired;
  }

  function titleOf(recipe: CompiledRecipe, event: Hash): string {
    const trigger = recipe.trigger;
    const base = `${trigger.connector?.title ?? trigger.provider ?? 'Trigger'}: ${trigger.trigger?.title ?? trigger.name ?? 'event'}`;
    const fields = trigger.trigger?.titleFields?.(event) ?? [];
    const text = fields.length > 0 ? `${base}: ${fields.map(([k, v]) => `${k}=${v}`).join(', ')}` : base;
    return text.slice(0, 1000);
  }

  /** Insert a queued job (inside the caller's transaction when given one). */
  async function storeJob(db: Db, row: RecipeRow, event: Hash, meta: EnqueueMeta, handle: string = newJobHandle()): Promise<{ handle: string; queued: boolean } | null> {
    const { recipe } = compiledFor(row);
    const stamp = toStored(ctx.clock.now());
    const base = {
      recipe_id: row.id, handle, trigger_output: JSON.stringify(toPlain(event)), is_repeat: 0 as const, is_test: meta.isTest ? 1 as const : 0 as const,
      master_job_handle: null, calling_recipe_id: meta.callingRecipeId ?? null, calling_job_handle: meta.callingJobHandle ?? null,
      root_recipe_id: meta.rootRecipeId ?? null, root_job_handle: meta.rootJobHandle ?? null, task_count: 0, created_at: stamp, started_at: stamp,
    };
    if (!recipe) {
      await insertJob(db, { ...base, status: 'failed', title: 'Trigger error: the recipe does not compile', error: 'Trigger error: the recipe does not compile', error_parts: null, is_poll_error: 1, completed_at: stamp });
      return { handle, queued: false };
    }
    // The trigger filter: an event it rejects makes no job (20 §4.3).
    if (recipe.trigger.condition) {
      const verdict = filterAccepts(recipe, outputOf(recipe, event), { now, timeZone, formulaLimits });
      if (verdict === false) return null;
      if (verdict !== true) {
        const error = `Trigger error: ${verdict.error}`;
        await insertJob(db, {
          ...base, status: 'failed', title: error.slice(0, 1000), error,
          error_parts: JSON.stringify({ adapter: recipe.trigger.provider, error_type: 'Trigger error', message: verdict.error, error_id: randomUUID(), error_at: stamp, input: '<redacted>', inner_message: null }),
          is_poll_error: 1, completed_at: stamp,
        });
        await db.updateTable('recipes').set((eb) => ({ job_failed_count: eb('job_failed_count', '+', 1) })).where('id', '=', row.id).execute();
        return { handle, queued: false };
      }
    }
    await insertJob(db, { ...base, status: 'queued', title: titleOf(recipe, event), error: null, error_parts: null, is_poll_error: 0, completed_at: null });
    return { handle, queued: true };
  }

  /** Store a job through the group commit; resolves once it is committed. */
  async function commitJob(row: RecipeRow, event: Hash, meta: EnqueueMeta, handle?: string): Promise<string | null> {
    const stored = await commits.run((trx) => storeJob(trx, row, event, meta, handle));
    if (stored === null) return null;
    if (stored.queued) events.emit('job.queued', { recipeId: row.id, jobId: stored.handle });
    return stored.handle;
  }

  function outputOf(recipe: CompiledRecipe, event: Hash): Value {
    return recipe.trigger.trigger ? recipe.trigger.trigger.output(event) : event;
  }

  async function enqueue(row: RecipeRow, event: Hash, meta: EnqueueMeta = {}): Promise<string | null> {
    const handle = await commitJob(row, event, meta);
    kick();
    return handle;
  }

  async function receiveWebhook(key: string, event: Hash): Promise<WebhookOutcome> {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(key)) return { status: 404 };
    const knownId = webhookKeys.get(key);
    const row = knownId !== undefined ? await runningRow(knownId) : await findRecipeByWebhookKey(ctx.db, key);
    if (!row || row.running !== 1 || row.trigger_application !== 'workato_webhooks') return { status: 404 };
    if (knownId === undefined) {
      webhookKeys.set(key, row.id);
      runningRows.set(row.id, row);
    }
    return { status: 200, jobId: await enqueue(row, event) };
  }

  function kick(): void {
    if (!started || closing) return;
    setImmediate(() => {
      void pump().catch((error: unknown) => ctx.log.error({ err: error }, 'job dispatcher failed'));
    });
  }

  async function pump(): Promise<void> {
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      do {
        again = false;
        await pumpOnce();
      } while (again && !closing);
    } finally {
      pumping = false;
    }
  }

  async function pumpOnce(): Promise<void> {
    if (closing || total - blocked >= workers) return;
    const candidates = await recipesWithQueuedJobs(ctx.db);
    for (const { recipe_id: recipeId, concurrency } of candidates) {
      const free = Math.min(Math.max(1, concurrency) - (inflight.get(recipeId) ?? 0), workers - (total - blocked));
      if (free <= 0) continue;
      // Through the group commit: a claim shares its commit (its sync) with the writes around it.
      const claimed = await commits.run((trx) => claimJobs(trx, recipeId, free, toStored(ctx.clock.now())));
      for (const job of claimed) launch(job);
      if (total - blocked >= workers) return;
    }
  }

  /** Store a job and wait for its end (or the timeout; the job itself goes on). */
  async function submitAndWait(row: RecipeRow, event: Hash, meta: EnqueueMeta, timeoutMs: number): Promise<{ handle: string; outcome: JobOutcome | null }> {
    let settle: (outcome: JobOutcome | null) => void = () => undefined;
    const done = new Promise<JobOutcome | null>((resolve) => { settle = resolve; });
    // The waiter is in place before the job exists, so no end can slip past it.
    const planned = newJobHandle();
    waiters.set(planned, (outcome) => settle(outcome));
    let handle: string | null;
    try {
      handle = await commitJob(row, event, meta, planned);
    } catch (error) {
      waiters.delete(planned);
      throw error;
    }
    if (handle === null) {
      waiters.delete(planned);
      return { handle: '', outcome: null };
    }
    kick();
    const timer = setTimeout(() => settle(null), timeoutMs);
    timer.unref();
    const outcome = await done;
    clearTimeout(timer);
    waiters.delete(handle);
    return { handle, outcome };
  }

  /** The recipe a `flow_id` names, in the caller's environment: an id, or a {name, folder} reference. */
  async function resolveFlow(caller: Pick<RecipeRow, 'environment_id'>, flow: Value): Promise<RecipeRow | undefined> {
    const base = ctx.db.selectFrom('recipes').selectAll().where('environment_id', '=', caller.environment_id);
    if (typeof flow === 'number' || (typeof flow === 'string' && /^\d{1,15}$/.test(flow))) return base.where('id', '=', Number(flow)).executeTakeFirst();
    if (!isHash(flow)) return undefined;
    const name = flow.name;
    if (typeof name !== 'string' || name === '') return undefined;
    const candidates = await base.where('name', '=', name).orderBy('id').execute();
    if (candidates.length <= 1) return candidates[0];
    const folderName = typeof flow.folder === 'string' ? flow.folder : null;
    if (folderName === null) return candidates[0];
    const folders = await ctx.db.selectFrom('folders').select(['id', 'name']).where('id', 'in', candidates.map((c) => c.folder_id)).execute();
    const match = candidates.find((c) => folders.find((f) => f.id === c.folder_id)?.name === folderName);
    return match ?? candidates[0];
  }

  async function callRecipe(caller: RecipeRow, job: JobRow, flow: Value, parameters: Value, wait: boolean): Promise<CallOutcome> {
    const target = await resolveFlow(caller, flow);
    if (!target) throw new StepError('Bad request', `the recipe function ${JSON.stringify(toPlain(flow)).slice(0, 120)} does not exist in this environment`);
    if (target.trigger_application !== 'workato_recipe_function') throw new StepError('Bad request', `recipe ${target.id} is not a recipe function`);
    if (target.running !== 1) throw new StepError('Bad request', `the recipe function "${target.name}" is not running`);
    const event = newHash([['parameters', isHash(parameters) ? parameters : newHash()], ['calling_job_id', job.handle], ['calling_recipe_id', caller.id]]);
    const meta: EnqueueMeta = { callingRecipeId: caller.id, callingJobHandle: job.handle, rootRecipeId: job.root_recipe_id ?? caller.id, rootJobHandle: job.root_job_handle ?? job.handle };
    if (!wait) {
      const handle = await enqueue(target, event, meta);
      return { recipeId: target.id, jobId: handle ?? '', result: null };
    }
    blocked++;
    kick();
    try {
      const { handle, outcome } = await submitAndWait(target, event, meta, limits.callTimeoutMs);
      if (outcome === null) throw new StepError('Timeout', `the recipe function "${target.name}" did not finish within ${limits.callTimeoutMs} ms`);
      if (outcome.status === 'failed') throw new StepError('Recipe function error', `the recipe function "${target.name}" failed: ${outcome.error ?? 'unknown error'}`);
      return { recipeId: target.id, jobId: handle, result: outcome.end?.kind === 'result' ? outcome.end.value : null };
    } finally {
      blocked--;
    }
  }

  async function receiveApiRequest(recipeId: number, environmentId: number, event: Hash, timeoutMs: number): Promise<ApiCallOutcome> {
    const row = await findRecipeById(ctx.db, recipeId);
    if (!row || row.environment_id !== environmentId || row.running !== 1 || row.trigger_application !== 'workato_api_platform') return { kind: 'not_running' };
    const { outcome } = await submitAndWait(row, event, {}, timeoutMs);
    if (outcome === null) return { kind: 'timeout' };
    const end = outcome.end;
    if (end?.kind === 'response' && isHash(end.value)) {
      const status = Number(end.value.http_status_code ?? 200);
      return { kind: 'done', status: outcome.status, response: { status: Number.isInteger(status) ? status : 200, body: toPlain(end.value.response ?? null) } };
    }
    return { kind: 'done', status: outcome.status, response: null };
  }

  function launch(job: JobRow): void {
    total++;
    inflight.set(job.recipe_id, (inflight.get(job.recipe_id) ?? 0) + 1);
    const task = execute(job)
      .catch((error: unknown) => ctx.log.error({ err: error, job_id: job.handle }, 'job could not be recorded'))
      .finally(() => {
        total--;
        const n = (inflight.get(job.recipe_id) ?? 1) - 1;
        if (n <= 0) inflight.delete(job.recipe_id);
        else inflight.set(job.recipe_id, n);
        running.delete(task);
        kick();
      });
    running.add(task);
  }

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      if (shutdown.signal.aborted) return reject(new StepError('Interrupted', 'the server is shutting down'));
      const timer = setTimeout(() => {
        shutdown.signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(new StepError('Interrupted', 'the server is shutting down'));
      };
      shutdown.signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  async function execute(job: JobRow): Promise<void> {
    const startedAt = Date.parse(job.started_at);
    events.emit('job.started', { recipeId: job.recipe_id, jobId: job.handle });
    const row = await runningRow(job.recipe_id);
    let outcome: JobOutcome;
    if (!row) return;
    const { recipe } = compiledFor(row);
    if (!recipe) {
      outcome = failedOutcome('Recipe error', 'the recipe does not compile any more');
    } else {
      let triggerOutput: Value;
      try {
        triggerOutput = outputOf(recipe, fromPlain(JSON.parse(job.trigger_output)) as Hash);
      } catch {
        triggerOutput = null;
      }
      const scope = { workspaceId: row.workspace_id, environmentId: row.environment_id };
      const connections = new Map<string, Promise<ConnectionValues | null>>();
      const ref: RecipeRef = { id: row.id, name: row.name, ...scope };
      outcome = await runJob({
        ctx,
        recipe: ref,
        compiled: recipe,
        handle: job.handle,
        triggerOutput,
        jobContext: newHash([
          ['job_id', job.handle], ['job_url', `${ctx.config.publicBaseUrl}/api/recipes/${row.id}/jobs/${job.handle}`], ['recipe_id', row.id],
          ['recipe_name', row.name], ['recipe_url', `${ctx.config.publicBaseUrl}/api/recipes/${row.id}`], ['job_created_at', job.created_at],
          ['user_id', row.workspace_id], ['is_test', job.is_test === 1], ['is_repeat', job.is_repeat === 1], ['repeat_count', 0],
          ['root_recipe_id', job.root_recipe_id ?? row.id], ['root_job_id', job.root_job_handle ?? job.handle],
          ['calling_recipe_id', job.calling_recipe_id], ['calling_job_id', job.calling_job_handle],
        ]),
        properties: await propertiesOf(row),
        timeZone,
        formulaLimits,
        limits,
        connectionFor: (provider) => {
          let pending = connections.get(provider);
          if (!pending) {
            pending = resolveSlot(row, recipe.config, provider, scope);
            connections.set(provider, pending);
          }
          return pending;
        },
        sleep,
        now,
        callRecipe: (flow, parameters, wait) => callRecipe(row, job, flow, parameters, wait),
        eventStreams,
      });
    }
    try {
      await record(job, row, outcome);
    } finally {
      const waiter = waiters.get(job.handle);
      waiters.delete(job.handle);
      waiter?.(outcome);
    }
    const durationMs = Math.max(0, now() - startedAt);
    if (outcome.status === 'succeeded') events.emit('job.succeeded', { recipeId: job.recipe_id, jobId: job.handle, durationMs });
    else events.emit('job.failed', { recipeId: job.recipe_id, jobId: job.handle, durationMs, error: outcome.error ?? '', interrupted: false });
  }

  async function resolveSlot(row: RecipeRow, config: ConfigEntry[], provider: string, scope: { workspaceId: number; environmentId: number }): Promise<ConnectionValues | null> {
    const id = await connectionSlot(row, config, provider);
    if (id === null) return null;
    if (id === 'missing') throw new StepError('Connection error', `the ${provider} connection of this recipe is missing or not authorized`);
    try {
      const credentials = await resolveConnectionCredentials(ctx, scope, id);
      return { id, provider: credentials.provider, values: credentials.values, ...(credentials.rest ? { rest: credentials.rest } : {}) };
    } catch (error) {
      throw new StepError('Connection error', `the ${provider} connection cannot be used: ${(error as Error).name === 'AppError' ? 'not found' : (error as Error).message}`);
    }
  }

  function propertiesOf(row: RecipeRow): Promise<Map<string, string>> {
    const key = `${row.environment_id}:${row.folder_id}`;
    let cached = propertyCache.get(key);
    if (!cached) {
      cached = readProperties(row);
      propertyCache.set(key, cached);
      cached.catch(() => propertyCache.delete(key));
    }
    return cached;
  }

  async function readProperties(row: RecipeRow): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const p of await listProperties(ctx.db, { workspaceId: row.workspace_id, environmentId: row.environment_id, projectId: null })) out.set(p.name, p.value);
    const folder = await ctx.db.selectFrom('folders').select('project_id').where('id', '=', row.folder_id).executeTakeFirst();
    if (folder?.project_id) {
      for (const p of await listProperties(ctx.db, { workspaceId: row.workspace_id, environmentId: row.environment_id, projectId: folder.project_id })) out.set(p.name, p.value);
    }
    return out;
  }

  // The lines of a job mostly start and end within the same few milliseconds: each distinct
  // millisecond is formatted once.
  let lastMs = Number.NaN;
  let lastIso = '';
  function isoAt(ms: number): string {
    if (ms !== lastMs) {
      lastMs = ms;
      lastIso = new Date(ms).toISOString();
    }
    return lastIso;
  }

  function failedOutcome(type: string, message: string): JobOutcome {
    return {
      status: 'failed', error: `${type}: ${message}`, lines: [], linesDropped: 0, taskCount: 0, end: null,
      errorParts: { adapter: 'workato', error_type: type, message, error_at: new Date(now()).toISOString(), input: '<redacted>', inner_message: null },
    };
  }

  async function record(job: JobRow, row: RecipeRow, outcome: JobOutcome): Promise<void> {
    const completed = toStored(ctx.clock.now());
    const lines: JobLineRow[] = outcome.lines.map((line, seq) => ({
      job_id: job.id, seq, recipe_line_number: line.recipe_line_number, adapter_name: line.adapter_name.slice(0, 100), adapter_operation: line.adapter_operation.slice(0, 100),
      pass: line.pass, input: line.input, output: line.output, error: line.error, mask_data: line.mask_data ? 1 : 0,
      started_at: isoAt(line.started_at), completed_at: isoAt(line.completed_at),
    }));
    await commits.run(async (trx) => {
      await insertLines(trx, lines);
      await finishJob(trx, job.id, {
        status: outcome.status,
        error: outcome.error,
        error_parts: outcome.errorParts ? JSON.stringify({ ...outcome.errorParts, error_id: randomUUID() }) : null,
        completed_at: completed,
        task_count: outcome.taskCount,
      });
      await countJobEnd(trx, row.id, outcome.status === 'succeeded', outcome.taskCount, job.started_at);
    });
  }

  async function recover(): Promise<void> {
    const interrupted = await interruptedJobs(ctx.db);
    if (interrupted.length === 0) return;
    const stamp = toStored(ctx.clock.now());
    const message = 'the server stopped while this job was running; it was not run again because its steps may already have had effects';
    await ctx.db.transaction().execute(async (trx) => {
      for (const job of interrupted) {
        await finishJob(trx, job.id, {
          status: 'failed',
          error: `Interrupted: ${message}`,
          error_parts: JSON.stringify({ adapter: 'workato', error_type: 'Interrupted', message, error_id: randomUUID(), error_at: stamp, input: '<redacted>', inner_message: null }),
          completed_at: stamp,
          task_count: 0,
        });
        await trx.updateTable('recipes').set((eb) => ({ job_failed_count: eb('job_failed_count', '+', 1) })).where('id', '=', job.recipe_id).execute();
      }
    });
    ctx.log.warn({ jobs: interrupted.length }, 'marked jobs interrupted by the last shutdown as failed');
    for (const job of interrupted) {
      const handle = await ctx.db.selectFrom('jobs').select('handle').where('id', '=', job.id).executeTakeFirst();
      events.emit('job.failed', { recipeId: job.recipe_id, jobId: handle?.handle ?? '', durationMs: 0, error: `Interrupted: ${message}`, interrupted: true });
    }
  }

  return {
    events,
    async start() {
      if (started) return;
      await recover();
      started = true;
      for (const id of await listRunningRecipeIds(ctx.db)) {
        const row = await findRecipeById(ctx.db, id);
        if (row) await armSchedule(row).catch((error: unknown) => ctx.log.error({ err: error, recipe_id: id }, 'could not resume the trigger of a running recipe'));
      }
      pollTimer = setInterval(() => kick(), pollMs);
      pollTimer.unref();
      kick();
    },
    async close(timeoutMs = 10_000) {
      closing = true;
      await subscriptions.close();
      if (pollTimer) clearInterval(pollTimer);
      if (scheduleTimer) clearTimeout(scheduleTimer);
      // Until no job runs (a job launched while the first ones ended is waited for too).
      let timedOut = false;
      const timeout = new Promise<void>((resolve) => setTimeout(() => { timedOut = true; resolve(); }, timeoutMs).unref());
      while (running.size > 0 && !timedOut) await Promise.race([Promise.allSettled([...running]), timeout]);
      shutdown.abort();
      await Promise.race([Promise.allSettled([...running]), new Promise<void>((resolve) => setTimeout(resolve, 1000).unref())]);
    },
    validate,
    async recipeStarted(recipeId) {
      forget(recipeId);
      const row = await findRecipeById(ctx.db, recipeId);
      if (!row) return;
      await armSchedule(row);
      events.emit('recipe.started', { recipeId });
      kick();
    },
    recipeStopped(recipeId) {
      forget(recipeId);
      subscriptions.disarm(recipeId);
      schedules.delete(recipeId);
      armTimer();
      events.emit('recipe.stopped', { recipeId });
    },
    enqueue,
    receiveWebhook,
    receiveApiRequest,
    runDueSchedules,
    async idle(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (!subscriptions.busy() && (await countQueued(ctx.db)) === 0 && total === 0 && !subscriptions.busy()) return;
        if (Date.now() > deadline) throw new Error('the engine did not become idle in time');
        kick();
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    kick,
    useEventStreams(runtime) {
      eventStreams = runtime;
    },
  };
}

function literalAt(step: CompiledStep, path: string[]): unknown {
  let c = step.input;
  for (const key of path) {
    if (c.k !== 'object') return undefined;
    const entry = c.entries.find(([k]) => k === key);
    if (!entry) return undefined;
    c = entry[1];
  }
  if (c.k === 'literal') return c.v;
  if (c.k === 'template') return '#{';
  if (c.k === 'formula') return '=';
  return undefined;
}
