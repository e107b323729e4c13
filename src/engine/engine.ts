// The recipe engine at run time: compiles recipes, keeps the triggers of running recipes alive
// (schedules; webhooks are looked up per call), stores every trigger event as a job before it is
// acknowledged, and runs queued jobs with each recipe's concurrency. The jobs table is the queue:
// a restart loses nothing that was acknowledged. This file wires the rooms of the engine
// (README.md lists them) and is its public interface.
import { randomUUID } from 'node:crypto';
import type { ServiceContext } from '../context.ts';
import type { JobRow, RecipeRow } from '../db/types.ts';
import { countFailedJob, findRecipeById, listRunningRecipeIds } from '../api/recipes/recipes.store.ts';
import { cancelQueuedJob, findJobById } from '../api/jobs/jobs.store.ts';
import { countQueued, insertJob, newJobHandle } from '../api/jobs/queue.store.ts';
import { fromPlain } from '../recipe/formula/values.ts';
import { toStored } from '../time.ts';
import type { JobOutcome, TestMode } from '../recipe/job-outcome.ts';
import { batchSizeOf, createTopicSubscriptions, type EventStreamsRuntime } from './connectors/workato_pub_sub.ts';
import { createEventBus, type EngineEventBus } from './events.ts';
import { createDataTableTriggers } from './data-table-triggers.ts';
import type { RecordListener } from '../api/data_tables/data_tables.service.ts';
import type { Hash } from '../recipe/formula/values.ts';
import { BACKLOG_RETRY_AFTER_SECONDS } from './backlog.ts';
import { BACKLOG_FULL, JobQueue, type EnqueueMeta, type Lifecycle } from './queue.ts';
import { RecipeCache } from './recipe-cache.ts';
import { callRecipe, receiveApiRequest, type ApiCallOutcome, type RecipeCallDeps } from './recipe-calls.ts';
import { recoverInterruptedJobs, startJobHeartbeat } from './recovery.ts';
import { JobRunner } from './run-job.ts';
import { createJsSandbox } from './sandbox/js-sandbox.ts';
import { createPySandbox, installedPythonSnapshotFile, pythonSnapshotFile } from './sandbox/py-sandbox.ts';
import { Schedules } from './schedules.ts';
import { Polls } from './polls.ts';
import { engineSettings, type EngineOptions } from './settings.ts';
import { evaluateTriggerInput, validateRecipe, type Validation } from './validate.ts';
import { cancelWaitingJob, dueTasks, openTaskOfJob, endOpenTask } from '../api/workflow_tasks/workflow_tasks.store.ts';
import { endTask, taskOutput } from '../api/workflow_tasks/workflow_tasks.service.ts';

/** Open tasks expired per pass of the expiry timer. */
const EXPIRY_BATCH = 100;

export type { ApiCallOutcome, EngineOptions, EnqueueMeta, Validation };

export type WebhookOutcome =
  { status: 200; jobId: string | null } | { status: 404 } | { status: 429; retryAfterSeconds: number };

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

