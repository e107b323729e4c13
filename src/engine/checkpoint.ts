// A job stopped at a workflow task: what it recorded so far (its checkpoint), and how it resumes.
import { type SuspendJob } from './connectors/types.ts';
import type { LineRecord } from '../recipe/job-outcome.ts';

/** What a step produced, as kept in a checkpoint: its output, or the error it failed with. */
export type RecordedOutcome = { o: unknown } | { e: { type: string; message: string; inner: string | null } };

/**
 * Where a job stopped at a workflow task: the outcomes of the action steps that ran before it, in
 * the order they ran (steps of job-memory connectors such as variables are run again instead), and
 * the counts of what was recorded. The job is resumed by running it again from the start with
 * these outcomes in place of the steps (src/engine/README.md, "Workflow tasks").
 */
export interface Checkpoint {
  outcomes: RecordedOutcome[];
  lineCount: number;
  linesDropped: number;
  taskCount: number;
}

/** A job that stopped at a workflow task: the task to create and the checkpoint to resume from. */
export interface JobSuspension {
  status: 'waiting';
  step: number;
  task: SuspendJob['task'];
  checkpoint: Checkpoint;
  lines: LineRecord[];
  firstSeq: number;
}

/** A job resumed from a checkpoint: its outcomes, then the outcome of the task step it stopped at. */
export interface Resume {
  checkpoint: Checkpoint;
  taskOutcome: RecordedOutcome;
}
