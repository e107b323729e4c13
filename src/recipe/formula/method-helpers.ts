// What the method table (methods.ts) is built from: argument readers, conversions, and the helpers
// of methods too long to write inline.
import { FormulaError } from './errors.ts';
import type { FormulaEnv } from './env.ts';
import {
  CLEAR,
  RDate,
  RFloat,
  RTime,
  SKIP,
  hashGet,
  isHash,
  isNumeric,
  newHash,
  numOf,
  toPlain,
  typeName,
  compareValues,
  rubyEquals,
  toRubyString,
  type Hash,
  type Value,
} from './values.ts';
import { fromLocal, isValidZone } from './zones.ts';
import { dateOfTime, parseDate, parseTime } from './dates.ts';
import { regexFrom, regexSubject } from './regex-safety.ts';

export type Method = (recv: Value, args: Value[], env: FormulaEnv) => Value;

// ---------- shared helpers ----------

export function blank(v: Value): boolean {
  if (v === null || v === false || v === SKIP || v === CLEAR) return true;
  if (typeof v === 'string') return v.trim() === '';
  if (Array.isArray(v)) return v.length === 0;
  if (isHash(v)) return Object.keys(v).length === 0;
  return false;
}

/** Highest code point each single-byte target encoding can hold. */
const SINGLE_BYTE: Record<string, number> = {
  ASCII: 0x7f,
  'US-ASCII': 0x7f,
  'ISO-8859-1': 0xff,
  'ISO8859-1': 0xff,
  LATIN1: 0xff,
};
const UNICODE = new Set(['UTF-8', 'UTF8']);

/**
 * Ruby's String#encode(target, invalid: :replace, undef: :replace, replace: '?'): text stays text
 * (JavaScript strings are Unicode); towards ASCII or Latin-1 a character the target lacks raises,
 * unless `undef`/`invalid` is `replace`, then it becomes `replace` ('?' by default).
 */
export function encodeString(s: string, args: Value[]): string {
  const last = args[args.length - 1];
  const options = isHash(last) ? last : undefined;
  const targetArg = args[0];
  const target = typeof targetArg === 'string' ? targetArg.toUpperCase() : 'UTF-8';
  const option = (key: string) => {
    const v = options ? hashGet(options, key) : undefined;
    return typeof v === 'string' ? v : undefined;
  };
  if (UNICODE.has(target)) return s.toWellFormed();
  const limit = SINGLE_BYTE[target];
  if (limit === undefined)
    throw new FormulaError(`encode: unknown encoding ${targetArg === undefined ? '' : toRubyString(targetArg)}`);
  const replacing = option('undef') === 'replace' || option('invalid') === 'replace';
  const replacement = option('replace') ?? '?';
  let out = '';
  for (const ch of s) {
    if ((ch.codePointAt(0) ?? 0) <= limit) out += ch;
    else if (replacing) out += replacement;
    else throw new FormulaError(`encode: ${JSON.stringify(ch)} cannot be represented in ${target}`);
  }
  return out;
}

export function str(recv: Value, name: string): string {
  if (typeof recv !== 'string') throw new FormulaError(`undefined method '${name}' for ${typeName(recv)}`);
  return recv;
}
export function list(recv: Value, name: string): Value[] {
  if (!Array.isArray(recv)) throw new FormulaError(`undefined method '${name}' for ${typeName(recv)}`);
  return recv;
}
export function hash(recv: Value, name: string): Hash {
  if (!isHash(recv)) throw new FormulaError(`undefined method '${name}' for ${typeName(recv)}`);
  return recv;
}
export function num(recv: Value, name: string): number | RFloat {
  if (!isNumeric(recv)) throw new FormulaError(`undefined method '${name}' for ${typeName(recv)}`);
  return recv;
}
export function intArg(v: Value | undefined, name: string, fallback?: number): number {
  if (v === undefined && fallback !== undefined) return fallback;
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (v instanceof RFloat) return Math.trunc(v.v);
  throw new FormulaError(`${name}: expected an integer argument, got ${typeName(v ?? null)}`);
}
export function strArg(v: Value | undefined, name: string, fallback?: string): string {
  if (v === undefined && fallback !== undefined) return fallback;
  if (typeof v === 'string') return v;
  throw new FormulaError(`${name}: expected a string argument, got ${typeName(v ?? null)}`);
}
/** The trailing keyword-argument hash, if any. */
export function options(args: Value[]): Hash {
  const last = args[args.length - 1];
  return isHash(last ?? null) ? (last as Hash) : newHash();
}