export function createEngine(ctx: ServiceContext, options: EngineOptions = {}): RecipeEngine {
  const settings = engineSettings(ctx, options);
  const events = createEventBus((error, name) =>
    ctx.log.error({ err: error, event: name }, 'engine event listener failed'),
  );
  const lifecycle: Lifecycle = { started: false, closing: false };
  const shutdown = new AbortController();
  const cache = new RecipeCache(ctx);
  // Code steps' sandboxes: worker threads started at their first use (Python's ahead of it, when a
  // running recipe has a Python step, since its interpreter takes a second or more to load).
  const sandboxes = {
    js: createJsSandbox({ workers: 2 }),
    py: createPySandbox({
      workers: 2,
      snapshotFiles: [pythonSnapshotFile(ctx.config.dataDir), installedPythonSnapshotFile()],
    }),
  };
  // Running jobs asked to stop (cancel_jobs): each checks before its next step.
  const cancelRequests = new Set<string>();
  // The queue launches jobs that the runner runs; a job's recipe calls go back to the queue.
  const queue = new JobQueue({
    ctx,
    settings,
    cache,
    events,
    lifecycle,
    run: (job, successor) => runner.runQueued(job, successor),
  });
  // Real-time data table triggers: jobs stored in the transaction of the record write.
  const dataTables = createDataTableTriggers({
    ctx,
    storeJob: (trx, row, event) => queue.storeJob(trx, row, event, {}),
    stored(row, handles) {
      queue.backlog.add(row, handles.length);
      for (const handle of handles) events.emit('job.queued', { recipeId: row.id, jobId: handle });
      if (handles.length > 0) queue.kick();
    },
  });
  const calls: RecipeCallDeps = { db: ctx.db, queue, limits: settings.limits };
  const runner = new JobRunner({
    ctx,
    settings,
    cache,
    events,
    shutdown: shutdown.signal,
    callRecipe: (caller, job, flow, parameters, wait) => callRecipe(calls, caller, job, flow, parameters, wait),
    settle: (handle, outcome) => {
      cancelRequests.delete(handle);
      queue.settle(handle, outcome);
    },
    isCanceled: (handle) => cancelRequests.has(handle),
    sandboxes,
    dataTables,
  });
  const schedules = new Schedules({ ctx, settings, events, queue, lifecycle });
  // Polling triggers: one timer per running recipe, the cursor in its trigger_closure.
  const polls = new Polls({ ctx, settings, cache, events, queue, lifecycle });
  // Topic triggers: one subscription per running recipe, woken by event_topic.published.
  const subscriptions = createTopicSubscriptions({
    ctx,
    commits: ctx.groupCommit,
    storeJob: (trx, row, event) => queue.storeJob(trx, row, event, {}),
    stored(row, handles) {
      queue.backlog.add(row, handles.length);
      for (const handle of handles) events.emit('job.queued', { recipeId: row.id, jobId: handle });
      if (handles.length > 0) queue.kick();
    },
  });

  let expiryTimer: NodeJS.Timeout | undefined;
  let expiring = false;

  /** A task ended and its job is queued again: it counts in the backlog until it ends. */
  function taskEnded(recipeId: number): void {
    void findRecipeById(ctx.db, recipeId).then(
      (row) => {
        if (!row) return;
        queue.backlog.add(row);
        queue.kick();
      },
      (error: unknown) =>
        ctx.log.error({ err: error, recipe_id: recipeId }, 'could not wake the job of a workflow task'),
    );
  }

  async function expireDueTasks(): Promise<number> {
    if (expiring) return 0;
    expiring = true;
    try {
      const at = toStored(ctx.clock.now());
      let expired = 0;
      for (const task of await dueTasks(ctx.db, at, EXPIRY_BATCH)) {
        if (await endTask(ctx.db, task, 'expired', taskOutput(task, 'expired', at), null, at)) {
          expired++;
          taskEnded(task.recipe_id);
        }
      }
      return expired;
    } finally {
      expiring = false;
    }
  }

  // Deleted recipes (alone or with their folder or project) leave the cache and the backlog counts.
  const offDeleted = ctx.notifier.subscribe('recipes.deleted', ({ recipeIds }) => {
    for (const recipeId of recipeIds) {
      cache.forget(recipeId);
      queue.backlog.forget(recipeId);
      dataTables.disarm(recipeId);
    }
  });

  // Other nodes sharing the database start and stop recipes too: arm or disarm their triggers here.
  const origin = randomUUID();
  const offRunning = ctx.notifier.subscribe('recipe.running_changed', ({ recipeId, running, origin: from }) => {
    if (from === origin || lifecycle.closing) return;
    cache.forget(recipeId);
    if (!running) {
      disarmTrigger(recipeId);
      return;
    }
    void findRecipeById(ctx.db, recipeId)
      .then((row) => (row?.running === 1 && !lifecycle.closing ? armTrigger(row) : undefined))
      .catch((error: unknown) =>
        ctx.log.error(
          { err: error, recipe_id: recipeId },
          'could not arm the trigger of a recipe started on another node',
        ),
      );
  });
  // Starts and stops may have been missed: arm what runs and is not armed, disarm what stopped.
  let resyncing: Promise<void> | undefined;
  let resyncAgain = false;
  const offEverything = ctx.notifier.subscribe('everything.changed', () => {
    if (!lifecycle.started || lifecycle.closing) return;
    if (resyncing) {
      resyncAgain = true;
      return;
    }
    resyncing = (async () => {
      do {
        resyncAgain = false;
        await resyncTriggers().catch((error: unknown) =>
          ctx.log.warn({ err: error }, 'could not re-read the running recipes'),
        );
      } while (resyncAgain && !lifecycle.closing);
    })().finally(() => {
      resyncing = undefined;
    });
  });

  async function resyncTriggers(): Promise<void> {
    const running = new Set(await listRunningRecipeIds(ctx.db));
    for (const id of armedIds) if (!running.has(id)) disarmTrigger(id);
    for (const id of running) {
      if (armedIds.has(id) || lifecycle.closing) continue;
      const row = await findRecipeById(ctx.db, id);
      if (row?.running === 1) await armTrigger(row);
    }
    queue.kick();
  }

  let stopHeartbeat: () => Promise<void> = () => Promise.resolve();

  /** Recipes whose trigger this node has armed (or has nothing to arm for: webhooks). */
  const armedIds = new Set<number>();

  function disarmTrigger(recipeId: number): void {
    armedIds.delete(recipeId);
    subscriptions.disarm(recipeId);
    polls.disarm(recipeId);
    dataTables.disarm(recipeId);
    schedules.disarm(recipeId);
    schedules.armTimer();
  }

  /** Arm the trigger of a running recipe: its schedule or its topic subscription (webhooks need nothing). */
  async function armTrigger(row: RecipeRow): Promise<void> {
    schedules.disarm(row.id);
    subscriptions.disarm(row.id);
    polls.disarm(row.id);
    dataTables.disarm(row.id);
    if (usesPython(row)) sandboxes.py.warm();
    armedIds.add(row.id);
    await cache.prepare(row);
    const { recipe } = cache.compiledFor(row);
    if (recipe && recipe.trigger.trigger?.kind === 'poll')
      return polls.arm(row, evaluateTriggerInput(settings, recipe.trigger));
    if (recipe && recipe.trigger.trigger?.kind === 'data_table') {
      await dataTables.arm(row, recipe.trigger.name ?? '', evaluateTriggerInput(settings, recipe.trigger));
      return;
    }
    if (recipe && recipe.trigger.trigger?.kind === 'topic') {
      const input = evaluateTriggerInput(settings, recipe.trigger);
      const size = recipe.trigger.name === 'batch_subscribe_to_topic' ? batchSizeOf(input) : null;
      return subscriptions.arm(row, input, typeof size === 'number' ? size : null);
    }
    if (!recipe || recipe.trigger.trigger?.kind !== 'schedule') return;
    schedules.arm(row, evaluateTriggerInput(settings, recipe.trigger));
  }

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
      for (const id of await listRunningRecipeIds(ctx.db)) {
        const row = await findRecipeById(ctx.db, id);
        if (row)
          await armTrigger(row).catch((error: unknown) =>
            ctx.log.error({ err: error, recipe_id: id }, 'could not resume the trigger of a running recipe'),
          );
      }
      queue.startPolling();
      expiryTimer = setInterval(
        () => {
          void expireDueTasks().catch((error: unknown) =>
            ctx.log.error({ err: error }, 'could not expire workflow tasks'),
          );
        },
        Math.max(settings.pollMs, 1000),
      );
      expiryTimer.unref();
      queue.kick();
    },
    async close(timeoutMs = 10_000) {
      lifecycle.closing = true;
      offDeleted();
      offRunning();
      offEverything();
      await stopHeartbeat();
      await subscriptions.close();
      await polls.close();
      queue.stopPolling();
      if (expiryTimer) clearInterval(expiryTimer);
      schedules.clearTimer();
      // Until no job runs (a job launched while the first ones ended is waited for too).
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
      await Promise.all([sandboxes.js.close(), sandboxes.py.close()]);
    },
    validate: (row) => validateRecipe({ db: ctx.db, cache, formulas: settings }, row),
    async recipeStarted(recipeId) {
      cache.forget(recipeId);
      const row = await findRecipeById(ctx.db, recipeId);
      if (!row) return;
      await armTrigger(row);
      ctx.notifier.publish('recipe.running_changed', { recipeId, running: true, origin });
      events.emit('recipe.started', { recipeId });
      queue.kick();
    },
    recipeStopped(recipeId) {
      cache.forget(recipeId);
      disarmTrigger(recipeId);
      ctx.notifier.publish('recipe.running_changed', { recipeId, running: false, origin });
      events.emit('recipe.stopped', { recipeId });
    },
    enqueue: (row, event, meta) => queue.enqueue(row, event, meta),
    async receiveWebhook(key, event) {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(key)) return { status: 404 };
      const row = await cache.webhookRecipe(key);
      if (!row) return { status: 404 };
      const handle = await queue.admit(row, event);
      if (handle === BACKLOG_FULL) return { status: 429, retryAfterSeconds: BACKLOG_RETRY_AFTER_SECONDS };
      return { status: 200, jobId: handle };
    },
    receiveApiRequest: (recipeId, environmentId, event, timeoutMs) =>
      receiveApiRequest(calls, recipeId, environmentId, event, timeoutMs),
    runDueSchedules: () => schedules.runDue(),
    async idle(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (
          !subscriptions.busy() &&
          !polls.busy() &&
          (await countQueued(ctx.db)) === 0 &&
          queue.total === 0 &&
          !subscriptions.busy()
        )
          return;
        if (Date.now() > deadline) throw new Error('the engine did not become idle in time');
        queue.kick();
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    kick: () => queue.kick(),
    useEventStreams(runtime) {
      runner.eventStreams = runtime;
    },
    async pollNow(recipeId) {
      if (!polls.has(recipeId)) return schedules.fireNow(recipeId);
      await polls.poll(recipeId);
      return true;
    },
    async repeatJob(row, original) {
      return queue.enqueue(row, fromPlain(JSON.parse(original.trigger_output)) as Hash, {
        masterJobHandle: original.handle,
      });
    },
    async cancelJob(row, job) {
      if (job.status === 'queued') {
        const canceled = await ctx.groupCommit.run(async (trx) => {
          if (!(await cancelQueuedJob(trx, job.id, toStored(ctx.clock.now())))) return false;
          await countFailedJob(trx, row.id);
          return true;
        });
        if (canceled) {
          queue.backlog.remove(row.id);
          const message = 'the job was canceled before it ran';
          queue.settle(job.handle, {
            status: 'failed',
            error: `Canceled: ${message}`,
            lines: [],
            linesDropped: 0,
            taskCount: 0,
            end: null,
            firstSeq: 0,
            errorParts: {
              adapter: 'workato',
              error_type: 'Canceled',
              message,
              error_at: new Date(settings.now()).toISOString(),
              input: '<redacted>',
              inner_message: null,
            },
          });
          return 'canceled';
        }
        const now = await findJobById(ctx.db, job.id);
        if (now.status !== 'running') return 'not_pending';
        cancelRequests.add(job.handle);
        return 'canceling';
      }
      if (job.status === 'running') {
        cancelRequests.add(job.handle);
        return 'canceling';
      }
      if (job.status === 'waiting') {
        // The job and its open task end together; a task completed meanwhile queued the job again.
        const at = toStored(ctx.clock.now());
        const canceled = await ctx.db.transaction().execute(async (trx) => {
          if (!(await cancelWaitingJob(trx, job.id, at))) return false;
          const task = await openTaskOfJob(trx, job.id);
          if (task)
            await endOpenTask(trx, task.id, {
              status: 'canceled',
              result: JSON.stringify(taskOutput(task, 'canceled', at)),
              completed_by: null,
              completed_at: at,
            });
          await countFailedJob(trx, row.id);
          return true;
        });
        if (canceled) return 'canceled';
        const now = await findJobById(ctx.db, job.id);
        return now.status === 'queued'
          ? this.cancelJob(row, now)
          : now.status === 'running'
            ? this.cancelJob(row, now)
            : 'not_pending';
      }
      return 'not_pending';
    },
    taskEnded,
    expireDueTasks,
    async runTestJob(row, triggerOutput, mode) {
      if (lifecycle.closing) throw new Error('the engine is closing');
      const handle = newJobHandle();
      const stamp = toStored(ctx.clock.now());
      const job = await ctx.groupCommit.run(async (trx) => {
        const id = await insertJob(trx, {
          recipe_id: row.id,
          handle,
          status: 'running',
          title: 'Test case',
          trigger_output: JSON.stringify(triggerOutput ?? null),
          error: null,
          error_parts: null,
          is_poll_error: 0,
          is_repeat: 0,
          is_test: 1,
          master_job_handle: null,
          calling_recipe_id: null,
          calling_job_handle: null,
          root_recipe_id: null,
          root_job_handle: null,
          task_count: 0,
          created_at: stamp,
          started_at: stamp,
          completed_at: null,
          claimed_by: ctx.nodeId,
          lease_expires_at: toStored(new Date(ctx.clock.now().getTime() + settings.leaseMs)),
        });
        return findJobById(trx, id);
      });
      const task = runner.run(job, { row, mode });
      const tracked = task.then(
        () => undefined,
        () => undefined,
      );
      queue.running.add(tracked);
      try {
        const outcome = await task;
        if (!outcome) throw new Error('the test job did not run');
        return { handle, outcome };
      } finally {
        queue.running.delete(tracked);
      }
    },
  };
}

/** Whether a recipe has a Python step (its interpreter is then loaded ahead of the first job). */
function usesPython(row: RecipeRow): boolean {
  return /"provider"\s*:\s*"py_eval"/.test(row.code);
}
