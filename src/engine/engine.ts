// The recipe engine at run time: compiles recipes, keeps the triggers of running recipes alive
// (schedules; webhooks are looked up per call), stores every trigger event as a job before it is
// acknowledged, and runs queued jobs with each recipe's concurrency. The jobs table is the queue:
// a restart loses nothing that was acknowledged. This file wires the modules of the engine
// (README.md lists them) and is its public interface.
import type { ServiceContext } from '../context.ts';
import type { JobRow, RecipeRow } from '../db/types.ts';
import { countQueued } from '../api/jobs/queue.store.ts';
import type { JobOutcome, TestMode } from '../recipe/job-outcome.ts';
import { createTopicSubscriptions, type EventStreamsRuntime } from './connectors/workato_pub_sub.ts';
import { createEventBus, type EngineEventBus } from './events.ts';
import { createDataTableTriggers } from './data-table-triggers.ts';
import type { RecordListener } from '../api/data_tables/data_tables.service.ts';
import { fromPlain, hashGet, isHash, type Hash } from '../recipe/formula/values.ts';
import { BACKLOG_RETRY_AFTER_SECONDS } from './backlog.ts';
import { JobControl } from './job-control.ts';
import { BACKLOG_FULL, JobQueue, type EnqueueMeta, type Lifecycle } from './queue.ts';
import { RecipeCache } from './recipe-cache.ts';
import {
  callRecipe,
  receiveApiRequest,
  receiveAppFunctionCall,
  waitForCalledJobs,
  type ApiCallOutcome,
  type AppFunctionOutcome,
  type RecipeCallDeps,
  receiveSkillCall,
  type SkillCallOutcome,
} from './recipe-calls.ts';
import { recoverInterruptedJobs, startJobHeartbeat } from './recovery.ts';
import { requestProblems, requestSchemaOf } from './request-validation.ts';
import { JobRunner } from './run-job.ts';
import { createJsSandbox } from './sandbox/js-sandbox.ts';
import { createPySandbox, installedPythonSnapshotFile, pythonSnapshotFile } from './sandbox/py-sandbox.ts';
import { createRubyCodeRunner } from './sandbox/ruby-code.ts';
import { Schedules } from './schedules.ts';
import { Polls } from './polls.ts';
import { engineSettings, type EngineOptions } from './settings.ts';
import type { EngineLimits, WebhookRequest } from './connectors/types.ts';
import {
  connectorWebhookCall,
  keepsTriggerState,
  receiveStaticWebhook,
  type ConnectorWebhookDeps,
} from './connector-triggers.ts';
import type { JsSandbox } from './sandbox/js-sandbox.ts';
import type { PySandbox } from './sandbox/py-sandbox.ts';
import type { RubyCodeRunner } from './sandbox/ruby-code.ts';

/** The engine's sandboxes, as it starts and closes them (steps see them as connectors' CodeSandboxes). */
interface EngineSandboxes {
  js: JsSandbox;
  py: PySandbox;
  ruby: RubyCodeRunner;
  images: ImageThreads;
}
import { createImageThreads, type ImageThreads } from './connectors/images/image-threads.ts';
import { TriggerArming } from './triggers.ts';
import { evaluateTriggerInput, validateRecipe, type Validation } from './validate.ts';
import { createTurns } from './turns.ts';

export type { ApiCallOutcome, EngineOptions, EnqueueMeta, SkillCallOutcome, Validation };

export type WebhookOutcome =
  | { status: 200; jobId: string | null; reply?: { status: number; body: unknown } }
  | { status: 400; message: string }
  | { status: 404 }
  | { status: 429; retryAfterSeconds: number };

