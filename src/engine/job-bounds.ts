// What bounds a job as a whole (src/engine/README.md, "Bounds of a job"): the steps it may run, the
// bytes of step outcomes it may keep to resume from, and its turns on the event loop (turns.ts).
import { JobLimitReached } from './job-errors.ts';
import type { RecordedOutcome } from './checkpoint.ts';
import type { Turns } from './turns.ts';

/** JOB_MAX_STEPS and JOB_MAX_REPLAY_BYTES. */
export interface JobLimits {
  /** Steps a job may run: every step started, every pass of a repeat or a foreach. */
  maxSteps: number;
  /** Bytes of step outcomes a job of a recipe with workflow tasks keeps to resume from (its checkpoint). */
  maxReplayBytes: number;
}

export interface JobBounds extends JobLimits {
  turns: Turns;
  /** Whether the recipe can stop at a workflow task: only then are the steps' outcomes kept. */
  keepOutcomes: boolean;
}

/** One job's count against its bounds; without bounds (a test job run in place) it counts nothing. */
export class JobMeter {
  readonly bounds: JobBounds | undefined;
  /** Steps started and passes begun so far, against maxSteps. */
  steps = 0;
  /** Bytes of the outcomes kept, as JSON, against maxReplayBytes. */
  outcomeBytes = 0;
  /** When this job last started running on the event loop (performance.now()). */
  sliceStart = performance.now();
  constructor(bounds: JobBounds | undefined) {
    this.bounds = bounds;
  }

  /**
   * One more step (or pass of a loop): counted against the job's bound, and when the job has run
   * for its slice, a wait for its next turn on the event loop (a promise to await; none otherwise).
   */
  tick(): Promise<void> | undefined {
    const bounds = this.bounds;
    if (!bounds) return undefined;
    this.steps += 1;
    if (this.steps > bounds.maxSteps)
      throw new JobLimitReached(
        'Step limit',
        `the job ran ${bounds.maxSteps} steps, the most a job may run (JOB_MAX_STEPS); a loop that never ends?`,
      );
    if (performance.now() - this.sliceStart < bounds.turns.sliceMs) return undefined;
    return bounds.turns.pause().then(() => {
      this.sliceStart = performance.now();
    });
  }

  /** Whether a step's outcome is kept for a resume (recipes with workflow tasks only), within the job's bound. */
  keeps(outcome: RecordedOutcome): boolean {
    const bounds = this.bounds;
    if (!bounds) return true;
    if (!bounds.keepOutcomes) return false;
    this.outcomeBytes += (JSON.stringify(outcome) ?? '').length;
    if (this.outcomeBytes > bounds.maxReplayBytes)
      throw new JobLimitReached(
        'Memory limit',
        `the outcomes of its steps, kept to resume it after a workflow task, passed ${bounds.maxReplayBytes} bytes (JOB_MAX_REPLAY_BYTES)`,
      );
    return true;
  }
}
