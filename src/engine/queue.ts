// The jobs table is the queue. A trigger event becomes a `jobs` row (trigger filter first) before
// it is acknowledged, so a restart loses nothing that was acknowledged. One dispatcher claims the
// queued jobs of running recipes, oldest first, within each recipe's concurrency and the
// process's workers, and launches them; a caller may wait for a job's end, on whichever node it
// runs (job-waiters.ts). Every pending job is counted in the backlog (backlog.ts); webhooks and
// API calls are admitted only within its limits.
import { randomUUID } from 'node:crypto';
import type { ServiceContext } from '../context.ts';
import type { Db, JobRow, RecipeRow } from '../db/types.ts';
import { insertsInOneStatement } from '../db/dialect.ts';
import { createInsertBatcher, type InsertBatcher } from '../db/insert-batcher.ts';
import { countFailedJob } from '../api/recipes/recipes.store.ts';
import {
  claimJobs,
  insertJob,
  insertJobs,
  newJobHandle,
  newJobRow,
  pendingJobCounts,
  recipesWithQueuedJobs,
  type NewJob,
} from '../api/jobs/queue.store.ts';
import { type SuccessorClaim, type SuccessorRequest } from '../api/jobs/job-ends.store.ts';
import { Backlog } from './backlog.ts';
import { JobWaiters } from './job-waiters.ts';
import type { CompiledRecipe } from './compile.ts';
import type { EngineEventBus } from './events.ts';
import { filterAccepts } from './trigger-filter.ts';
import { type JobOutcome } from '../recipe/job-outcome.ts';
import { toPlain, type Hash, type Value } from '../recipe/formula/values.ts';
import type { RecipeCache } from './recipe-cache.ts';
import type { EngineSettings } from './settings.ts';
import { toStored } from '../time.ts';

/** A claim that met another node's claim on the same recipe is tried again after this long. */
const CONTENDED_RETRY_MS = 10;
/**
 * How often a busy recipe's successor claims look at its whole queue (ms): in between they start
 * from the ending job's id, so a job queued below it (queued again after its workflow task, or
 * stored after younger ones were claimed) waits at most this long behind younger ones.
 */
const WHOLE_QUEUE_EVERY_MS = 1000;

/** An event refused because the backlog of its recipe or workspace is full: nothing was stored. */
export const BACKLOG_FULL = 'backlog_full';

export interface EnqueueMeta {
  isTest?: boolean;
  /** A rerun of an earlier job (repeat_jobs): is_repeat, with the original's handle. */
  masterJobHandle?: string;
  callingRecipeId?: number;
  callingJobHandle?: string;
  rootRecipeId?: number;
  rootJobHandle?: string;
  /** A caller waits for the job's answer (submitAndWait): its end is announced to every node. */
  awaited?: boolean;
}

/** Whether the engine has started and whether it is closing; shared by the queue and the schedules. */
export interface Lifecycle {
  started: boolean;
  closing: boolean;
}

export interface QueueDeps {
  ctx: ServiceContext;
  settings: EngineSettings;
  cache: RecipeCache;
  events: EngineEventBus;
  lifecycle: Lifecycle;
  /**
   * Run one claimed job to its end (recorded). `claimNext` runs in the transaction that records the
   * job's end; the jobs it claimed (once that transaction committed) come back.
   */
  run(job: JobRow, successor: SuccessorOf): Promise<SuccessorClaim>;
}

/**
 * The claim of the next queued job of an ending job's recipe, made in the transaction that records
 * the end (so the successor takes over the slot without a claim transaction of its own); null when
 * the job's slot is not to be handed on.
 */
export type SuccessorOf = () => SuccessorRequest | null;

/** What the trigger hands to the recipe's steps for an event. */
export function outputOf(recipe: CompiledRecipe, event: Hash): Value {
  return recipe.trigger.trigger ? recipe.trigger.trigger.output(event) : event;
}

function titleOf(recipe: CompiledRecipe, event: Hash): string {
  const trigger = recipe.trigger;
  const base = `${trigger.connector?.title ?? trigger.provider ?? 'Trigger'}: ${trigger.trigger?.title ?? trigger.name ?? 'event'}`;
  const fields = trigger.trigger?.titleFields?.(event) ?? [];
  const text = fields.length > 0 ? `${base}: ${fields.map(([k, v]) => `${k}=${v}`).join(', ')}` : base;
  return text.slice(0, 1000);
}