export interface RecipeEngine {
  readonly events: EngineEventBus;
  /**
   * Recover interrupted jobs and start taking jobs; the triggers of the running recipes are armed
   * in the background (`armed` resolves when they are), so a server answers at once whatever the
   * number of recipes. Webhooks are served meanwhile: they need no arming.
   */
  start(): Promise<void>;
  /** Resolves once the triggers of the recipes running at start are armed. */
  armed(): Promise<void>;
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
  /**
   * A call of a recipe's webhook URL: a job of a webhook recipe (`event`), or the events a
   * connector's webhook trigger makes of `request` (connector-triggers.ts).
   */
  receiveWebhook(key: string, event: Hash, request?: WebhookRequest): Promise<WebhookOutcome>;
  /**
   * Whether a webhook of this key would be refused now: its recipe, known to this node, has a full
   * backlog (its own or its workspace's). No query: an unknown key is left to receiveWebhook.
   */
  refusesWebhook(key: string): boolean;
  /** A call of a custom connector's static webhook URL: a job per event of each recipe whose key matches. */
  receiveStaticWebhook(connectorId: number, request: WebhookRequest): ReturnType<typeof receiveStaticWebhook>;
  /** A call of a recipe-backed API endpoint: store it as a job of the recipe and wait for its response. */
  /** With `validate`, the call's fields are first checked against the trigger's request schema (validate_request). */
  receiveApiRequest(
    recipeId: number,
    environmentId: number,
    event: Hash,
    timeoutMs: number,
    options?: { validate?: boolean },
  ): Promise<ApiCallOutcome>;
  /** Run an app function recipe for a page's component and wait for what it returns (Workflow apps API). */
  callAppFunction(recipeId: number, environmentId: number, event: Record<string, unknown>): Promise<AppFunctionOutcome>;
  /** An MCP client's call of a skill recipe: store it as a job of the recipe and wait for its result. */
  receiveSkillCall(recipeId: number, environmentId: number, event: Hash, timeoutMs: number): Promise<SkillCallOutcome>;
  /** Whether the recipe's trigger is a connector's polling or webhook trigger (its state is reset by reset_trigger). */
  keepsTriggerState(row: RecipeRow): Promise<boolean>;
  /** Fire the schedules that are due now (the timer calls it; tests call it with a manual clock). */
  runDueSchedules(): Promise<number>;
  /** Resolves when no job is queued or running (tests). */
  idle(timeoutMs?: number): Promise<void>;
  /** Wake the dispatcher. */
  kick(): void;
  /** The event streams runtime of the app (publish actions use its publisher); set by buildApp. */
  useEventStreams(runtime: EventStreamsRuntime): void;
  /**
   * Run a test case's job of a recipe (running or not) at once, off the queue: the trigger output
   * as given, the mocks in place of their steps. Recorded as a job with is_test (not counted in the
   * recipe's figures). Resolves with its handle and outcome once recorded.
   */
  runTestJob(row: RecipeRow, triggerOutput: unknown, mode: TestMode): Promise<{ handle: string; outcome: JobOutcome }>;
  /** Fire a running recipe's scheduled trigger now (poll_now); false when its trigger is not a schedule. */
  pollNow(recipeId: number): Promise<boolean>;
  /** Run a finished job again: a new job of the same trigger event, is_repeat, with the original's handle. */
  repeatJob(row: RecipeRow, original: JobRow): Promise<string | null>;
  /** Cancel a pending job: a queued one (or one waiting for a workflow task) at once; a running one before its next step. */
  cancelJob(row: RecipeRow, job: JobRow): Promise<'canceled' | 'canceling' | 'not_pending'>;
  /** A workflow task ended and its job was queued again: count it and wake the dispatcher. */
  taskEnded(recipeId: number): void;
  /** End the open workflow tasks whose time is up (expired); their jobs go on. The engine's timer calls it. */
  expireDueTasks(): Promise<number>;
  /** Told of data table records written (by the API or by steps): starts the real-time data table triggers. */
  readonly dataTableListener: RecordListener;
}

