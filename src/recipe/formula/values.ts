// The values a formula works with: JSON values plus the few Ruby types the formula language has
// (floats kept apart from integers, dates, times with a zone, durations, regular expressions).
import { FormulaError } from './errors.ts';
import { fromLocal, localParts, formatOffset } from './zones.ts';

/** A Ruby Float: kept apart from integers so that 7 / 2 is 3 and 7.0 / 2 is 3.5. */
export class RFloat {
  readonly v: number;
  constructor(v: number) {
    this.v = v;
  }
}

/** A calendar date (Ruby Date). */
export class RDate {
  readonly y: number;
  readonly m: number;
  readonly d: number;
  constructor(y: number, m: number, d: number) {
    // Normalise overflowing days/months through UTC arithmetic.
    const t = new Date(Date.UTC(y, m - 1, d));
    this.y = t.getUTCFullYear();
    this.m = t.getUTCMonth() + 1;
    this.d = t.getUTCDate();
  }
  get utcMs(): number {
    return Date.UTC(this.y, this.m - 1, this.d);
  }
  toString(): string {
    return `${pad(this.y, 4)}-${pad(this.m, 2)}-${pad(this.d, 2)}`;
  }
}

/** An instant shown in a time zone (ActiveSupport::TimeWithZone). */
export class RTime {
  readonly ms: number;
  readonly zone: string;
  constructor(ms: number, zone: string) {
    this.ms = ms;
    this.zone = zone;
  }
  toString(): string {
    const p = localParts(this.ms, this.zone);
    return `${pad(p.y, 4)}-${pad(p.m, 2)}-${pad(p.d, 2)}T${pad(p.h, 2)}:${pad(p.mi, 2)}:${pad(p.s, 2)}.${pad(p.ms, 3)}${formatOffset(p.offsetMinutes, true)}`;
  }
}

/** A length of time (ActiveSupport::Duration): seconds, or calendar months for month/year units. */
export class RDuration {
  readonly seconds: number;
  readonly months: number;
  constructor(seconds: number, months: number) {
    this.seconds = seconds;
    this.months = months;
  }
}

/** Formula results that are instructions rather than values (contract 20 §5.1). */
export const SKIP: unique symbol = Symbol('skip');
export const CLEAR: unique symbol = Symbol('clear');

export type Hash = { [key: string]: Value };
export type Value =
  | null
  | boolean
  | number
  | string
  | RFloat
  | RDate
  | RTime
  | RDuration
  | RegExp
  | Value[]
  | Hash
  | typeof SKIP
  | typeof CLEAR;

export function pad(n: number, width: number): string {
  const s = String(Math.abs(n)).padStart(width, '0');
  return n < 0 ? `-${s}` : s;
}

export function isHash(v: unknown): v is Hash {
  return (
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    !(v instanceof RFloat) &&
    !(v instanceof RDate) &&
    !(v instanceof RTime) &&
    !(v instanceof RDuration) &&
    !(v instanceof RegExp)
  );
}

export function isNumeric(v: unknown): v is number | RFloat {
  return typeof v === 'number' || v instanceof RFloat;
}

export function numOf(v: number | RFloat): number {
  return typeof v === 'number' ? v : v.v;
}

/** Own keys only: a formula never reaches an object's prototype. */
export function hashGet(h: Hash, key: string): Value {
  return Object.hasOwn(h, key) ? (h[key] as Value) : null;
}

export function hashSet(h: Hash, key: string, value: Value): void {
  // A plain assignment is an own, enumerable, writable property like defineProperty's, at a tenth
  // of the cost, for every key but `__proto__`, whose assignment would set the prototype instead.
  if (key === '__proto__')
    Object.defineProperty(h, key, { value, enumerable: true, writable: true, configurable: true });
  else h[key] = value;
}

export function newHash(entries: Iterable<readonly [string, Value]> = []): Hash {
  const h: Hash = {};
  for (const [k, v] of entries) hashSet(h, k, v);
  return h;
}

/** Ruby's class name, for error messages. */
export function typeName(v: Value): string {
  if (v === null) return 'nil';
  if (typeof v === 'boolean') return v ? 'TrueClass' : 'FalseClass';
  if (typeof v === 'number') return Number.isInteger(v) ? 'Integer' : 'Float';
  if (typeof v === 'string') return 'String';
  if (v instanceof RFloat) return 'Float';
  if (v instanceof RDate) return 'Date';
  if (v instanceof RTime) return 'Time';
  if (v instanceof RDuration) return 'Duration';
  if (v instanceof RegExp) return 'Regexp';
  if (Array.isArray(v)) return 'Array';
  if (v === SKIP || v === CLEAR) return 'Symbol';
  return 'Hash';
}

