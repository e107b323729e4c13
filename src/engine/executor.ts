// Runs one job: the trigger's event through the recipe's steps. Keywords are an exhaustive map
// over the Keyword union (the compiler refuses a keyword without a handler). Each executed step
// becomes a line with its input, output, error and timing: "what happened" is data.
import type { ServiceContext } from '../context.ts';
import { type CompiledRecipe, type CompiledStep, type Keyword } from './compile.ts';
import { testCondition } from './conditions.ts';
import { lookupForFormula } from './connectors/lookup_table.ts';
import { dataTableLookupForFormula } from './connectors/workato_db_table.ts';
import {
  EndJob,
  StepError,
  SuspendJob,
  type ConnectionValues,
  type EngineLimits,
  type RecipeRef,
  type StepContext,
} from './connectors/types.ts';
import { listKey, type Pill } from '../recipe/datapills.ts';
import { FormulaError } from '../recipe/formula/errors.ts';
import { Budget, type Limits } from '../recipe/formula/env.ts';
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
import { evaluateInput, type InputEnv } from './inputs.ts';
import { coerceHash } from './schema.ts';
import type { LineRecord, JobOutcome, TestMode } from '../recipe/job-outcome.ts';
import { LineValues } from './line-data.ts';
import type { RecordedOutcome, JobSuspension, Resume } from './checkpoint.ts';
import { CancelJob, JobLimitReached, StepFailure, StopJob, NeedLookup } from './job-errors.ts';
import { JobMeter, type JobBounds } from './job-bounds.ts';

export interface JobSpec {
  ctx: ServiceContext;
  recipe: RecipeRef;
  compiled: CompiledRecipe;
  handle: string;
  /** Output of the trigger (line 0), already computed from the stored event. */
  triggerOutput: Value;
  jobContext: Hash;
  properties: ReadonlyMap<string, string>;
  timeZone: string;
  formulaLimits: Limits;
  limits: EngineLimits;
  /** The bounds of the whole job (steps run, outcomes kept for a resume) and its turns on the event loop. */
  job?: JobBounds;
  connectionFor(provider: string): Promise<ConnectionValues | null>;
  sleep(ms: number): Promise<void>;
  callRecipe: StepContext['callRecipe'];
  waitForCalls?: StepContext['waitForCalls'];
  eventStreams: StepContext['eventStreams'];
  /** Milliseconds since the epoch (the injected clock). */
  now(): number;
  /** A test case's job: mocked steps give their mock instead of running (their input is still evaluated). */
  test?: TestMode;
  /** Whether the job was canceled: checked before each step; the job then ends failed (`Canceled`). */
  canceled?: () => boolean;
  /** Sandboxes for code steps. */
  sandboxes?: StepContext['sandboxes'];
  /** Run again from a checkpoint (a job that waited for a workflow task). */
  resume?: Resume;
  /** Told of data table records written by steps. */
  dataTables?: StepContext['dataTables'];
}

const MAX_RECORDED_LINES = 5000;
export const MAX_REPEAT_ITERATIONS = 50_000;

export class Run {
  readonly spec: JobSpec;
  readonly outputs = new Map<string, Value>();
  readonly bindings = new Map<string, Value>();
  readonly lines: LineRecord[] = [];
  linesDropped = 0;
  readonly lineValues = new LineValues();
  taskCount = 0;
  pass: number | null = null;
  /** Answers of `lookup()` during one `evaluate`; null outside one (a trigger filter). */
  lookups: Map<string, Hash | null> | null = null;
  /** Outcomes of the action steps so far, in order (the checkpoint when the job stops at a task). */
  readonly outcomes: RecordedOutcome[] = [];
  /** The outcomes to replay (resume), and how many were replayed. */
  readonly replay: RecordedOutcome[] | null;
  replayed = 0;
  readonly firstSeq: number;
  /** Steps run, outcome bytes kept and turns on the event loop, against the job's bounds. */
  readonly meter: JobMeter;
  constructor(spec: JobSpec) {
    this.spec = spec;
    this.meter = new JobMeter(spec.job);
    const resume = spec.resume;
    this.replay = resume ? [...resume.checkpoint.outcomes, resume.taskOutcome] : null;
    this.firstSeq = resume ? resume.checkpoint.lineCount : 0;
    if (resume) {
      this.linesDropped = resume.checkpoint.linesDropped;
      this.taskCount = resume.checkpoint.taskCount;
    }
  }