export class JobQueue {
  readonly #deps: QueueDeps;
  /** Pending jobs by recipe and workspace. */
  readonly backlog: Backlog;
  /** Jobs launched and not ended, by recipe. */
  readonly #inflight = new Map<number, number>();
  /** When each recipe with jobs in flight last claimed a successor from its whole queue (performance.now()). */
  readonly #wholeQueueAt = new Map<number, number>();
  /** The tasks of the jobs launched and not ended. */
  readonly running = new Set<Promise<void>>();
  /** Callers waiting for a job's end (synchronous recipe calls, API requests), by job handle. */
  readonly waiters: JobWaiters;
  #total = 0;
  /** Jobs whose place is taken and whose row is being committed. */
  #committing = 0;
  // Jobs blocked in a synchronous call do not hold one of the process's worker slots.
  #blocked = 0;
  #pumping = false;
  #again = false;
  #pollTimer: NodeJS.Timeout | undefined;
  /** Where queued jobs' rows are written together, one statement for many (PostgreSQL). */
  readonly #intake: InsertBatcher<NewJob, number> | undefined;
  #retryTimer: NodeJS.Timeout | undefined;

  constructor(deps: QueueDeps) {
    this.#deps = deps;
    this.backlog = new Backlog(deps.settings.backlog);
    const { db, notifier, log } = deps.ctx;
    this.waiters = new JobWaiters({ db, notifier, log, recheckMs: deps.settings.waitRecheckMs });
    this.#intake = insertsInOneStatement(db)
      ? createInsertBatcher(db, insertJobs, { sizeOf: (job) => job.trigger_output.length })
      : undefined;
  }

