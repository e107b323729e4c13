// What an engine is built with: its options, resolved once with their defaults.
import type { ServiceContext } from '../context.ts';
import type { BacklogLimits } from './backlog.ts';
import { DEFAULT_TIME_ZONE } from './connectors/clock.ts';
import type { EngineLimits } from './connectors/types.ts';
import { DEFAULT_LIMITS, type Limits } from '../recipe/formula/env.ts';
import type { JobLimits } from './job-bounds.ts';

export interface EngineOptions {
  /** Jobs running at once in this process, all recipes together. */
  workers?: number;
  /** Zone of `now`/`today` in formulas (the vendor's default is US Pacific). */
  timeZone?: string;
  formulaLimits?: Limits;
  limits?: Partial<EngineLimits>;
  /** How often queued jobs are looked for besides the immediate wake-ups (ms). */
  pollMs?: number;
  /** How often polling triggers poll (ms; default TRIGGER_POLL_SECONDS). */
  triggerPollMs?: number;
  /** How long a claim on a running job holds unless renewed (NODE_LEASE_MS). */
  leaseMs?: number;
  /** How often a caller's wait for a job's answer re-reads the job, should a job.ended notice be missed (ms). */
  waitRecheckMs?: number;
  /** Bounds of one job (default JOB_MAX_STEPS, JOB_MAX_REPLAY_BYTES). */
  jobLimits?: Partial<JobLimits>;
  /** How long a job runs before it lets the event loop take a turn (ms). */
  jobSliceMs?: number;
  /** false: schedules fire only when runDueSchedules is called (tests that move a manual clock). */
  scheduleTimer?: boolean;
  /** The running recipes' triggers are armed at start once this resolves (tests hold the arming with it). */
  armAfter?: Promise<unknown>;
}

/** What formulas evaluated outside a job's steps (trigger inputs, trigger filters) need. */
export interface FormulaSettings {
  now(): number;
  timeZone: string;
  formulaLimits: Limits;
}

export interface EngineSettings extends FormulaSettings {
  workers: number;
  limits: EngineLimits;
  pollMs: number;
  /** How often polling triggers (rest/new_poll_event) poll. */
  triggerPollMs: number;
  /** A running job's claim holds this long; renewed every third of it (several nodes: a dead node's jobs are recovered after it). */
  leaseMs: number;
  /** A caller waiting for a job's end reads the job again this often (a missed job.ended notice costs at most this). */
  waitRecheckMs: number;
  /** Pending jobs beyond which webhooks and API calls are refused (JOB_BACKLOG_PER_RECIPE, JOB_BACKLOG_PER_WORKSPACE). */
  backlog: BacklogLimits;
  jobLimits: JobLimits;
  /** How long a job runs before it waits for a turn of the event loop (src/engine/turns.ts). */
  jobSliceMs: number;
  scheduleTimer: boolean;
}

// Code steps: 30 s and 128 MB each (the vendor allows 30 s and 256 MB for JavaScript steps).
const DEFAULT_ENGINE_LIMITS: EngineLimits = {
  callTimeoutMs: 90_000,
  httpTimeoutMs: 30_000,
  httpMaxResponseBytes: 10 * 1024 * 1024,
  maxWaitSeconds: 732 * 86400,
  codeTimeoutMs: 30_000,
  // A connector step's requests and its waits on 429/503 (Retry-After) together.
  connectorStepMs: 120_000,
  codeMemoryBytes: 128 * 1024 * 1024,
  modelTimeoutMs: 120_000,
  modelMaxResponseBytes: 4 * 1024 * 1024,
};

export function engineSettings(ctx: ServiceContext, options: EngineOptions): EngineSettings {
  return {
    workers: options.workers ?? 16,
    timeZone: options.timeZone ?? DEFAULT_TIME_ZONE,
    formulaLimits: options.formulaLimits ?? DEFAULT_LIMITS,
    limits: { ...DEFAULT_ENGINE_LIMITS, modelTimeoutMs: ctx.config.modelTimeoutMs, ...options.limits },
    pollMs: options.pollMs ?? 1000,
    triggerPollMs: options.triggerPollMs ?? ctx.config.triggerPollSeconds * 1000,
    leaseMs: options.leaseMs ?? ctx.config.nodeLeaseMs,
    waitRecheckMs: options.waitRecheckMs ?? 1000,
    backlog: { perRecipe: ctx.config.jobBacklogPerRecipe, perWorkspace: ctx.config.jobBacklogPerWorkspace },
    jobLimits: {
      maxSteps: options.jobLimits?.maxSteps ?? ctx.config.jobMaxSteps,
      maxReplayBytes: options.jobLimits?.maxReplayBytes ?? ctx.config.jobMaxReplayBytes,
    },
    // A request waits behind at most one slice of jobs per turn of the loop it needs.
    jobSliceMs: options.jobSliceMs ?? 5,
    scheduleTimer: options.scheduleTimer ?? true,
    now: () => ctx.clock.now().getTime(),
  };
}