/** Ruby's String#to_i / #to_f: the leading number, else 0. */
export function leadingNumber(s: string, float: boolean): number {
  const match = float ? /^\s*[-+]?(\d[\d_]*)?(\.\d+)?([eE][-+]?\d+)?/.exec(s) : /^\s*[-+]?\d[\d_]*/.exec(s);
  const text = match?.[0]?.replace(/_/g, '').trim() ?? '';
  const n = Number(text);
  return text === '' || text === '+' || text === '-' || Number.isNaN(n) ? 0 : n;
}

// ---------- regular expression arguments ----------

export function regexArg(v: Value | undefined, name: string, global = false): RegExp {
  if (v instanceof RegExp) return regexFrom(v.source, v.flags.includes('i') ? 'i' : '', global);
  if (typeof v === 'string') return new RegExp(v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), global ? 'g' : '');
  throw new FormulaError(`${name}: expected a string or a regular expression`);
}

// ---------- date, time and zone arguments ----------

const RAILS_ZONES: Record<string, string> = {
  'Pacific Time (US & Canada)': 'America/Los_Angeles',
  'Mountain Time (US & Canada)': 'America/Denver',
  'Central Time (US & Canada)': 'America/Chicago',
  'Eastern Time (US & Canada)': 'America/New_York',
  London: 'Europe/London',
  Paris: 'Europe/Paris',
  Berlin: 'Europe/Berlin',
  Tokyo: 'Asia/Tokyo',
  Singapore: 'Asia/Singapore',
  Sydney: 'Australia/Sydney',
  UTC: 'UTC',
};

export function zoneArg(v: Value | undefined): string {
  const name = strArg(v, 'in_time_zone');
  const zone = RAILS_ZONES[name] ?? name;
  if (!isValidZone(zone)) throw new FormulaError(`unknown time zone ${JSON.stringify(name).slice(0, 60)}`);
  return zone;
}

export function asTime(v: Value, env: FormulaEnv, name: string): RTime {
  if (v instanceof RTime) return v;
  if (v instanceof RDate) return new RTime(fromLocal(v.y, v.m, v.d, 0, 0, 0, 0, env.timeZone), env.timeZone);
  if (typeof v === 'string') return parseTime(v, env.timeZone);
  throw new FormulaError(`undefined method '${name}' for ${typeName(v)}`);
}

export function asDate(v: Value, env: FormulaEnv, name: string): RDate {
  if (v instanceof RDate) return v;
  if (v instanceof RTime) return dateOfTime(v);
  if (typeof v === 'string') return parseDate(v, undefined, env.timeZone);
  throw new FormulaError(`undefined method '${name}' for ${typeName(v)}`);
}

// ---------- the table ----------

export function first(recv: Value, args: Value[]): Value {
  const l = list(recv, 'first');
  if (args.length === 0) return l[0] ?? null;
  return l.slice(0, Math.max(0, intArg(args[0], 'first')));
}

export function last(recv: Value, args: Value[]): Value {
  const l = list(recv, 'last');
  if (args.length === 0) return l[l.length - 1] ?? null;
  const n = Math.max(0, intArg(args[0], 'last'));
  return n === 0 ? [] : l.slice(-n);
}

export function length(recv: Value, name: string): number {
  if (typeof recv === 'string') return [...recv].length;
  if (Array.isArray(recv)) return recv.length;
  if (isHash(recv)) return Object.keys(recv).length;
  throw new FormulaError(`undefined method '${name}' for ${typeName(recv)}`);
}