  /**
   * Count the pending jobs found in the database (on start, after the recovery; with several
   * nodes, at every heartbeat). Counts read while this node took or gave back a place, or while
   * a job it admitted was being committed, could lose that place or count it twice: they are
   * dropped, and the next heartbeat reads again.
   */
  async rebuildBacklog(): Promise<void> {
    const { backlog } = this;
    const changes = backlog.changes;
    const committingBefore = this.#committing;
    const counts = await pendingJobCounts(this.#deps.ctx.db);
    if (committingBefore > 0 || this.#committing > 0 || backlog.changes !== changes) return;
    backlog.reset(counts);
  }

  /** Jobs launched and not ended. */
  get total(): number {
    return this.#total;
  }

  /** Insert a queued job (inside the caller's transaction when given one). */
  async storeJob(
    db: Db,
    row: RecipeRow,
    event: Hash,
    meta: EnqueueMeta,
    handle: string = newJobHandle(),
  ): Promise<{ handle: string; queued: boolean } | null> {
    const job = this.#jobFor(row, event, meta, handle);
    if (job === null) return null;
    await insertJob(db, job);
    if (job.status === 'queued') return { handle, queued: true };
    await countFailedJob(db, row.id);
    return { handle, queued: false };
  }

  /**
   * The job row a trigger event makes: a queued job, a failed one (a trigger error, counted on its
   * recipe by the caller), or null when the trigger filter rejects the event (no job).
   */
  #jobFor(row: RecipeRow, event: Hash, meta: EnqueueMeta, handle: string): NewJob | null {
    const { ctx, settings } = this.#deps;
    const { recipe } = this.#deps.cache.compiledFor(row);
    const stamp = toStored(ctx.clock.now());
    const job = (title: string, values: Partial<NewJob>) =>
      newJobRow(row.id, stamp, title, {
        handle,
        trigger_output: JSON.stringify(toPlain(event)),
        is_repeat: meta.masterJobHandle ? 1 : 0,
        is_test: meta.isTest ? 1 : 0,
        master_job_handle: meta.masterJobHandle ?? null,
        calling_recipe_id: meta.callingRecipeId ?? null,
        calling_job_handle: meta.callingJobHandle ?? null,
        root_recipe_id: meta.rootRecipeId ?? null,
        root_job_handle: meta.rootJobHandle ?? null,
        awaited: meta.awaited ? 1 : 0,
        recipe_version_no: row.version_no,
        ...values,
      });
    if (!recipe) {
      return job('Trigger error: the recipe does not compile', {
        status: 'failed',
        error: 'Trigger error: the recipe does not compile',
        is_poll_error: 1,
        completed_at: stamp,
      });
    }
    // The trigger filter: an event it rejects makes no job (20 §4.3).
    if (recipe.trigger.condition) {
      const verdict = filterAccepts(recipe, outputOf(recipe, event), settings);
      if (verdict === false) return null;
      if (verdict !== true) {
        const error = `Trigger error: ${verdict.error}`;
        return job(error.slice(0, 1000), {
          status: 'failed',
          error,
          error_parts: triggerErrorParts(recipe.trigger.provider, 'Trigger error', verdict.error, stamp),
          is_poll_error: 1,
          completed_at: stamp,
        });
      }
    }
    return job(titleOf(recipe, event), {});
  }

  /**
   * Store a trigger event's job; resolves once it is committed. On PostgreSQL a queued job is
   * written with the others arriving together, in one statement (insert-batcher.ts); a trigger
   * error, which also counts a failure on its recipe, in a transaction of its own. On SQLite it
   * joins the group commit.
   */
  async #store(
    row: RecipeRow,
    event: Hash,
    meta: EnqueueMeta,
    handle: string,
  ): Promise<{ handle: string; queued: boolean } | null> {
    const { groupCommit } = this.#deps.ctx;
    if (!this.#intake) return groupCommit.runAlone((trx) => this.storeJob(trx, row, event, meta, handle));
    const job = this.#jobFor(row, event, meta, handle);
    if (job === null) return null;
    if (job.status !== 'queued') {
      return groupCommit.runAlone(async (trx) => {
        await insertJob(trx, job);
        await countFailedJob(trx, row.id);
        return { handle, queued: false };
      });
    }
    await this.#intake.insert(job);
    return { handle, queued: true };
  }

  /** A poll of the recipe's trigger failed: a failed job with is_poll_error and the trigger's error (20 §12.7). */
  async storePollError(db: Db, row: RecipeRow, errorType: string, message: string): Promise<string> {
    const { ctx } = this.#deps;
    const handle = newJobHandle();
    const stamp = toStored(ctx.clock.now());
    const error = `Trigger error: ${message}`.slice(0, 10_000);
    await insertJob(
      db,
      newJobRow(row.id, stamp, error.slice(0, 1000), {
        handle,
        status: 'failed',
        error,
        error_parts: triggerErrorParts(row.trigger_application, errorType, message, stamp),
        is_poll_error: 1,
        completed_at: stamp,
        recipe_version_no: row.version_no,
      }),
    );
    await countFailedJob(db, row.id);
    return handle;
  }

  /**
   * Store a job (#store); resolves once it is committed. With `admit`, the job's
   * place in the backlog is taken first and the event refused (nothing stored) when there is none;
   * without, the job is counted whatever the limits.
   */
  async #commitJob(
    row: RecipeRow,
    event: Hash,
    meta: EnqueueMeta,
    handle: string | undefined,
    admit: boolean,
  ): Promise<string | null | typeof BACKLOG_FULL> {
    const { backlog } = this;
    // The place is taken before the row exists, so the count never lags behind the table.
    if (!admit) backlog.add(row);
    else if (!backlog.tryAdd(row)) return BACKLOG_FULL;
    let stored: Awaited<ReturnType<JobQueue['storeJob']>>;
    this.#committing++;
    try {
      stored = await this.#store(row, event, meta, handle ?? newJobHandle());
    } catch (error) {
      backlog.remove(row.id);
      throw error;
    } finally {
      this.#committing--;
    }
    // A filtered event or a trigger error stores no pending job: the place is given back.
    if (stored === null || !stored.queued) backlog.remove(row.id);
    if (stored === null) return null;
    if (stored.queued) this.#deps.events.emit('job.queued', { recipeId: row.id, jobId: stored.handle });
    return stored.handle;
  }

  /** Store one trigger event as a job of a running recipe; resolves once it is stored. */
  async enqueue(row: RecipeRow, event: Hash, meta: EnqueueMeta = {}): Promise<string | null> {
    const handle = await this.#commitJob(row, event, meta, undefined, false);
    this.#kickFor(row);
    return handle === BACKLOG_FULL ? null : handle;
  }