/** Until no job is queued or running and no trigger is busy storing one. */
async function waitIdle(
  ctx: ServiceContext,
  queue: JobQueue,
  triggers: ReadonlyArray<{ busy(): boolean }>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const busy = () => triggers.some((t) => t.busy());
  for (;;) {
    // The triggers asked again after the count: a topic subscription may have woken meanwhile.
    const quiet = !busy() && (await countQueued(ctx.db)) === 0;
    if (quiet && queue.total === 0 && !busy()) return;
    if (Date.now() > deadline) throw new Error('the engine did not become idle in time');
    queue.kick();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export function createEngine(ctx: ServiceContext, options: EngineOptions = {}): RecipeEngine {
  const settings = engineSettings(ctx, options);
  const events = createEventBus((error, name) =>
    ctx.log.error({ err: error, event: name }, 'engine event listener failed'),
  );
  const lifecycle: Lifecycle = { started: false, closing: false };
  const shutdown = new AbortController();
  const cache = new RecipeCache(ctx);
  const sandboxes = createSandboxes(ctx, settings.limits);
  // The queue launches jobs that the runner runs; a job's recipe calls go back to the queue.
  const queue = new JobQueue({
    ctx,
    settings,
    cache,
    events,
    lifecycle,
    run: (job, successor) => runner.runQueued(job, successor),
  });
  const control: JobControl = new JobControl({
    ctx,
    settings,
    queue,
    lifecycle,
    runTest: (job, test) => runner.run(job, test),
  });
  // Jobs stored by a trigger inside its own transaction (data tables, topics): counted and dispatched.
  const stored = (row: RecipeRow, handles: string[]) => {
    queue.backlog.add(row, handles.length);
    for (const handle of handles) events.emit('job.queued', { recipeId: row.id, jobId: handle });
    if (handles.length > 0) queue.kick();
  };
  // Real-time data table triggers: jobs stored in the transaction of the record write.
  const dataTables = createDataTableTriggers({
    ctx,
    storeJob: (trx, row, event) => queue.storeJob(trx, row, event, {}),
    stored,
  });
  const calls: RecipeCallDeps = { db: ctx.db, queue, limits: settings.limits };
  const runner: JobRunner = new JobRunner({
    ctx,
    turns: createTurns(settings.jobSliceMs),
    settings,
    cache,
    events,
    shutdown: shutdown.signal,
    callRecipe: (caller, job, flow, parameters, wait) => callRecipe(calls, caller, job, flow, parameters, wait),
    waitForCalls: (job, timeoutMs, sleep) => waitForCalledJobs(calls, job, timeoutMs, sleep),
    settle: (job, outcome) => {
      control.ended(job.handle);
      queue.settle(job.handle, outcome, job.awaited === 1);
    },
    isCanceled: (handle) => control.isCanceled(handle),
    sandboxes,
    dataTables,
  });
  // cancel_jobs may reach any node: the one running the job ends it before its next step.
  const offCancel = ctx.notifier.subscribe('job.cancel_requested', ({ handle }) => {
    if (runner.running.has(handle)) control.cancelRequested(handle);
  });
  const schedules = new Schedules({ ctx, settings, events, queue, lifecycle });
  // Polling triggers: one timer per running recipe, the cursor in its trigger_closure.
  const polls = new Polls({ ctx, settings, cache, events, queue, lifecycle });
  // Topic triggers: one subscription per running recipe, woken by event_topic.published.
  const subscriptions = createTopicSubscriptions({
    ctx,
    commits: ctx.groupCommit,
    storeJob: (trx, row, event) => queue.storeJob(trx, row, event, {}),
    stored,
  });
  const triggers = new TriggerArming({
    ctx,
    settings,
    events,
    cache,
    queue,
    lifecycle,
    schedules,
    polls,
    subscriptions,
    dataTables,
    python: sandboxes.py,
    ruby: sandboxes.ruby,
  });
  let stopHeartbeat: () => Promise<void> = () => Promise.resolve();
  const hooks = { ctx, settings, cache, queue, events };
  return {
    events,
    dataTableListener: dataTables,
    async start() {
      if (lifecycle.started) return;
      await recoverInterruptedJobs(ctx, events);
      await queue.rebuildBacklog();
      lifecycle.started = true;
      // Several nodes: claims renewed, dead nodes' jobs failed, and the backlog counts re-read
      // from the database (other nodes store and end jobs of the same recipes).
      stopHeartbeat = startJobHeartbeat(
        ctx,
        events,
        settings.leaseMs,
        () => queue.kick(),
        () => queue.rebuildBacklog(),
      );
      void triggers.startResuming(options.armAfter);
      queue.startPolling();
      control.startExpiryTimer();
      queue.kick();
    },
    async close(timeoutMs = 10_000) {
      lifecycle.closing = true;
      // Arming at start ends at its next recipe once closing.
      await triggers.resumed();
      triggers.close();
      await triggers.settled();
      offCancel();
      await subscriptions.close();
      await polls.close();
      queue.stopPolling();
      control.stopExpiryTimer();
      schedules.clearTimer();
      await drain(queue, shutdown, timeoutMs);
      // Only now: until their ends are recorded, this node's running jobs keep their claims
      // renewed, so another node does not take them for a dead node's and fail them Interrupted.
      await stopHeartbeat();
      await Promise.all([sandboxes.js.close(), sandboxes.py.close(), sandboxes.ruby.close(), sandboxes.images.close()]);
    },
    armed: () => triggers.resumed(),
    validate: (row) => validateRecipe({ db: ctx.db, cache, formulas: settings }, row),
    recipeStarted: (recipeId) => triggers.started(recipeId),
    recipeStopped: (recipeId) => triggers.stopped(recipeId),
    enqueue: (row, event, meta) => queue.enqueue(row, event, meta),
    receiveWebhook: (key, event, request) => receiveWebhook(hooks, key, event, request),
    refusesWebhook(key) {
      const row = cache.knownWebhookRecipe(key);
      return row !== undefined && !queue.backlog.hasRoom(row);
    },
    receiveStaticWebhook: (connectorId, request) => receiveStaticWebhook(hooks, connectorId, request),
    receiveApiRequest: (recipeId, environmentId, event, timeoutMs, options) =>
      validatedApiRequest({ cache, settings, calls }, recipeId, environmentId, event, timeoutMs, options),
    callAppFunction: (recipeId, environmentId, event) =>
      appFunctionCall({ cache, calls, timeoutMs: ctx.config.gatewayTimeoutMs }, recipeId, environmentId, event),
    receiveSkillCall: (recipeId, environmentId, event, timeoutMs) =>
      receiveSkillCall(calls, recipeId, environmentId, event, timeoutMs),
    runDueSchedules: () => triggers.resumed().then(() => schedules.runDue()),
    idle: (timeoutMs = 10_000) =>
      triggers.resumed().then(() => waitIdle(ctx, queue, [subscriptions, polls], timeoutMs)),
    kick: () => queue.kick(),
    useEventStreams(runtime) {
      runner.eventStreams = runtime;
    },
    keepsTriggerState: (row) => keepsTriggerState(cache, row),
    pollNow: (recipeId) => pollNow({ polls, schedules, triggers }, recipeId),
    repeatJob: (row, original) => control.repeat(row, original),
    cancelJob: (row, job) => control.cancel(row, job),
    taskEnded: (recipeId) => control.taskEnded(recipeId),
    expireDueTasks: () => control.expireDueTasks(),
    runTestJob: (row, triggerOutput, mode) => control.runTest(row, triggerOutput, mode),
  };
}

/** A webhook call: its job stored (200), refused (429: the backlog is full) or not routed (404). */
async function receiveWebhook(
  hooks: ConnectorWebhookDeps,
  key: string,
  event: Hash,
  request: WebhookRequest | undefined,
): Promise<WebhookOutcome> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(key)) return { status: 404 };
  const row = await hooks.cache.webhookRecipe(key);
  if (!row) return request ? connectorWebhookCall(hooks, key, request) : { status: 404 };
  const handle = await hooks.queue.admit(row, event);
  if (handle === BACKLOG_FULL) return { status: 429, retryAfterSeconds: BACKLOG_RETRY_AFTER_SECONDS };
  return { status: 200, jobId: handle };
}