export function includes(recv: Value, x: Value | undefined): boolean {
  if (typeof recv === 'string') return recv.includes(strArg(x, 'include?'));
  if (Array.isArray(recv)) return recv.some((item) => rubyEquals(item, x ?? null));
  if (isHash(recv)) return Object.hasOwn(recv, toRubyString(x ?? null));
  throw new FormulaError(`undefined method 'include?' for ${typeName(recv)}`);
}

export function index(recv: Value, args: Value[]): Value {
  if (typeof recv === 'string') {
    const a = args[0];
    if (typeof a === 'number' || a instanceof RFloat) {
      const chars = [...recv];
      let start = Math.trunc(numOf(a));
      if (start < 0) start += chars.length;
      if (args.length > 1) {
        const len = intArg(args[1], '[]');
        if (start < 0 || start > chars.length || len < 0) return null;
        return chars.slice(start, start + len).join('');
      }
      return start < 0 || start >= chars.length ? null : (chars[start] as string);
    }
    if (a instanceof RegExp) return regexSubject(recv).match(a)?.[0] ?? null;
    if (typeof a === 'string') return recv.includes(a) ? a : null;
    throw new FormulaError(`no implicit conversion of ${typeName(a ?? null)} into Integer`);
  }
  if (Array.isArray(recv)) {
    let i = intArg(args[0], '[]');
    if (i < 0) i += recv.length;
    if (args.length > 1) {
      const len = intArg(args[1], '[]');
      if (i < 0 || i > recv.length || len < 0) return null;
      return recv.slice(i, i + len);
    }
    return recv[i] ?? null;
  }
  if (isHash(recv)) return hashGet(recv, toRubyString(args[0] ?? null));
  if (recv === null) throw new FormulaError("undefined method '[]' for nil");
  throw new FormulaError(`undefined method '[]' for ${typeName(recv)}`);
}

/** `where` conditions: 'field' or 'field op' keys; a list value means "one of"; a regex matches. */
export function rowMatches(row: Value, criteria: Hash): boolean {
  if (!isHash(row)) return false;
  return Object.keys(criteria).every((rawKey) => {
    const expected = criteria[rawKey] as Value;
    const m = /^(.*?)\s*(==|!=|>=|<=|>|<)?$/.exec(rawKey.trim()) as RegExpExecArray;
    const field = m[1] as string;
    const op = m[2] ?? '==';
    const actual = hashGet(row, field);
    if (op === '==' || op === '!=') {
      let ok: boolean;
      if (Array.isArray(expected)) ok = expected.some((e) => rubyEquals(actual, e));
      else if (expected instanceof RegExp) ok = typeof actual === 'string' && expected.test(regexSubject(actual));
      else ok = rubyEquals(actual, expected);
      return op === '==' ? ok : !ok;
    }
    if (actual === null || expected === null) return false;
    const c = compareValues(actual, expected, op);
    return op === '>' ? c > 0 : op === '<' ? c < 0 : op === '>=' ? c >= 0 : c <= 0;
  });
}