  /** Store an event of a webhook if the backlog has room: its job's handle, or BACKLOG_FULL with nothing stored. */
  async admit(row: RecipeRow, event: Hash): Promise<string | null | typeof BACKLOG_FULL> {
    const handle = await this.#commitJob(row, event, {}, undefined, true);
    if (handle !== BACKLOG_FULL) this.#kickFor(row);
    return handle;
  }

  /**
   * Wake the dispatcher for a job just queued for `row`, unless this process runs as many of the
   * recipe's jobs as its concurrency: each of them, as it ends, claims the oldest queued job of the
   * recipe in its place (or wakes the dispatcher itself when it could not), so a look at every
   * recipe with queued jobs would find no room for this one.
   */
  #kickFor(row: RecipeRow): void {
    if ((this.#inflight.get(row.id) ?? 0) >= Math.max(1, row.concurrency)) return;
    this.kick();
  }

  /** Wake the dispatcher. */
  kick(): void {
    if (!this.#deps.lifecycle.started || this.#deps.lifecycle.closing) return;
    setImmediate(() => {
      void this.#pump().catch((error: unknown) => this.#deps.ctx.log.error({ err: error }, 'job dispatcher failed'));
    });
  }

  async #pump(): Promise<void> {
    if (this.#pumping) {
      this.#again = true;
      return;
    }
    this.#pumping = true;
    try {
      do {
        this.#again = false;
        await this.#pumpOnce();
      } while (this.#again && !this.#deps.lifecycle.closing);
    } finally {
      this.#pumping = false;
    }
  }

  async #pumpOnce(): Promise<void> {
    const { ctx, lifecycle, settings } = this.#deps;
    const { workers } = settings;
    if (lifecycle.closing || this.#total - this.#blocked >= workers) return;
    const candidates = await recipesWithQueuedJobs(ctx.db);
    for (const { recipe_id: recipeId, concurrency } of candidates) {
      const free = Math.min(
        Math.max(1, concurrency) - (this.#inflight.get(recipeId) ?? 0),
        workers - (this.#total - this.#blocked),
      );
      if (free <= 0) continue;
      // Through the group commit: a claim shares its commit (its sync) with the writes around it.
      const now = ctx.clock.now();
      const { jobs, contended } = await ctx.groupCommit.run((trx) =>
        claimJobs(trx, {
          recipeId,
          limit: free,
          now: toStored(now),
          node: ctx.nodeId,
          leaseUntil: toStored(new Date(now.getTime() + settings.leaseMs)),
        }),
      );
      // Another node was claiming for this recipe: look again shortly rather than at the next poll.
      if (contended) this.#retrySoon();
      for (const job of jobs) this.#launch(job);
      if (this.#total - this.#blocked >= workers) return;
    }
  }

  #retrySoon(): void {
    if (this.#retryTimer) return;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.kick();
    }, CONTENDED_RETRY_MS);
    this.#retryTimer.unref();
  }

  /**
   * Run a claimed job. `inherited`: it takes over the slot of the job whose end claimed it (the
   * counts stay as they are). When the job ends, the successor its record claimed (if any) takes
   * its slot at once; otherwise the slot is freed and the dispatcher looks for more.
   */
  #launch(job: JobRow, inherited = false): void {
    if (!inherited) {
      this.#total++;
      this.#inflight.set(job.recipe_id, (this.#inflight.get(job.recipe_id) ?? 0) + 1);
    }
    const { backlog } = this;
    const task: Promise<void> = this.#deps
      .run(job, () => this.#successorClaim(job))
      .catch((error: unknown): SuccessorClaim => {
        this.#deps.ctx.log.error({ err: error, job_id: job.handle }, 'job could not be recorded');
        return { jobs: [], contended: false };
      })
      .then(({ jobs: claimed, contended }) => {
        backlog.remove(job.recipe_id);
        if (contended) this.#retrySoon();
        const [successor, ...more] = claimed;
        // The successor is tracked before this task is dropped, so a shutdown waiting for the
        // running jobs never sees none in between.
        if (successor) this.#launch(successor, true);
        else {
          this.#total--;
          const n = (this.#inflight.get(job.recipe_id) ?? 1) - 1;
          if (n <= 0) {
            this.#inflight.delete(job.recipe_id);
            this.#wholeQueueAt.delete(job.recipe_id);
          } else this.#inflight.set(job.recipe_id, n);
        }
        for (const next of more) this.#launch(next);
        this.running.delete(task);
        // A slot handed on frees nothing: the dispatcher has nothing new to look for.
        if (!successor) this.kick();
      });
    this.running.add(task);
  }

  /**
   * The claim that hands an ending job's slot to the oldest queued job of its recipe, in the
   * transaction recording the end (at most one job, so the recipe's count never grows by it). None
   * while the engine closes, nor while every worker of the process is taken: a slot freed then goes
   * through the dispatcher, which looks at every recipe with queued jobs, so that one busy recipe
   * does not keep the workers from the others. It starts from the ending job's id, and from the
   * whole queue once every WHOLE_QUEUE_EVERY_MS (SuccessorRequest).
   */
  #successorClaim(job: JobRow): SuccessorRequest | null {
    const { ctx, lifecycle, settings } = this.#deps;
    if (lifecycle.closing || this.#total - this.#blocked >= settings.workers) return null;
    const now = ctx.clock.now();
    const at = performance.now();
    const last = this.#wholeQueueAt.get(job.recipe_id);
    const whole = last === undefined || at - last >= WHOLE_QUEUE_EVERY_MS;
    if (whole) this.#wholeQueueAt.set(job.recipe_id, at);
    return {
      recipeId: job.recipe_id,
      now: toStored(now),
      node: ctx.nodeId,
      leaseUntil: toStored(new Date(now.getTime() + settings.leaseMs)),
      from: whole ? null : job.id,
    };
  }

  /**
   * Store a job and wait for its end (or the timeout; the job itself goes on). With `admit`, only
   * when the backlog has room: `refused` and nothing stored otherwise.
   */
  async submitAndWait(
    row: RecipeRow,
    event: Hash,
    meta: EnqueueMeta,
    timeoutMs: number,
    admit = false,
  ): Promise<{ handle: string; outcome: JobOutcome | null; refused?: true }> {
    let settle: (outcome: JobOutcome | null) => void = () => undefined;
    const done = new Promise<JobOutcome | null>((resolve) => {
      settle = resolve;
    });
    // The waiter is in place before the job exists, so no end can slip past it.
    const planned = newJobHandle();
    this.waiters.add(planned, (outcome) => settle(outcome));
    let handle: string | null;
    try {
      const stored = await this.#commitJob(row, event, { ...meta, awaited: true }, planned, admit);
      if (stored === BACKLOG_FULL) {
        this.waiters.delete(planned);
        return { handle: '', outcome: null, refused: true };
      }
      handle = stored;
    } catch (error) {
      this.waiters.delete(planned);
      throw error;
    }
    if (handle === null) {
      this.waiters.delete(planned);
      return { handle: '', outcome: null };
    }
    this.kick();
    const timer = setTimeout(() => settle(null), timeoutMs);
    timer.unref();
    const outcome = await done;
    clearTimeout(timer);
    this.waiters.delete(handle);
    return { handle, outcome };
  }

  /** A job ended (recorded): answer whoever waits for it, here or, when `awaited`, on another node. */
  settle(handle: string, outcome: JobOutcome, awaited: boolean): void {
    this.waiters.ended(handle, outcome, awaited);
  }

  /** A running job waits for another job: it gives up its worker slot meanwhile. */
  releaseWorkerSlot(): void {
    this.#blocked++;
  }

  retakeWorkerSlot(): void {
    this.#blocked--;
  }

  /** Look for queued jobs every pollMs besides the immediate wake-ups; hear of awaited jobs ended on other nodes. */
  startPolling(): void {
    this.#pollTimer = setInterval(() => this.kick(), this.#deps.settings.pollMs);
    this.#pollTimer.unref();
    this.waiters.listen();
  }

  /** Stop hearing of jobs ended elsewhere (once the jobs of this node, which may wait for them, are drained). */
  stopWaiting(): void {
    this.waiters.stop();
  }

  stopPolling(): void {
    if (this.#pollTimer) clearInterval(this.#pollTimer);
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
  }
}

/** The error parts of a job that a trigger error made (20 §12.7): the trigger's input is not shown. */
function triggerErrorParts(adapter: string | null, errorType: string, message: string, at: string): string {
  return JSON.stringify({
    adapter,
    error_type: errorType,
    message,
    error_id: randomUUID(),
    error_at: at,
    input: '<redacted>',
    inner_message: null,
  });
}
