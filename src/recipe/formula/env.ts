// What one evaluation runs with: the environment (datapill values, lookups, the clock, the zone)
// and its budget (steps, wall time, sizes of what it builds).
import type { Pill } from '../datapills.ts';
import { FormulaError } from './errors.ts';
import type { Hash, Value } from './values.ts';

export interface Limits {
  /** Evaluation steps per formula evaluation. */
  maxSteps: number;
  /** Wall-clock budget per evaluation, in milliseconds. */
  maxMillis: number;
  /** Longest string a formula may build. */
  maxStringLength: number;
  /** Most elements in a list (or keys in a hash) a formula may build. */
  maxListLength: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxSteps: 100_000,
  maxMillis: 1_000,
  maxStringLength: 5_000_000,
  maxListLength: 100_000,
};

export class Budget {
  private steps = 0;
  private readonly deadline: number;
  readonly limits: Limits;
  constructor(limits: Limits = DEFAULT_LIMITS) {
    this.limits = limits;
    this.deadline = Date.now() + limits.maxMillis;
  }
  tick(cost = 1): void {
    const before = this.steps;
    this.steps += cost;
    if (this.steps > this.limits.maxSteps)
      throw new FormulaError(`formula exceeded its budget of ${this.limits.maxSteps} steps`);
    // The clock is read every 256 steps: whenever the count passes a multiple of 256, so that a
    // method on a long string or list (which costs many steps at once) is never let through unread.
    if (before >>> 8 !== this.steps >>> 8 && Date.now() > this.deadline)
      throw new FormulaError(`formula ran longer than ${this.limits.maxMillis} ms`);
  }
}

export interface FormulaEnv {
  resolvePill(pill: Pill): Value;
  /** First row of a lookup table (or, `data_table`, record of a data table) matching the criteria (column name -> value), or null. */
  lookup(table: string, criteria: Hash, source?: 'lookup_table' | 'data_table'): Hash | null;
  /** Milliseconds since the epoch. */
  now(): number;
  /** Zone of `now` and `today`. */
  timeZone: string;
  budget: Budget;
}