export function titleize(s: string): string {
  return s
    .replace(/_id$/, '')
    .replace(/_/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase()
    .replace(/\b([a-z])/g, (c) => c.toUpperCase());
}

export function toJson(v: Value): string {
  return JSON.stringify(toPlain(v)) ?? 'null';
}

export function sumOf(l: Value[]): Value {
  let total = 0 as number | RFloat;
  for (const item of l) {
    if (!isNumeric(item)) throw new FormulaError(`sum: ${typeName(item)} can't be added to a number`);
    total = item instanceof RFloat || total instanceof RFloat ? new RFloat(numOf(total) + numOf(item)) : total + item;
  }
  return total;
}

export function extreme(l: Value[], sign: 1 | -1): Value {
  let best: Value = null;
  for (const item of l) if (best === null || compareValues(item, best) * sign > 0) best = item;
  return best;
}

export function flatten(l: Value[], depth: number): Value[] {
  const out: Value[] = [];
  for (const item of l) {
    if (Array.isArray(item) && depth > 0) out.push(...flatten(item, depth - 1));
    else out.push(item);
  }
  return out;
}

export function round(recv: Value, args: Value[]): Value {
  const n = num(recv, 'round');
  const digits = args.length > 0 ? intArg(args[0], 'round') : 0;
  const factor = 10 ** digits;
  // Ruby rounds half away from zero.
  const v = numOf(n);
  const rounded = (Math.sign(v) * Math.round(Math.abs(v) * factor + Number.EPSILON)) / factor;
  if (digits > 0) return n instanceof RFloat || !Number.isInteger(v) ? new RFloat(rounded) : v;
  return Math.trunc(rounded);
}

export function currency(recv: Value, args: Value[]): string {
  const value = isNumeric(recv) ? numOf(recv) : typeof recv === 'string' ? leadingNumber(recv, true) : NaN;
  if (Number.isNaN(value)) throw new FormulaError(`undefined method 'to_currency' for ${typeName(recv)}`);
  const o = options(args);
  const unit = typeof hashGet(o, 'unit') === 'string' ? (hashGet(o, 'unit') as string) : '$';
  const precision = hashGet(o, 'precision') === null ? 2 : intArg(hashGet(o, 'precision'), 'to_currency');
  const separator = typeof hashGet(o, 'separator') === 'string' ? (hashGet(o, 'separator') as string) : '.';
  const delimiter = typeof hashGet(o, 'delimiter') === 'string' ? (hashGet(o, 'delimiter') as string) : ',';
  const [whole, frac] = Math.abs(value)
    .toFixed(Math.max(0, Math.min(precision, 20)))
    .split('.');
  const grouped = (whole as string).replace(/\B(?=(\d{3})+(?!\d))/g, delimiter);
  return `${value < 0 ? '-' : ''}${unit}${grouped}${frac ? separator + frac : ''}`;
}

export function ordinalize(n: number): string {
  const abs = Math.abs(n) % 100;
  const suffix =
    abs >= 11 && abs <= 13 ? 'th' : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[abs % 10] ?? 'th');
  return `${n}${suffix}`;
}

export function toParam(h: Hash, prefix?: string): string[] {
  const out: string[] = [];
  for (const key of Object.keys(h).sort()) {
    const v = h[key] as Value;
    const name = prefix ? `${prefix}[${key}]` : key;
    if (isHash(v)) out.push(...toParam(v, name));
    else if (Array.isArray(v))
      for (const item of v) out.push(`${encodeURIComponent(`${name}[]`)}=${encodeURIComponent(toRubyString(item))}`);
    else out.push(`${encodeURIComponent(name)}=${encodeURIComponent(toRubyString(v))}`);
  }
  return out;
}

export function splitString(s: string, sep: Value | undefined): string[] {
  let parts: string[];
  if (sep === undefined || sep === null || sep === ' ')
    parts = s
      .trim()
      .split(/\s+/)
      .filter((p) => p !== '');
  else if (sep instanceof RegExp)
    parts = regexSubject(s).split(regexFrom(sep.source, sep.flags.includes('i') ? 'i' : ''));
  else parts = s.split(strArg(sep, 'split'));
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

export function replaceWith(
  s: string,
  pattern: Value | undefined,
  replacement: Value | undefined,
  global: boolean,
): string {
  const subject = regexSubject(s);
  if (isHash(replacement ?? null)) {
    const map = replacement as Hash;
    return subject.replace(regexArg(pattern, 'gsub', global), (m) => toRubyString(hashGet(map, m)));
  }
  const repl = strArg(replacement, global ? 'gsub' : 'sub')
    .replace(/\$/g, '$$$$')
    .replace(/\\\\/g, '\u0000')
    .replace(/\\([0-9])/g, (_m, d: string) => (d === '0' ? '$&' : `$${d}`))
    .replace(/\\&/g, '$&')
    .replace(/\u0000/g, '\\');
  return subject.replace(regexArg(pattern, global ? 'gsub' : 'sub', global), repl);
}