  /**
   * Replaying: the steps before the task step the job resumes at. They were recorded when they
   * ran; now they give their recorded outcome, record no line and count no task.
   */
  get quiet(): boolean {
    return this.replay !== null && this.replayed < this.replay.length;
  }

  /** The recorded outcome of the next action step while replaying; undefined once live. */
  nextReplayed(): RecordedOutcome | undefined {
    if (!this.quiet) return undefined;
    return (this.replay as RecordedOutcome[])[this.replayed++];
  }

  env(): InputEnv {
    return {
      bindings: this.bindings,
      resolvePill: (pill) => this.resolvePill(pill),
      lookup: (table, criteria, source) => this.cachedLookup(table, criteria, source ?? 'lookup_table'),
      now: () => this.spec.now(),
      timeZone: this.spec.timeZone,
      budget: new Budget(this.spec.formulaLimits),
    };
  }

  /**
   * `lookup()` reads the database, which is asynchronous, while formulas are evaluated
   * synchronously: a lookup whose answer is not known yet stops the evaluation (NeedLookup);
   * `evaluate` fetches the row and evaluates again from the start, with the answers so far.
   */
  cachedLookup(table: string, criteria: Hash, source: 'lookup_table' | 'data_table'): Hash | null {
    const key = JSON.stringify([source, table, toPlain(criteria)]);
    const cache = this.lookups;
    if (cache?.has(key)) return cache.get(key) ?? null;
    throw new NeedLookup(key, table, criteria, source);
  }

  /** Evaluate formulas that may call `lookup()` (at most MAX_LOOKUPS distinct lookups). */
  async evaluate<T>(fn: () => T): Promise<T> {
    const cache = new Map<string, Hash | null>();
    this.lookups = cache;
    try {
      for (;;) {
        try {
          return fn();
        } catch (error) {
          if (!(error instanceof NeedLookup)) throw error;
          if (cache.size >= MAX_LOOKUPS)
            throw new FormulaError(`a step may make at most ${MAX_LOOKUPS} different lookup() calls`);
          const lookup = error.source === 'data_table' ? dataTableLookupForFormula : lookupForFormula;
          cache.set(error.key, await lookup(this.spec.ctx, this.spec.recipe, error.table, error.criteria));
          this.lookups = cache;
        }
      }
    } finally {
      this.lookups = null;
    }
  }

  resolvePill(pill: Pill): Value {
    if (pill.type === 'account_property') return this.spec.properties.get(pill.name) ?? null;
    if (pill.type === 'job_context') {
      let v: Value = this.spec.jobContext;
      for (const key of pill.path) v = isHash(v) ? hashGet(v, key) : null;
      return v;
    }
    let v: Value = this.outputs.get(pill.line) ?? null;
    for (let i = 0; i < pill.path.length; i++) {
      const element = pill.path[i];
      if (typeof element === 'string') v = isHash(v) ? hashGet(v, element) : null;
      else if (element?.kind === 'current_item') {
        if (Array.isArray(v)) {
          const key = listKey(pill.line, pill.path.slice(0, i));
          v = this.bindings.has(key) ? (this.bindings.get(key) as Value) : (v[0] ?? null);
        }
      } else if (element?.kind === 'size') {
        v = Array.isArray(v) ? v.length : isHash(v) ? Object.keys(v).length : typeof v === 'string' ? v.length : 0;
      }
    }
    return v;
  }

  record(
    step: CompiledStep,
    adapter: string,
    operation: string,
    started: number,
    input: Value | undefined,
    output: Value | undefined,
    error: string | null,
  ): void {
    if (this.quiet) return;
    if (this.firstSeq + this.lines.length >= MAX_RECORDED_LINES) {
      this.linesDropped++;
      return;
    }
    const mask = step.maskData;
    this.lines.push({
      recipe_line_number: step.number,
      adapter_name: adapter,
      adapter_operation: operation,
      pass: this.pass,
      ...this.lineValues.of(step.number, mask, input, output),
      error,
      mask_data: mask,
      started_at: started,
      completed_at: this.spec.now(),
    });
  }

  async block(steps: readonly CompiledStep[]): Promise<void> {
    for (const step of steps) {
      if (step.skip) continue;
      const pause = this.tick();
      if (pause) await pause;
      if (this.spec.canceled?.()) throw new CancelJob('the job was canceled');
      await HANDLERS[step.keyword](step, this);
    }
  }

  /** One more step or pass (JobMeter.tick): a promise to await when the job's slice is over. */
  tick(): Promise<void> | undefined {
    return this.meter.tick();
  }

