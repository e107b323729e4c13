// One claimed job from start to record: its context (the recipe, the trigger output, the
// job_context pills, properties, connections), its run by the executor, then its lines, its end
// state and the recipe's counters written in one transaction, and its lifecycle events.
import { randomUUID } from 'node:crypto';
import type { ServiceContext } from '../context.ts';
import type { JobLineRow, JobRow, RecipeRow } from '../db/types.ts';
import { insertLineValues, insertLines, type LineValueRow } from '../api/jobs/queue.store.ts';
import {
  recordJobEnds,
  recordJobEndsAlone,
  type JobEnd,
  type JobEndAndClaim,
  type SuccessorClaim,
} from '../api/jobs/job-ends.store.ts';
import { resolveSlot } from './connection-slots.ts';
import {
  StepError,
  type CalledJob,
  type CallOutcome,
  type ConnectionValues,
  type RecipeRef,
} from './connectors/types.ts';
import type { EventStreamsRuntime } from './connectors/workato_pub_sub.ts';
import type { EngineEventBus } from './events.ts';
import { runJob } from './executor.ts';
import { type Checkpoint, type JobSuspension, type Resume } from './checkpoint.ts';
import { replyText, type JobOutcome, type TestMode } from '../recipe/job-outcome.ts';
import type { CompiledRecipe } from './compile.ts';
import { insertTask, latestTaskOfJob, markJobWaiting } from '../api/workflow_tasks/workflow_tasks.store.ts';
import { fromPlain, newHash, type Hash, type Value } from '../recipe/formula/values.ts';
import { outputOf, type SuccessorOf } from './queue.ts';
import type { RecipeCache } from './recipe-cache.ts';
import type { EngineSettings } from './settings.ts';
import { toStored } from '../time.ts';
import type { CodeSandboxes } from './connectors/types.ts';
import type { RecordListener } from '../api/data_tables/data_tables.service.ts';
import { isRetryableConflict, storageFailureOf } from '../db/dialect.ts';
import type { MergedWrite } from '../db/group-commit.ts';
import type { Turns } from './turns.ts';

/** How often the end of a job is written again while the storage refuses writes. */
const RECORD_RETRY_MS = 1000;

/** The queue's claim of a successor, made in the transaction of a job's record, and what it claimed. */
interface Handoff {
  successor: SuccessorOf;
  claimed: SuccessorClaim;
}

/** A job's end and its successor's claim, recorded together with the other ends of a batch. */
const JOB_ENDS: MergedWrite<JobEndAndClaim, SuccessorClaim> = { write: recordJobEnds, writeAlone: recordJobEndsAlone };

const usesTasksMemo = new WeakMap<CompiledRecipe, boolean>();

/** Whether a recipe has workflow task steps (only its jobs can have a checkpoint to resume from). */
function usesTasks(recipe: CompiledRecipe): boolean {
  let uses = usesTasksMemo.get(recipe);
  if (uses === undefined) {
    uses = [...recipe.steps.values()].some((step) => step.provider === 'workato_workflow_task');
    usesTasksMemo.set(recipe, uses);
  }
  return uses;
}

export interface JobRunnerDeps {
  ctx: ServiceContext;
  /** The jobs' turns on the event loop (one line for every job of the process). */
  turns: Turns;
  settings: EngineSettings;
  cache: RecipeCache;
  events: EngineEventBus;
  /** Aborted when the server shuts down: waits in steps end with `Interrupted`. */
  shutdown: AbortSignal;
  callRecipe(caller: RecipeRow, job: JobRow, flow: Value, parameters: Value, wait: boolean): Promise<CallOutcome>;
  /** Wait for the jobs a job started (wait_for_async_jobs). */
  waitForCalls(job: JobRow, timeoutMs: number, sleep: (ms: number) => Promise<void>): Promise<CalledJob[]>;
  /** The job ended and is recorded: answer whoever waits for it (on another node when `job.awaited`). */
  settle(job: Pick<JobRow, 'handle' | 'awaited'>, outcome: JobOutcome): void;
  /** Whether a cancel was asked for this running job. */
  isCanceled(handle: string): boolean;
  /** Sandboxes for code steps. */
  sandboxes: CodeSandboxes;
  /** Told of data table records written by steps (real-time data table triggers). */
  dataTables: RecordListener;
}

