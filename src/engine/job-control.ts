// Job control: what a caller asks of one job (cancel, repeat, run a test case's job off the queue)
// and the end of workflow tasks whose time is up, after which their jobs go on.
import type { ServiceContext } from '../context.ts';
import type { JobRow, RecipeRow } from '../db/types.ts';
import { countFailedJob, findRecipeById } from '../api/recipes/recipes.store.ts';
import { cancelQueuedJob, findJobById } from '../api/jobs/jobs.store.ts';
import { insertJob, newJobHandle } from '../api/jobs/queue.store.ts';
import { cancelWaitingJob, dueTasks, endOpenTask, openTaskOfJob } from '../api/workflow_tasks/workflow_tasks.store.ts';
import { endTask, taskOutput } from '../api/workflow_tasks/workflow_tasks.service.ts';
import { fromPlain, type Hash } from '../recipe/formula/values.ts';
import type { JobOutcome, TestMode } from '../recipe/job-outcome.ts';
import { toStored } from '../time.ts';
import type { JobQueue, Lifecycle } from './queue.ts';
import type { EngineSettings } from './settings.ts';

/** Open tasks expired per pass of the expiry timer. */
const EXPIRY_BATCH = 100;

export type CancelResult = 'canceled' | 'canceling' | 'not_pending';

export interface JobControlDeps {
  ctx: ServiceContext;
  settings: EngineSettings;
  queue: JobQueue;
  lifecycle: Lifecycle;
  /** Run a test case's job (JobRunner.run). */
  runTest(job: JobRow, test: { row: RecipeRow; mode: TestMode }): Promise<JobOutcome | undefined>;
}

/** The outcome recorded for a job canceled while queued. */
function canceledOutcome(now: number): JobOutcome {
  const message = 'the job was canceled before it ran';
  return {
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
      error_at: new Date(now).toISOString(),
      input: '<redacted>',
      inner_message: null,
    },
  };
}

export class JobControl {
  readonly #deps: JobControlDeps;
  /** Running jobs asked to stop (cancel_jobs): each checks before its next step. */
  readonly #cancelRequests = new Set<string>();
  #expiryTimer: NodeJS.Timeout | undefined;
  #expiring = false;

  constructor(deps: JobControlDeps) {
    this.#deps = deps;
  }

  /** Whether a running job was asked to stop. */
  isCanceled(handle: string): boolean {
    return this.#cancelRequests.has(handle);
  }

  /** A running job of this node was asked to stop (the request may come from another node). */
  cancelRequested(handle: string): void {
    this.#cancelRequests.add(handle);
  }

  /** A job ended: a request to stop it is spent. */
  ended(handle: string): void {
    this.#cancelRequests.delete(handle);
  }

  /** Run a finished job again: a new job of the same trigger event, is_repeat, with the original's handle. */
  repeat(row: RecipeRow, original: JobRow): Promise<string | null> {
    return this.#deps.queue.enqueue(row, fromPlain(JSON.parse(original.trigger_output)) as Hash, {
      masterJobHandle: original.handle,
    });
  }

  /** Cancel a pending job: a queued one (or one waiting for a workflow task) at once; a running one before its next step. */
  async cancel(row: RecipeRow, job: JobRow): Promise<CancelResult> {
    const { ctx, settings, queue } = this.#deps;
    if (job.status === 'queued') {
      const canceled = await ctx.groupCommit.run(async (trx) => {
        if (!(await cancelQueuedJob(trx, job.id, toStored(ctx.clock.now())))) return false;
        await countFailedJob(trx, row.id);
        return true;
      });
      if (canceled) {
        queue.backlog.remove(row.id);
        queue.settle(job.handle, canceledOutcome(settings.now()), job.awaited === 1);
        return 'canceled';
      }
      const now = await findJobById(ctx.db, job.id);
      if (now.status !== 'running') return 'not_pending';
      this.#deps.ctx.notifier.publish('job.cancel_requested', { handle: job.handle });
      return 'canceling';
    }
    if (job.status === 'running') {
      this.#deps.ctx.notifier.publish('job.cancel_requested', { handle: job.handle });
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
      return now.status === 'queued' || now.status === 'running' ? this.cancel(row, now) : 'not_pending';
    }
    return 'not_pending';
  }

  /**
   * Run a test case's job of a recipe (running or not) at once, off the queue, recorded as a job
   * with is_test. Resolves with its handle and outcome once recorded.
   */
  async runTest(
    row: RecipeRow,
    triggerOutput: unknown,
    mode: TestMode,
  ): Promise<{ handle: string; outcome: JobOutcome }> {
    const { ctx, settings, queue, lifecycle } = this.#deps;
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
        recipe_version_no: row.version_no,
        claimed_by: ctx.nodeId,
        lease_expires_at: toStored(new Date(ctx.clock.now().getTime() + settings.leaseMs)),
      });
      return findJobById(trx, id);
    });
    const task = this.#deps.runTest(job, { row, mode });
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
  }

  /** A task ended and its job is queued again: it counts in the backlog until it ends. */
  taskEnded(recipeId: number): void {
    const { ctx, queue } = this.#deps;
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

  /** End the open workflow tasks whose time is up (expired); their jobs go on. */
  async expireDueTasks(): Promise<number> {
    const { ctx } = this.#deps;
    if (this.#expiring) return 0;
    this.#expiring = true;
    try {
      const at = toStored(ctx.clock.now());
      let expired = 0;
      for (const task of await dueTasks(ctx.db, at, EXPIRY_BATCH)) {
        if (await endTask(ctx.db, task, 'expired', taskOutput(task, 'expired', at), null, at)) {
          expired++;
          this.taskEnded(task.recipe_id);
        }
      }
      return expired;
    } finally {
      this.#expiring = false;
    }
  }

  /** Expire due tasks on a timer (every poll interval, at least a second). */
  startExpiryTimer(): void {
    const { ctx, settings } = this.#deps;
    this.#expiryTimer = setInterval(
      () => {
        void this.expireDueTasks().catch((error: unknown) =>
          ctx.log.error({ err: error }, 'could not expire workflow tasks'),
        );
      },
      Math.max(settings.pollMs, 1000),
    );
    this.#expiryTimer.unref();
  }

  stopExpiryTimer(): void {
    if (this.#expiryTimer) clearInterval(this.#expiryTimer);
  }
}