  /** Keep a step's outcome for a resume, within the job's bound (JobMeter.keeps). */
  keepOutcome(outcome: RecordedOutcome): void {
    if (this.meter.keeps(outcome)) this.outcomes.push(outcome);
  }

  /** Evaluate something a control step needs; its failure is that step's error. */
  async control<T>(step: CompiledStep, started: number, evaluate: () => T): Promise<T> {
    try {
      return await this.evaluate(evaluate);
    } catch (error) {
      const failure = asFailure(step, 'workato', error);
      this.record(step, 'workato', step.keyword, started, undefined, undefined, failure.message);
      throw failure;
    }
  }
}

/** Most distinct `lookup()` calls in the formulas of one step (P). */
export const MAX_LOOKUPS = 100;

function asFailure(step: CompiledStep, adapter: string, error: unknown): StepFailure {
  if (error instanceof StepFailure) return error;
  if (error instanceof StepError)
    return new StepFailure(step, adapter, error.errorType, error.message, error.innerMessage);
  if (error instanceof FormulaError) return new StepFailure(step, adapter, 'Formula error', error.message, null);
  if (error instanceof RangeError)
    return new StepFailure(step, adapter, 'Formula error', 'the value is too large or too deeply nested', null);
  return new StepFailure(
    step,
    adapter,
    'Internal error',
    'the step failed unexpectedly',
    error instanceof Error ? error.message.slice(0, 500) : null,
  );
}

async function runAction(step: CompiledStep, run: Run): Promise<void> {
  const started = run.spec.now();
  const adapter = step.provider ?? 'workato';
  const operation = step.name ?? 'action';
  const action = step.action;
  let input: Value | undefined;
  let replayed: RecordedOutcome | undefined;
  try {
    const evaluated = await run.evaluate(() => evaluateInput(step.input, run.env()));
    input = isHash(evaluated) ? coerceHash(evaluated, step.inputSchema) : newHash();
    const sc: StepContext = {
      ctx: run.spec.ctx,
      recipe: run.spec.recipe,
      jobHandle: run.spec.handle,
      outputs: run.outputs,
      connection: () => run.spec.connectionFor(adapter),
      sleep: run.spec.sleep,
      callRecipe: run.spec.callRecipe,
      ...(run.spec.waitForCalls ? { waitForCalls: run.spec.waitForCalls } : {}),
      limits: run.spec.limits,
      eventStreams: run.spec.eventStreams,
      ...(run.spec.sandboxes ? { sandboxes: run.spec.sandboxes } : {}),
      properties: run.spec.properties,
      ...(run.spec.dataTables ? { dataTables: run.spec.dataTables } : {}),
    };
    const test = run.spec.test;
    const mock = test
      ? ((step.as !== null ? test.mocks.get(step.as) : undefined) ?? test.mocks.get(`#${step.number}`))
      : undefined;
    // Steps that only touch the job's memory (variables) run again when a job is resumed; others
    // give the outcome they had (their effects happened once).
    replayed = step.connector?.jobMemoryOnly ? undefined : run.nextReplayed();
    let output: Value;
    if (replayed) {
      if ('e' in replayed) throw new StepError(replayed.e.type, replayed.e.message, replayed.e.inner);
      output = fromPlain(replayed.o);
    } else if (mock) {
      if ('error' in mock) throw new StepError(mock.error.type, mock.error.message);
      output = mock.output;
    } else {
      if (test && !test.allowExternal && (action?.reachesOutside ?? step.connector?.reachesOutside ?? true)) {
        throw new StepError(
          'Test error',
          `step ${step.number} (${adapter}: ${operation}) would reach a system outside Switchboard: mock it, or set allow_external`,
        );
      }
      if (!action) throw new StepError('Bad request', `no action ${operation} in ${adapter}`);
      output = await action.run(input as Hash, sc);
    }
    if (!step.connector?.jobMemoryOnly) run.keepOutcome(replayed ?? { o: toPlain(output) });
    if (!run.quiet) run.taskCount++;
    if (step.as !== null) run.outputs.set(step.as, output);
    run.record(step, adapter, operation, started, input, output, null);
  } catch (error) {
    if (error instanceof JobLimitReached) throw error;
    if (error instanceof SuspendJob) {
      error.step = step.number;
      throw error;
    }
    if (error instanceof EndJob) {
      run.taskCount++;
      run.record(step, adapter, operation, started, input, error.value, null);
      throw error;
    }
    const failure = asFailure(step, adapter, error);
    // A step whose input was evaluated has an outcome (a failed evaluation happens again on replay).
    if (input !== undefined && !step.connector?.jobMemoryOnly)
      run.keepOutcome(replayed ?? { e: { type: failure.errorType, message: failure.message, inner: failure.inner } });
    if (failure.errorType === 'Internal error')
      run.spec.ctx.log.error(
        { err: error, recipe_id: run.spec.recipe.id, job_id: run.spec.handle, step: step.number },
        'recipe step failed unexpectedly',
      );
    run.record(step, adapter, operation, started, input, undefined, failure.message);
    throw failure;
  }
}