/** poll_now: a polling trigger polls at once, a schedule fires (right after a start, once its trigger is armed). */
async function pollNow(
  deps: { polls: Polls; schedules: Schedules; triggers: TriggerArming },
  recipeId: number,
): Promise<boolean> {
  const { polls, schedules, triggers } = deps;
  if (!polls.has(recipeId) && !schedules.has(recipeId)) await triggers.resumed();
  if (!polls.has(recipeId)) return schedules.fireNow(recipeId);
  await polls.poll(recipeId);
  return true;
}

/**
 * Wait until no job runs (a job launched while the first ones ended is waited for too), up to
 * timeoutMs; then abort the jobs still running and give them a second to record their end. Then
 * stop hearing of jobs ended on other nodes.
 */
async function drain(queue: JobQueue, shutdown: AbortController, timeoutMs: number): Promise<void> {
  let timedOut = false;
  const timeout = new Promise<void>((resolve) =>
    setTimeout(() => {
      timedOut = true;
      resolve();
    }, timeoutMs).unref(),
  );
  while (queue.running.size > 0 && !timedOut) await Promise.race([Promise.allSettled([...queue.running]), timeout]);
  shutdown.abort();
  await Promise.race([
    Promise.allSettled([...queue.running]),
    new Promise<void>((resolve) => setTimeout(resolve, 1000).unref()),
  ]);
  // Only now: the jobs drained may have waited for jobs of other nodes.
  queue.stopWaiting();
}