export class JobRunner {
  readonly #deps: JobRunnerDeps;
  /** The event streams runtime of the app (publish actions use its publisher); set by buildApp. */
  eventStreams: EventStreamsRuntime | null = null;
  // The lines of a job mostly start and end within the same few milliseconds: each distinct
  // millisecond is formatted once.
  #lastMs = Number.NaN;
  #lastIso = '';
  /** The jobs this process runs now, by handle (a cancel request reaches the node running the job). */
  readonly running = new Set<string>();

  constructor(deps: JobRunnerDeps) {
    this.#deps = deps;
  }

  /**
   * Run a job the queue claimed and record it; the claim of its successor (`successor`) is made in
   * the transaction of the record, and what it claimed comes back once that transaction committed
   * (nothing when the job was not recorded: a stopped recipe, a workflow task to wait for, an error).
   */
  async runQueued(job: JobRow, successor: SuccessorOf): Promise<SuccessorClaim> {
    const handoff: Handoff = { successor, claimed: { jobs: [], contended: false } };
    try {
      await this.run(job, undefined, handoff);
    } catch (error) {
      // Jobs claimed by a committed record are handed back whatever happened after it.
      if (handoff.claimed.jobs.length === 0) throw error;
      this.#deps.ctx.log.error({ err: error, job_id: job.handle }, 'job failed after it was recorded');
    }
    return handoff.claimed;
  }

  /**
   * Run a claimed job to its end and record it. A test case's job (`test`) runs the recipe given
   * (running or not) with the test's mocks; its stored trigger output is the trigger's output as
   * the steps see it. Returns the outcome, or undefined when the recipe stopped meanwhile.
   */
  async run(
    job: JobRow,
    test?: { row: RecipeRow; mode: TestMode },
    handoff?: Handoff,
  ): Promise<JobOutcome | undefined> {
    this.running.add(job.handle);
    try {
      return await this.#run(job, test, handoff);
    } finally {
      this.running.delete(job.handle);
    }
  }