type Handler = (step: CompiledStep, run: Run) => Promise<void>;

const HANDLERS: Record<Keyword, Handler> = {
  trigger: async (step, run) => run.block(step.block),
  action: runAction,
  if: async (step, run) => {
    const started = run.spec.now();
    if (
      await run.control(step, started, () =>
        testCondition(step.condition ?? { k: 'group', op: 'and', items: [] }, run.env()),
      )
    ) {
      await run.block(step.block);
      return;
    }
    for (const branch of step.branches) {
      if (branch.skip) continue;
      const ok =
        branch.keyword === 'else' ||
        (await run.control(branch, run.spec.now(), () =>
          testCondition(branch.condition ?? { k: 'group', op: 'and', items: [] }, run.env()),
        ));
      if (ok) {
        await run.block(branch.block);
        return;
      }
    }
  },
  // Branches run through their `if`; standing alone they are refused by the compiler.
  elsif: async () => undefined,
  else: async () => undefined,
  while_condition: async () => undefined,
  catch: async () => undefined,
  foreach: async (step, run) => {
    const started = run.spec.now();
    const source = await run.control(step, started, () => {
      const v = step.source ? evaluateInput(step.source, run.env()) : null;
      if (v === null) return [] as Value[];
      if (!Array.isArray(v))
        throw new StepError(
          'Bad request',
          `the source of a repeat must be a list, not ${toRubyString(v).slice(0, 40) || 'a value'}`,
        );
      return [...v];
    });
    const batches: Value[][] = step.batchSize ? chunk(source, step.batchSize) : source.map((item) => [item]);
    const outerPass = run.pass;
    const previousBinding = step.sourceKey === null ? undefined : run.bindings.get(step.sourceKey);
    try {
      for (let i = 0; i < batches.length; i++) {
        const items = batches[i] as Value[];
        const pause = run.tick();
        if (pause) await pause;
        if (step.clearScope) for (const alias of step.descendants) run.outputs.delete(alias);
        const current = step.batchSize
          ? newHash([
              ['batch', items],
              ['index', i],
            ])
          : (items[0] ?? null);
        if (step.as !== null) run.outputs.set(step.as, current);
        if (step.sourceKey !== null && !step.batchSize) run.bindings.set(step.sourceKey, items[0] ?? null);
        run.pass = i;
        await run.block(step.block);
      }
    } finally {
      run.pass = outerPass;
      if (step.sourceKey !== null) {
        if (previousBinding === undefined) run.bindings.delete(step.sourceKey);
        else run.bindings.set(step.sourceKey, previousBinding);
      }
    }
  },
  repeat: async (step, run) => {
    const outerPass = run.pass;
    try {
      for (let index = 0; ; index++) {
        if (index >= MAX_REPEAT_ITERATIONS) {
          const failure = new StepFailure(
            step,
            'workato',
            'Iteration limit',
            `repeat while ran ${MAX_REPEAT_ITERATIONS} times, the limit`,
            null,
          );
          run.record(step, 'workato', 'repeat', run.spec.now(), undefined, undefined, failure.message);
          throw failure;
        }
        const pause = run.tick();
        if (pause) await pause;
        if (step.as !== null)
          run.outputs.set(
            step.as,
            newHash([
              ['index', index],
              ['is_first', index === 0],
            ]),
          );
        run.pass = index;
        await run.block(step.block);
        const wc = step.whileCondition;
        if (!wc || wc.skip) return;
        if (
          !(await run.control(wc, run.spec.now(), () =>
            testCondition(wc.condition ?? { k: 'group', op: 'and', items: [] }, run.env()),
          ))
        )
          return;
      }
    } finally {
      run.pass = outerPass;
    }
  },
  try: async (step, run) => {
    const retries = step.catchStep?.retries?.count ?? 0;
    const interval = step.catchStep?.retries?.intervalSeconds ?? 0;
    for (let attempt = 0; ; attempt++) {
      try {
        await run.block(step.block);
        return;
      } catch (error) {
        if (!(error instanceof StepFailure)) throw error;
        if (attempt < retries) {
          if (interval > 0 && !run.quiet) await run.spec.sleep(interval * 1000);
          continue;
        }
        const catchStep = step.catchStep;
        if (!catchStep || catchStep.skip) return;
        const info = newHash([
          ['message', error.message],
          ['type', error.errorType],
          ['error_type', error.errorType],
          ['retry_count', attempt],
          ['errored_step_number', error.step.number],
          ['errored_app', error.adapter],
          ['errored_action', error.step.name ?? error.step.keyword],
          ['inner_message', error.inner],
        ]);
        if (catchStep.as !== null) run.outputs.set(catchStep.as, info);
        await run.block(catchStep.block);
        return;
      }
    }
  },
  stop: async (step, run) => {
    const started = run.spec.now();
    const input = await run.control(step, started, () => evaluateInput(step.input, run.env()));
    const withError =
      (isHash(input) &&
        ['true', 't', 'yes', '1'].includes(toRubyString(hashGet(input, 'stop_with_error')).toLowerCase())) ||
      (isHash(input) && hashGet(input, 'stop_with_error') === true);
    const reason = withError ? toRubyString(hashGet(input as Hash, 'stop_reason')) || 'Job stopped with error' : null;
    run.record(step, 'workato', 'stop', started, input, null, reason);
    throw new StopJob(step, reason);
  },
};

