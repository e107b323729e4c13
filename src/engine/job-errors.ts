// How a job run stops early: a cancel, a bound of the job reached, a failed step on its way to the
// nearest try, a stop step, a lookup the run must make before it goes on.
import { type CompiledStep } from './compile.ts';
import { type Hash } from '../recipe/formula/values.ts';

/** A cancel request seen between steps: ends the job; `try` does not catch it. */
export class CancelJob extends Error {
  override name = 'CancelJob';
}

/** A job past one of its bounds: ends the job failed; `try` does not catch it. */
export class JobLimitReached extends Error {
  override name = 'JobLimitReached';
  readonly errorType: string;
  constructor(errorType: string, message: string) {
    super(message);
    this.errorType = errorType;
  }
}

/** A failed step, on its way up to the nearest try or to the job. */
export class StepFailure extends Error {
  override name = 'StepFailure';
  readonly step: CompiledStep;
  readonly adapter: string;
  readonly errorType: string;
  readonly inner: string | null;
  constructor(step: CompiledStep, adapter: string, errorType: string, message: string, inner: string | null) {
    super(message);
    this.step = step;
    this.adapter = adapter;
    this.errorType = errorType;
    this.inner = inner;
  }
}

/** The stop keyword: ends the job, with or without error. Not an error: try does not catch it. */
export class StopJob extends Error {
  override name = 'StopJob';
  readonly reason: string | null;
  readonly step: CompiledStep;
  constructor(step: CompiledStep, reason: string | null) {
    super(reason ?? 'stopped');
    this.step = step;
    this.reason = reason;
  }
}

/** A `lookup()` whose row has not been read yet; never leaves `Run.evaluate` except from a trigger filter. */
export class NeedLookup extends Error {
  override name = 'NeedLookup';
  readonly key: string;
  readonly table: string;
  readonly criteria: Hash;
  readonly source: 'lookup_table' | 'data_table';
  constructor(key: string, table: string, criteria: Hash, source: 'lookup_table' | 'data_table') {
    super('lookup() cannot be used in a trigger filter');
    this.key = key;
    this.table = table;
    this.criteria = criteria;
    this.source = source;
  }
}
