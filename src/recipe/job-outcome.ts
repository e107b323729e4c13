// What a job of a recipe ends as (its lines, its error, what it returned), and the mocks of a test job:
// the words the engine and the test runner share.
import { fromPlain, toPlain, type Value } from './formula/values.ts';

export interface LineRecord {
  recipe_line_number: number;
  adapter_name: string;
  adapter_operation: string;
  pass: number | null;
  input: string | null;
  output: string | null;
  /** Input or output over 100,000 characters, whole (the line's own is then its size only). */
  whole?: { input?: string; output?: string };
  error: string | null;
  mask_data: boolean;
  started_at: number;
  completed_at: number;
}

export interface ErrorParts {
  adapter: string;
  error_type: string;
  message: string;
  error_id: string;
  error_at: string;
  input: '<redacted>';
  inner_message: string | null;
}

export interface JobOutcome {
  status: 'succeeded' | 'failed';
  error: string | null;
  errorParts: Omit<ErrorParts, 'error_id'> | null;
  lines: LineRecord[];
  linesDropped: number;
  taskCount: number;
  /** Set when the job ended through return_response / return_result, with what it returned. */
  end: { kind: 'response' | 'result'; value: Value } | null;
  /** The sequence number of the first of `lines` (lines before it were stored when the job stopped at a task). */
  firstSeq: number;
}

/** What a job returned as its row keeps it (jobs.reply): JSON `{kind, value}`, or null when it returned nothing. */
export function replyText(end: JobOutcome['end']): string | null {
  return end === null ? null : JSON.stringify({ kind: end.kind, value: toPlain(end.value) });
}

/** The end a job's stored reply describes (replyText's inverse). */
export function replyOf(text: string | null): JobOutcome['end'] {
  if (text === null) return null;
  const { kind, value } = JSON.parse(text) as { kind: 'response' | 'result'; value: unknown };
  return { kind, value: fromPlain(value) };
}

/** A step's mock: its output, or the error it fails with. */
export type StepMock = { output: Value } | { error: { type: string; message: string } };

export interface TestMode {
  /** Mocks by step: its alias (`as`) or `#<number>`. */
  mocks: ReadonlyMap<string, StepMock>;
  /** Whether an unmocked step may reach a system outside Switchboard. */
  allowExternal: boolean;
}