function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export async function runJob(spec: JobSpec): Promise<JobOutcome | JobSuspension> {
  const run = new Run(spec);
  const trigger = spec.compiled.trigger;
  const triggerStarted = spec.now();
  if (trigger.as !== null) run.outputs.set(trigger.as, spec.triggerOutput);
  run.record(
    trigger,
    trigger.provider ?? 'workato',
    trigger.name ?? 'trigger',
    triggerStarted,
    undefined,
    spec.triggerOutput,
    null,
  );
  const done = (
    status: 'succeeded' | 'failed',
    error: string | null,
    parts: JobOutcome['errorParts'],
    end: JobOutcome['end'] = null,
  ): JobOutcome => ({
    status,
    error,
    errorParts: parts,
    lines: run.lines,
    linesDropped: run.linesDropped,
    taskCount: run.taskCount,
    end,
    firstSeq: run.firstSeq,
  });
  try {
    await HANDLERS.trigger(trigger, run);
    return done('succeeded', null, null);
  } catch (error) {
    if (error instanceof SuspendJob) {
      return {
        status: 'waiting',
        step: error.step,
        task: error.task,
        lines: run.lines,
        firstSeq: run.firstSeq,
        checkpoint: {
          outcomes: run.outcomes,
          lineCount: run.firstSeq + run.lines.length,
          linesDropped: run.linesDropped,
          taskCount: run.taskCount,
        },
      };
    }
    const at = new Date(spec.now()).toISOString();
    if (error instanceof EndJob) return done('succeeded', null, null, { kind: error.kind, value: error.value });
    // The job's own end (not a step's): the adapter is `workato`, no inner message.
    const own = (type: string, message: string) =>
      ({
        adapter: 'workato',
        error_type: type,
        message,
        error_at: at,
        input: '<redacted>',
        inner_message: null,
      }) as const;
    if (error instanceof JobLimitReached)
      return done('failed', `${error.errorType}: ${error.message}`, own(error.errorType, error.message));
    if (error instanceof CancelJob)
      return done('failed', 'Canceled: the job was canceled', own('Canceled', 'the job was canceled'));
    if (error instanceof StopJob) {
      if (error.reason === null) return done('succeeded', null, null);
      return done('failed', error.reason, own('Stop job', error.reason));
    }
    if (error instanceof StepFailure) {
      return done('failed', `${error.errorType}: ${error.message}`, {
        adapter: error.adapter,
        error_type: error.errorType,
        message: error.message,
        error_at: at,
        input: '<redacted>',
        inner_message: error.inner,
      });
    }
    spec.ctx.log.error({ err: error, recipe_id: spec.recipe.id, job_id: spec.handle }, 'job failed unexpectedly');
    return done(
      'failed',
      'Internal error: the job failed unexpectedly',
      own('Internal error', 'the job failed unexpectedly'),
    );
  }
}