  async #run(
    job: JobRow,
    test: { row: RecipeRow; mode: TestMode } | undefined,
    handoff: Handoff | undefined,
  ): Promise<JobOutcome | undefined> {
    const { ctx, settings, cache, events } = this.#deps;
    const { now } = settings;
    const startedAt = Date.parse(job.started_at);
    events.emit('job.started', { recipeId: job.recipe_id, jobId: job.handle });
    const row = test ? test.row : await cache.runningRow(job.recipe_id);
    let outcome: JobOutcome;
    if (!row) return undefined;
    await cache.prepare(row);
    const { recipe } = cache.compiledFor(row);
    if (!recipe) {
      outcome = this.#failedOutcome('Recipe error', 'the recipe does not compile any more');
    } else {
      let triggerOutput: Value;
      try {
        const stored = fromPlain(JSON.parse(job.trigger_output));
        triggerOutput = test ? stored : outputOf(recipe, stored as Hash);
      } catch {
        triggerOutput = null;
      }
      const scope = { workspaceId: row.workspace_id, environmentId: row.environment_id };
      const connections = new Map<string, Promise<ConnectionValues | null>>();
      const ref: RecipeRef = { id: row.id, name: row.name, ...scope };
      const resume = test ? undefined : await this.#resumePoint(job, recipe);
      const result = await runJob({
        ctx,
        recipe: ref,
        compiled: recipe,
        handle: job.handle,
        triggerOutput,
        jobContext: newHash([
          ['job_id', job.handle],
          ['job_url', `${ctx.config.publicBaseUrl}/api/recipes/${row.id}/jobs/${job.handle}`],
          ['recipe_id', row.id],
          ['recipe_name', row.name],
          ['recipe_url', `${ctx.config.publicBaseUrl}/api/recipes/${row.id}`],
          ['job_created_at', job.created_at],
          ['job_started_at', job.started_at],
          ['user_id', row.workspace_id],
          ['is_test', job.is_test === 1],
          ['is_repeat', job.is_repeat === 1],
          ['repeat_count', 0],
          ['root_recipe_id', job.root_recipe_id ?? row.id],
          ['root_job_id', job.root_job_handle ?? job.handle],
          ['calling_recipe_id', job.calling_recipe_id],
          ['calling_job_id', job.calling_job_handle],
        ]),
        properties: await cache.propertiesOf(row),
        timeZone: settings.timeZone,
        formulaLimits: settings.formulaLimits,
        limits: settings.limits,
        job: { ...settings.jobLimits, turns: this.#deps.turns, keepOutcomes: usesTasks(recipe) },
        connectionFor: (provider) => {
          let pending = connections.get(provider);
          if (!pending) {
            pending = resolveSlot(ctx, row, recipe.config, provider, scope);
            connections.set(provider, pending);
          }
          return pending;
        },
        sleep: (ms) => this.#sleep(ms),
        now,
        callRecipe: (flow, parameters, wait) => this.#deps.callRecipe(row, job, flow, parameters, wait),
        waitForCalls: (timeoutMs) => this.#deps.waitForCalls(job, timeoutMs, (ms) => this.#sleep(ms)),
        eventStreams: this.eventStreams,
        ...(test ? { test: test.mode } : {}),
        canceled: () => this.#deps.isCanceled(job.handle),
        sandboxes: this.#deps.sandboxes,
        ...(resume ? { resume } : {}),
        dataTables: this.#deps.dataTables,
      });
      if (result.status === 'waiting') {
        await this.#suspend(job, row, result);
        return undefined;
      }
      outcome = result;
    }
    try {
      await this.#recordOnceWritable(job, row, outcome, handoff);
    } finally {
      this.#deps.settle(job, outcome);
    }
    const durationMs = Math.max(0, now() - startedAt);
    if (outcome.status === 'succeeded')
      events.emit('job.succeeded', { recipeId: job.recipe_id, jobId: job.handle, durationMs });
    else
      events.emit('job.failed', {
        recipeId: job.recipe_id,
        jobId: job.handle,
        durationMs,
        error: outcome.error ?? '',
        interrupted: false,
      });
    return outcome;
  }

  /** The checkpoint of a job whose workflow task ended: it runs again from there. */
  async #resumePoint(job: JobRow, recipe: CompiledRecipe): Promise<Resume | undefined> {
    if (!usesTasks(recipe)) return undefined;
    const task = await latestTaskOfJob(this.#deps.ctx.db, job.id);
    if (!task || task.status === 'open' || task.result === null) return undefined;
    return {
      checkpoint: JSON.parse(task.checkpoint) as Checkpoint,
      taskOutcome: { o: JSON.parse(task.result) as unknown },
    };
  }

  /**
   * The job stopped at a workflow task: its lines so far, the task (with the checkpoint) and the
   * job's `waiting` status in one transaction. It holds no worker from here on.
   */
  async #suspend(job: JobRow, row: RecipeRow, suspension: JobSuspension): Promise<void> {
    const { ctx } = this.#deps;
    const lines = this.#lineRows(job, suspension.lines, suspension.firstSeq);
    const { task } = suspension;
    const values = this.#lineValues(job, suspension.lines, suspension.firstSeq);
    await ctx.groupCommit.run(async (trx) => {
      await insertLines(trx, lines);
      await insertLineValues(trx, values);
      await insertTask(trx, {
        workspace_id: row.workspace_id,
        environment_id: row.environment_id,
        recipe_id: row.id,
        job_id: job.id,
        step_number: suspension.step,
        name: task.name,
        assignee: task.assignee,
        record_id: task.recordId,
        status: 'open',
        task_type: task.taskType,
        form_fields: JSON.stringify(task.formFields),
        checkpoint: JSON.stringify(suspension.checkpoint),
        result: null,
        completed_by: null,
        created_at: toStored(ctx.clock.now()),
        expires_at: task.expiresAt,
        completed_at: null,
      });
      await markJobWaiting(trx, job.id, suspension.checkpoint.taskCount);
    });
  }

  /** The lines' values too large for the lines themselves, kept whole beside them. */
  #lineValues(job: JobRow, lines: JobOutcome['lines'], firstSeq: number): LineValueRow[] {
    const values: LineValueRow[] = [];
    lines.forEach((line, i) => {
      for (const field of ['input', 'output'] as const) {
        const value = line.whole?.[field];
        if (value !== undefined) values.push({ job_id: job.id, seq: firstSeq + i, field, value });
      }
    });
    return values;
  }

  #lineRows(job: JobRow, lines: JobOutcome['lines'], firstSeq: number): JobLineRow[] {
    return lines.map((line, i) => ({
      job_id: job.id,
      seq: firstSeq + i,
      recipe_line_number: line.recipe_line_number,
      adapter_name: line.adapter_name.slice(0, 100),
      adapter_operation: line.adapter_operation.slice(0, 100),
      pass: line.pass,
      input: line.input,
      output: line.output,
      error: line.error,
      mask_data: line.mask_data ? 1 : 0,
      started_at: this.#isoAt(line.started_at),
      completed_at: this.#isoAt(line.completed_at),
    }));
  }

  #sleep(ms: number): Promise<void> {
    const signal = this.#deps.shutdown;
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(new StepError('Interrupted', 'the server is shutting down'));
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(new StepError('Interrupted', 'the server is shutting down'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  #isoAt(ms: number): string {
    if (ms !== this.#lastMs) {
      this.#lastMs = ms;
      this.#lastIso = new Date(ms).toISOString();
    }
    return this.#lastIso;
  }

  #failedOutcome(type: string, message: string): JobOutcome {
    return {
      status: 'failed',
      error: `${type}: ${message}`,
      lines: [],
      linesDropped: 0,
      taskCount: 0,
      end: null,
      firstSeq: 0,
      errorParts: {
        adapter: 'workato',
        error_type: type,
        message,
        error_at: new Date(this.#deps.settings.now()).toISOString(),
        input: '<redacted>',
        inner_message: null,
      },
    };
  }

  /**
   * A full or read-only disk keeps the job's end from being written: its steps have run, so the
   * outcome is kept and written again every RECORD_RETRY_MS until the storage takes it, rather than
   * leaving the job `running` until a restart. So does a conflict with other nodes' writes that
   * outlasted the group commit's own tries. A shutdown ends the tries (the next start marks the
   * job interrupted, as after a crash).
   */
  async #recordOnceWritable(
    job: JobRow,
    row: RecipeRow,
    outcome: JobOutcome,
    handoff: Handoff | undefined,
  ): Promise<void> {
    for (let tries = 1; ; tries++) {
      try {
        await this.#record(job, row, outcome, handoff);
        return;
      } catch (error) {
        if ((storageFailureOf(error) === undefined && !isRetryableConflict(error)) || this.#deps.shutdown.aborted)
          throw error;
        if (tries === 1)
          this.#deps.ctx.log.warn(
            { err: error, job_id: job.handle },
            'the end of a job could not be stored; trying again until the storage takes writes',
          );
      }
      await this.#sleep(RECORD_RETRY_MS).catch(() => undefined);
    }
  }

  async #record(job: JobRow, row: RecipeRow, outcome: JobOutcome, handoff: Handoff | undefined): Promise<void> {
    const { ctx } = this.#deps;
    const completed = toStored(ctx.clock.now());
    const lines = this.#lineRows(job, outcome.lines, outcome.firstSeq);
    // Large values go ahead of the end (which batches many jobs' ends in one statement); stored
    // again when the end is retried, they are kept once. Until the end is stored the job stays
    // running, so nothing shows them; retention deletes them with the job either way.
    const values = this.#lineValues(job, outcome.lines, outcome.firstSeq);
    if (values.length > 0) await ctx.groupCommit.run((trx) => insertLineValues(trx, values));
    // A test case's job is listed with the recipe's jobs but not counted in its production figures.
    const counters =
      job.is_test === 1
        ? null
        : {
            recipeId: row.id,
            succeeded: outcome.status === 'succeeded',
            taskCount: outcome.taskCount,
            lastRunAt: job.started_at,
          };
    const end: JobEnd = {
      id: job.id,
      lines,
      result: {
        status: outcome.status,
        error: outcome.error,
        error_parts: outcome.errorParts ? JSON.stringify({ ...outcome.errorParts, error_id: randomUUID() }) : null,
        completed_at: completed,
        task_count: outcome.taskCount,
        reply: replyText(outcome.end),
        recipe_version_no: row.version_no,
      },
      counters,
    };
    const claimed = await ctx.groupCommit.runMerged(JOB_ENDS, { end, successor: handoff?.successor() ?? null });
    if (handoff) handoff.claimed = claimed;
  }
}