/** The plain JSON form of a value, as it is stored in step inputs and outputs. */
export function toPlain(v: Value): unknown {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (v instanceof RFloat) return Number.isFinite(v.v) ? v.v : null;
  if (v instanceof RDate || v instanceof RTime) return v.toString();
  if (v instanceof RDuration) return v.seconds + v.months * 30 * 86400;
  if (v instanceof RegExp) return v.source;
  if (v === SKIP || v === CLEAR) return null;
  if (Array.isArray(v)) return v.map(toPlain);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(v)) {
    const plain = toPlain(v[key] as Value);
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: plain, enumerable: true, writable: true, configurable: true });
    else out[key] = plain;
  }
  return out;
}

/** Largest nesting of objects and arrays accepted in an inbound event (webhook, API call). */
export const MAX_EVENT_DEPTH = 100;

/** How deeply JSON text nests its objects and arrays (counted without parsing it). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return max;
}

/** Whether objects and arrays nest deeper than `max` levels, measured without recursion. */
export function nestedDeeperThan(root: object, max: number): boolean {
  const pending: Array<[unknown, number]> = [[root, 1]];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const [value, depth] = item;
    if (depth > max) return true;
    for (const inner of Object.values(value as object)) {
      if (typeof inner === 'object' && inner !== null) pending.push([inner, depth + 1]);
    }
  }
  return false;
}

/** JSON data (a trigger event, a step output) as formula values: numbers with a fraction become floats. */
export function fromPlain(v: unknown): Value {
  if (v === null || v === undefined) return null;
  if (typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'number') return v;
  if (Array.isArray(v)) return v.map(fromPlain);
  if (v instanceof RFloat || v instanceof RDate || v instanceof RTime || v instanceof RDuration || v instanceof RegExp)
    return v;
  if (typeof v === 'object') {
    const out: Hash = {};
    for (const key of Object.keys(v)) hashSet(out, key, fromPlain((v as Record<string, unknown>)[key]));
    return out;
  }
  return null;
}

// ---------- Ruby's view of values: to_s, ==, <=>, truthiness ----------

export function toRubyString(v: Value): string {
  if (v === null || v === SKIP || v === CLEAR) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(v);
  if (v instanceof RFloat) return Number.isInteger(v.v) ? `${v.v}.0` : String(v.v);
  if (v instanceof RDate || v instanceof RTime) return v.toString();
  if (v instanceof RDuration) return String(v.seconds + v.months * 2_629_746);
  if (v instanceof RegExp) return v.source;
  return JSON.stringify(toPlain(v));
}

export function rubyEquals(a: Value, b: Value): boolean {
  if (isNumeric(a) && isNumeric(b)) return numOf(a) === numOf(b);
  if (a === null || b === null) return a === b;
  if (typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (a instanceof RDate && b instanceof RDate) return a.utcMs === b.utcMs;
  if (a instanceof RTime && b instanceof RTime) return a.ms === b.ms;
  if (a instanceof RDuration && b instanceof RDuration) return a.seconds === b.seconds && a.months === b.months;
  if (a instanceof RegExp && b instanceof RegExp) return a.source === b.source && a.flags === b.flags;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => rubyEquals(x, b[i] as Value));
  if (isHash(a) && isHash(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && rubyEquals(a[k] as Value, b[k] as Value));
  }
  return false;
}

export function compareValues(a: Value, b: Value, op = '<=>'): number {
  if (isNumeric(a) && isNumeric(b)) return Math.sign(numOf(a) - numOf(b));
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (a instanceof RDate && b instanceof RDate) return Math.sign(a.utcMs - b.utcMs);
  if (a instanceof RTime && b instanceof RTime) return Math.sign(a.ms - b.ms);
  if (a instanceof RTime && b instanceof RDate) return Math.sign(a.ms - fromLocal(b.y, b.m, b.d, 0, 0, 0, 0, a.zone));
  if (a instanceof RDate && b instanceof RTime) return Math.sign(fromLocal(a.y, a.m, a.d, 0, 0, 0, 0, b.zone) - b.ms);
  throw new FormulaError(`comparison of ${typeName(a)} with ${typeName(b)} failed (${op})`);
}

export function checkSize(v: Value, limits: { maxStringLength: number; maxListLength: number }): void {
  if (typeof v === 'string' && v.length > limits.maxStringLength)
    throw new FormulaError(`string longer than ${limits.maxStringLength} characters`);
  if (Array.isArray(v) && v.length > limits.maxListLength)
    throw new FormulaError(`list longer than ${limits.maxListLength} items`);
}

export function isTrue(v: Value): boolean {
  if (v === true) return true;
  if (isNumeric(v)) return numOf(v) === 1;
  if (typeof v === 'string') return ['true', 't', 'yes', 'y', '1'].includes(v.trim().toLowerCase());
  return false;
}