/**
 * Code steps' sandboxes: worker threads started at their first use (Python's and Ruby's ahead of
 * it, when a running recipe has such a step, since their interpreters take a second or more to load).
 */
function createSandboxes(ctx: ServiceContext, limits: EngineLimits): EngineSandboxes {
  return {
    js: createJsSandbox({ workers: 2, idleMs: ctx.config.sandboxIdleMs }),
    py: createPySandbox({
      workers: 2,
      interpreters: ctx.config.pythonInterpreters,
      idleMs: ctx.config.sandboxIdleMs,
      snapshotFiles: [pythonSnapshotFile(ctx.config.dataDir), installedPythonSnapshotFile()],
    }),
    ruby: createRubyCodeRunner({
      workers: 2,
      idleMs: ctx.config.sandboxIdleMs,
      memoryBytes: limits.codeMemoryBytes,
      dataDir: ctx.config.dataDir,
      httpTimeoutMs: limits.httpTimeoutMs,
      httpMaxResponseBytes: limits.httpMaxResponseBytes,
      outbound: ctx.outbound,
      // One pool of interpreters for code steps and custom connectors when their memory caps agree
      // (a cap is written into the module when a pool starts, so different caps need two pools).
      shared: limits.codeMemoryBytes === ctx.config.connectorMemoryBytes ? () => ctx.rubyConnectors.get() : undefined,
    }),
    images: createImageThreads({ workers: ctx.config.imageWorkers, queueMax: ctx.config.imageQueueMax }),
  };
}

/** An API endpoint's call; with `validate` (validate_request), first checked against the trigger's request schema. */
async function validatedApiRequest(
  deps: { cache: RecipeCache; settings: ReturnType<typeof engineSettings>; calls: RecipeCallDeps },
  recipeId: number,
  environmentId: number,
  event: Hash,
  timeoutMs: number,
  options?: { validate?: boolean },
): Promise<ApiCallOutcome> {
  if (options?.validate) {
    const row = await deps.cache.runningRow(recipeId);
    const recipe = row && row.environment_id === environmentId ? deps.cache.compiledFor(row).recipe : null;
    const request = hashGet(event, 'request');
    if (recipe && isHash(request)) {
      const problems = requestProblems(requestSchemaOf(evaluateTriggerInput(deps.settings, recipe.trigger)), request);
      if (problems.length > 0) return { kind: 'invalid', problems };
    }
  }
  return receiveApiRequest(deps.calls, recipeId, environmentId, event, timeoutMs);
}

/** A page's component calls an app function recipe (Workflow apps API): its job's answer, or why there is none. */
async function appFunctionCall(
  deps: { cache: RecipeCache; calls: RecipeCallDeps; timeoutMs: number },
  recipeId: number,
  environmentId: number,
  event: Record<string, unknown>,
): Promise<AppFunctionOutcome> {
  const row = await deps.cache.runningRow(recipeId);
  const kind = row ? deps.cache.compiledFor(row).recipe?.trigger.trigger?.kind : undefined;
  return receiveAppFunctionCall(
    deps.calls,
    kind === 'app_function' ? row : undefined,
    environmentId,
    fromPlain(event) as Hash,
    deps.timeoutMs,
  );
}
