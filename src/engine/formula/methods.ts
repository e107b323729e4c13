// The formula methods (contract 20 §8.2), one table: name -> implementation. A method not in the
// table does not exist; calling it is an error, and a recipe using it does not start.
import { jsonShape, MAX_EVENT_CONTAINERS } from '../../json-shape.ts';
import { createHash } from 'node:crypto';
import { FormulaError } from './errors.ts';
import type { FormulaEnv } from './env.ts';
import {
  CLEAR,
  RDate,
  RDuration,
  RFloat,
  RTime,
  SKIP,
  hashGet,
  hashSet,
  isHash,
  isNumeric,
  MAX_EVENT_DEPTH,
  newHash,
  numOf,
  toPlain,
  typeName,
  fromPlain,
  compareValues,
  isTrue,
  rubyEquals,
  toRubyString,
  type Hash,
  type Value,
} from './values.ts';
import { fromLocal, isValidZone, localParts } from './zones.ts';
import {
  UNIT_SECONDS,
  addDuration,
  dateOfTime,
  endOf,
  parseDate,
  parseTime,
  parseWithFormat,
  startOf,
  strftime,
} from './dates.ts';
import { regexFrom, regexSubject } from './regex-safety.ts';

type Method = (recv: Value, args: Value[], env: FormulaEnv) => Value;

// ---------- shared helpers ----------

function blank(v: Value): boolean {
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
function encodeString(s: string, args: Value[]): string {
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

function str(recv: Value, name: string): string {
  if (typeof recv !== 'string') throw new FormulaError(`undefined method '${name}' for ${typeName(recv)}`);
  return recv;
}
function list(recv: Value, name: string): Value[] {
  if (!Array.isArray(recv)) throw new FormulaError(`undefined method '${name}' for ${typeName(recv)}`);
  return recv;
}
function hash(recv: Value, name: string): Hash {
  if (!isHash(recv)) throw new FormulaError(`undefined method '${name}' for ${typeName(recv)}`);
  return recv;
}
function num(recv: Value, name: string): number | RFloat {
  if (!isNumeric(recv)) throw new FormulaError(`undefined method '${name}' for ${typeName(recv)}`);
  return recv;
}
function intArg(v: Value | undefined, name: string, fallback?: number): number {
  if (v === undefined && fallback !== undefined) return fallback;
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (v instanceof RFloat) return Math.trunc(v.v);
  throw new FormulaError(`${name}: expected an integer argument, got ${typeName(v ?? null)}`);
}
function strArg(v: Value | undefined, name: string, fallback?: string): string {
  if (v === undefined && fallback !== undefined) return fallback;
  if (typeof v === 'string') return v;
  throw new FormulaError(`${name}: expected a string argument, got ${typeName(v ?? null)}`);
}
/** The trailing keyword-argument hash, if any. */
function options(args: Value[]): Hash {
  const last = args[args.length - 1];
  return isHash(last ?? null) ? (last as Hash) : newHash();
}

/** Ruby's String#to_i / #to_f: the leading number, else 0. */
function leadingNumber(s: string, float: boolean): number {
  const match = float ? /^\s*[-+]?(\d[\d_]*)?(\.\d+)?([eE][-+]?\d+)?/.exec(s) : /^\s*[-+]?\d[\d_]*/.exec(s);
  const text = match?.[0]?.replace(/_/g, '').trim() ?? '';
  const n = Number(text);
  return text === '' || text === '+' || text === '-' || Number.isNaN(n) ? 0 : n;
}

// ---------- regular expression arguments ----------

function regexArg(v: Value | undefined, name: string, global = false): RegExp {
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

function asTime(v: Value, env: FormulaEnv, name: string): RTime {
  if (v instanceof RTime) return v;
  if (v instanceof RDate) return new RTime(fromLocal(v.y, v.m, v.d, 0, 0, 0, 0, env.timeZone), env.timeZone);
  if (typeof v === 'string') return parseTime(v, env.timeZone);
  throw new FormulaError(`undefined method '${name}' for ${typeName(v)}`);
}

function asDate(v: Value, env: FormulaEnv, name: string): RDate {
  if (v instanceof RDate) return v;
  if (v instanceof RTime) return dateOfTime(v);
  if (typeof v === 'string') return parseDate(v, undefined, env.timeZone);
  throw new FormulaError(`undefined method '${name}' for ${typeName(v)}`);
}

// ---------- the table ----------

function first(recv: Value, args: Value[]): Value {
  const l = list(recv, 'first');
  if (args.length === 0) return l[0] ?? null;
  return l.slice(0, Math.max(0, intArg(args[0], 'first')));
}

function last(recv: Value, args: Value[]): Value {
  const l = list(recv, 'last');
  if (args.length === 0) return l[l.length - 1] ?? null;
  const n = Math.max(0, intArg(args[0], 'last'));
  return n === 0 ? [] : l.slice(-n);
}

function length(recv: Value, name: string): number {
  if (typeof recv === 'string') return [...recv].length;
  if (Array.isArray(recv)) return recv.length;
  if (isHash(recv)) return Object.keys(recv).length;
  throw new FormulaError(`undefined method '${name}' for ${typeName(recv)}`);
}

function includes(recv: Value, x: Value | undefined): boolean {
  if (typeof recv === 'string') return recv.includes(strArg(x, 'include?'));
  if (Array.isArray(recv)) return recv.some((item) => rubyEquals(item, x ?? null));
  if (isHash(recv)) return Object.hasOwn(recv, toRubyString(x ?? null));
  throw new FormulaError(`undefined method 'include?' for ${typeName(recv)}`);
}

function index(recv: Value, args: Value[]): Value {
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
function rowMatches(row: Value, criteria: Hash): boolean {
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

function titleize(s: string): string {
  return s
    .replace(/_id$/, '')
    .replace(/_/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase()
    .replace(/\b([a-z])/g, (c) => c.toUpperCase());
}

function toJson(v: Value): string {
  return JSON.stringify(toPlain(v)) ?? 'null';
}

function sumOf(l: Value[]): Value {
  let total = 0 as number | RFloat;
  for (const item of l) {
    if (!isNumeric(item)) throw new FormulaError(`sum: ${typeName(item)} can't be added to a number`);
    total = item instanceof RFloat || total instanceof RFloat ? new RFloat(numOf(total) + numOf(item)) : total + item;
  }
  return total;
}

function extreme(l: Value[], sign: 1 | -1): Value {
  let best: Value = null;
  for (const item of l) if (best === null || compareValues(item, best) * sign > 0) best = item;
  return best;
}

function flatten(l: Value[], depth: number): Value[] {
  const out: Value[] = [];
  for (const item of l) {
    if (Array.isArray(item) && depth > 0) out.push(...flatten(item, depth - 1));
    else out.push(item);
  }
  return out;
}

function round(recv: Value, args: Value[]): Value {
  const n = num(recv, 'round');
  const digits = args.length > 0 ? intArg(args[0], 'round') : 0;
  const factor = 10 ** digits;
  // Ruby rounds half away from zero.
  const v = numOf(n);
  const rounded = (Math.sign(v) * Math.round(Math.abs(v) * factor + Number.EPSILON)) / factor;
  if (digits > 0) return n instanceof RFloat || !Number.isInteger(v) ? new RFloat(rounded) : v;
  return Math.trunc(rounded);
}

function currency(recv: Value, args: Value[]): string {
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

function ordinalize(n: number): string {
  const abs = Math.abs(n) % 100;
  const suffix =
    abs >= 11 && abs <= 13 ? 'th' : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[abs % 10] ?? 'th');
  return `${n}${suffix}`;
}

function toParam(h: Hash, prefix?: string): string[] {
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

function splitString(s: string, sep: Value | undefined): string[] {
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

function replaceWith(s: string, pattern: Value | undefined, replacement: Value | undefined, global: boolean): string {
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

export const METHODS: Record<string, Method> = {
  // --- any value ---
  'present?': (r) => !blank(r),
  'blank?': (r) => blank(r),
  presence: (r) => (blank(r) ? null : r),
  'nil?': (r) => r === null,
  'empty?': (r) => length(r, 'empty?') === 0,
  'is_true?': (r) => isTrue(r),
  'is_not_true?': (r) => !isTrue(r),
  to_s: (r) => toRubyString(r),
  to_json: (r) => toJson(r),
  to_i: (r) => {
    if (r === null) return 0;
    if (typeof r === 'string') return Math.trunc(leadingNumber(r, false));
    if (isNumeric(r)) return Math.trunc(numOf(r));
    if (r instanceof RTime) return Math.floor(r.ms / 1000);
    if (typeof r === 'boolean') throw new FormulaError(`undefined method 'to_i' for ${typeName(r)}`);
    throw new FormulaError(`undefined method 'to_i' for ${typeName(r)}`);
  },
  to_f: (r) => {
    if (r === null) return new RFloat(0);
    if (typeof r === 'string') return new RFloat(leadingNumber(r, true));
    if (isNumeric(r)) return new RFloat(numOf(r));
    if (r instanceof RTime) return new RFloat(r.ms / 1000);
    throw new FormulaError(`undefined method 'to_f' for ${typeName(r)}`);
  },
  to_a: (r) =>
    r === null ? [] : Array.isArray(r) ? r : isHash(r) ? Object.keys(r).map((k) => [k, r[k] as Value]) : [r],
  length: (r) => length(r, 'length'),
  size: (r) => length(r, 'size'),
  '[]': (r, a) => index(r, a),
  'include?': (r, a) => includes(r, a[0]),
  'exclude?': (r, a) => !includes(r, a[0]),
  reverse: (r) => (typeof r === 'string' ? [...r].reverse().join('') : [...list(r, 'reverse')].reverse()),
  slice: (r, a) => {
    if (isHash(r))
      return newHash(
        a
          .map((k) => toRubyString(k))
          .filter((k) => Object.hasOwn(r, k))
          .map((k) => [k, r[k] as Value]),
      );
    return index(r, a);
  },
  parse_json: (r) => {
    const s = str(r, 'parse_json');
    const shape = jsonShape(s);
    if (shape.depth > MAX_EVENT_DEPTH)
      throw new FormulaError(`parse_json: the document is nested more than ${MAX_EVENT_DEPTH} levels deep`);
    if (shape.containers > MAX_EVENT_CONTAINERS)
      throw new FormulaError(`parse_json: the document holds more than ${MAX_EVENT_CONTAINERS} objects and lists`);
    try {
      return fromPlain(JSON.parse(s));
    } catch {
      throw new FormulaError('parse_json: the string is not valid JSON');
    }
  },

  // --- strings ---
  encode: (r, a) => encodeString(str(r, 'encode'), a),
  strip: (r) => str(r, 'strip').trim(),
  lstrip: (r) => str(r, 'lstrip').trimStart(),
  rstrip: (r) => str(r, 'rstrip').trimEnd(),
  downcase: (r) => str(r, 'downcase').toLowerCase(),
  upcase: (r) => str(r, 'upcase').toUpperCase(),
  capitalize: (r) => {
    const s = str(r, 'capitalize');
    return s.charAt(0).toUpperCase() + s.slice(1).toLowerCase();
  },
  titleize: (r) => titleize(str(r, 'titleize')),
  gsub: (r, a) => replaceWith(str(r, 'gsub'), a[0], a[1], true),
  sub: (r, a) => replaceWith(str(r, 'sub'), a[0], a[1], false),
  split: (r, a) => splitString(str(r, 'split'), a[0]),
  'starts_with?': (r, a) => str(r, 'starts_with?').startsWith(strArg(a[0], 'starts_with?')),
  'start_with?': (r, a) => a.some((p) => str(r, 'start_with?').startsWith(strArg(p, 'start_with?'))),
  'ends_with?': (r, a) => str(r, 'ends_with?').endsWith(strArg(a[0], 'ends_with?')),
  'end_with?': (r, a) => a.some((p) => str(r, 'end_with?').endsWith(strArg(p, 'end_with?'))),
  'match?': (r, a) => regexArg(a[0], 'match?').test(regexSubject(str(r, 'match?'))),
  match: (r, a) => {
    const m = regexSubject(str(r, 'match')).match(regexArg(a[0], 'match'));
    return m ? [...m].map((x) => x ?? null) : null;
  },
  scan: (r, a) => {
    const s = regexSubject(str(r, 'scan'));
    const out: Value[] = [];
    for (const m of s.matchAll(regexArg(a[0], 'scan', true))) {
      out.push(m.length > 1 ? m.slice(1).map((x) => x ?? null) : m[0]);
      if (out.length > 100_000) throw new FormulaError('scan: too many matches');
    }
    return out;
  },
  ljust: (r, a) => {
    const width = intArg(a[0], 'ljust');
    if (width > 1_000_000) throw new FormulaError('ljust: width too large');
    return str(r, 'ljust').padEnd(width, strArg(a[1], 'ljust', ' ') || ' ');
  },
  rjust: (r, a) => {
    const width = intArg(a[0], 'rjust');
    if (width > 1_000_000) throw new FormulaError('rjust: width too large');
    return str(r, 'rjust').padStart(width, strArg(a[1], 'rjust', ' ') || ' ');
  },
  encode_base64: (r) => Buffer.from(str(r, 'encode_base64'), 'utf8').toString('base64'),
  decode_base64: (r) => Buffer.from(str(r, 'decode_base64'), 'base64').toString('utf8'),
  encode_urlsafe_base64: (r) => Buffer.from(str(r, 'encode_urlsafe_base64'), 'utf8').toString('base64url'),
  encode_url: (r) => encodeURIComponent(str(r, 'encode_url')),
  decode_url: (r) => {
    try {
      return decodeURIComponent(str(r, 'decode_url').replace(/\+/g, ' '));
    } catch {
      throw new FormulaError('decode_url: malformed percent-encoding');
    }
  },
  encode_sha256: (r) => createHash('sha256').update(str(r, 'encode_sha256'), 'utf8').digest().toString('latin1'),
  encode_hex: (r) => Buffer.from(str(r, 'encode_hex'), 'latin1').toString('hex'),
  md5_hexdigest: (r) => createHash('md5').update(str(r, 'md5_hexdigest'), 'utf8').digest('hex'),
  sha256_hexdigest: (r) => createHash('sha256').update(str(r, 'sha256_hexdigest'), 'utf8').digest('hex'),
  to_phone: (r) => {
    const digits = toRubyString(r).replace(/\D/g, '');
    if (digits.length === 10) return `${digits.slice(0, 3)}-${digits.slice(3, 6)}-${digits.slice(6)}`;
    if (digits.length === 7) return `${digits.slice(0, 3)}-${digits.slice(3)}`;
    return digits;
  },
  to_currency: (r, a) => currency(r, a),

  // --- numbers ---
  round: (r, a) => round(r, a),
  abs: (r) => {
    const n = num(r, 'abs');
    return n instanceof RFloat ? new RFloat(Math.abs(n.v)) : Math.abs(n);
  },
  ceil: (r) => Math.ceil(numOf(num(r, 'ceil'))),
  floor: (r) => Math.floor(numOf(num(r, 'floor'))),
  'even?': (r) => intArg(num(r, 'even?'), 'even?') % 2 === 0,
  'odd?': (r) => Math.abs(intArg(num(r, 'odd?'), 'odd?') % 2) === 1,
  'zero?': (r) => numOf(num(r, 'zero?')) === 0,
  'positive?': (r) => numOf(num(r, 'positive?')) > 0,
  'negative?': (r) => numOf(num(r, 'negative?')) < 0,
  ordinalize: (r) => ordinalize(intArg(num(r, 'ordinalize'), 'ordinalize')),

  // --- lists ---
  first: (r, a) => first(r, a),
  last: (r, a) => last(r, a),
  take: (r, a) => list(r, 'take').slice(0, Math.max(0, intArg(a[0], 'take'))),
  drop: (r, a) => list(r, 'drop').slice(Math.max(0, intArg(a[0], 'drop'))),
  count: (r, a) =>
    a.length > 0 ? list(r, 'count').filter((x) => rubyEquals(x, a[0] as Value)).length : length(r, 'count'),
  sum: (r) => sumOf(list(r, 'sum')),
  max: (r) => extreme(list(r, 'max'), 1),
  sort: (r) => [...list(r, 'sort')].sort((x, y) => compareValues(x, y)),
  uniq: (r) => list(r, 'uniq').filter((x, i, all) => all.findIndex((y) => rubyEquals(x, y)) === i),
  flatten: (r, a) => flatten(list(r, 'flatten'), a.length > 0 ? intArg(a[0], 'flatten') : 100),
  compact: (r) =>
    isHash(r)
      ? newHash(
          Object.keys(r)
            .filter((k) => r[k] !== null)
            .map((k) => [k, r[k] as Value]),
        )
      : list(r, 'compact').filter((x) => x !== null),
  concat: (r, a) => [...list(r, 'concat'), ...a.flatMap((x) => list(x, 'concat'))],
  index: (r, a) => {
    if (typeof r === 'string') {
      const i = r.indexOf(strArg(a[0], 'index'));
      return i < 0 ? null : i;
    }
    const i = list(r, 'index').findIndex((x) => rubyEquals(x, a[0] ?? null));
    return i < 0 ? null : i;
  },
  join: (r, a) =>
    list(r, 'join')
      .map((x) =>
        Array.isArray(x)
          ? flatten(x, 100)
              .map(toRubyString)
              .join(strArg(a[0], 'join', ''))
          : toRubyString(x),
      )
      .join(strArg(a[0], 'join', '')),
  smart_join: (r, a) =>
    list(r, 'smart_join')
      .map((x) => toRubyString(x).trim())
      .filter((x) => x !== '')
      .join(strArg(a[0], 'smart_join', ' ')),
  where: (r, a) => {
    const criteria = a[0];
    if (!isHash(criteria ?? null)) throw new FormulaError("where needs conditions, e.g. where('state': 'CA')");
    return list(r, 'where').filter((row) => rowMatches(row, criteria as Hash));
  },
  pluck: (r, a) => {
    const keys = a.map((k) => toRubyString(k));
    return list(r, 'pluck').map((row) => {
      if (!isHash(row)) return null;
      return keys.length === 1 ? hashGet(row, keys[0] as string) : keys.map((k) => hashGet(row, k));
    });
  },
  format_map: (r, a) => {
    const fmt = strArg(a[0], 'format_map');
    return list(r, 'format_map').map((row) =>
      fmt.replace(/%\{([^}]+)\}/g, (_m, key: string) => (isHash(row) ? toRubyString(hashGet(row, key)) : '')),
    );
  },
  'any?': (r) => list(r, 'any?').some((x) => x !== null && x !== false),

  // --- hashes ---
  keys: (r) => Object.keys(hash(r, 'keys')),
  values: (r) => {
    const h = hash(r, 'values');
    return Object.keys(h).map((k) => h[k] as Value);
  },
  except: (r, a) => {
    const h = hash(r, 'except');
    const drop = new Set(a.map((k) => toRubyString(k)));
    return newHash(
      Object.keys(h)
        .filter((k) => !drop.has(k))
        .map((k) => [k, h[k] as Value]),
    );
  },
  merge: (r, a) => {
    const out = newHash(Object.entries(hash(r, 'merge')) as Array<[string, Value]>);
    for (const other of a) for (const [k, v] of Object.entries(hash(other, 'merge'))) hashSet(out, k, v as Value);
    return out;
  },
  dig: (r, a) => {
    let current: Value = r;
    for (const key of a) {
      if (current === null) return null;
      if (Array.isArray(current)) current = index(current, [key]);
      else if (isHash(current)) current = hashGet(current, toRubyString(key));
      else throw new FormulaError(`dig: ${typeName(current)} does not have #dig`);
    }
    return current;
  },
  'has_key?': (r, a) => Object.hasOwn(hash(r, 'has_key?'), toRubyString(a[0] ?? null)),
  'key?': (r, a) => Object.hasOwn(hash(r, 'key?'), toRubyString(a[0] ?? null)),
  to_param: (r) => toParam(hash(r, 'to_param')).join('&'),

  // --- dates and times ---
  to_date: (r, a, env) => {
    const o = options(a);
    const format = hashGet(o, 'format');
    if (typeof r === 'string' && typeof format === 'string') return parseDate(r, format, env.timeZone);
    return asDate(r, env, 'to_date');
  },
  to_time: (r, a, env) => {
    const o = options(a);
    const format = hashGet(o, 'format');
    if (typeof r === 'string' && typeof format === 'string') {
      const f = parseWithFormat(r, format);
      return new RTime(fromLocal(f.y, f.m, f.d, f.h, f.mi, f.s, 0, 'UTC'), 'UTC');
    }
    if (typeof r === 'string') return parseTime(r, 'UTC');
    return asTime(r, env, 'to_time');
  },
  strftime: (r, a, env) => strftime(r instanceof RDate ? r : asTime(r, env, 'strftime'), strArg(a[0], 'strftime')),
  in_time_zone: (r, a, env) => {
    const t = asTime(r, env, 'in_time_zone');
    return new RTime(t.ms, a.length > 0 ? zoneArg(a[0]) : env.timeZone);
  },
  beginning_of_hour: (r, _a, env) => startOf(asTime(r, env, 'beginning_of_hour'), 'hour'),
  beginning_of_day: (r, _a, env) => startOf(r instanceof RDate ? r : asTime(r, env, 'beginning_of_day'), 'day'),
  beginning_of_week: (r, _a, env) => startOf(r instanceof RDate ? r : asTime(r, env, 'beginning_of_week'), 'week'),
  beginning_of_month: (r, _a, env) => startOf(r instanceof RDate ? r : asTime(r, env, 'beginning_of_month'), 'month'),
  beginning_of_year: (r, _a, env) => startOf(r instanceof RDate ? r : asTime(r, env, 'beginning_of_year'), 'year'),
  end_of_day: (r, _a, env) => endOf(r instanceof RDate ? r : asTime(r, env, 'end_of_day'), 'day'),
  end_of_week: (r, _a, env) => endOf(r instanceof RDate ? r : asTime(r, env, 'end_of_week'), 'week'),
  end_of_month: (r, _a, env) => endOf(r instanceof RDate ? r : asTime(r, env, 'end_of_month'), 'month'),
  end_of_year: (r, _a, env) => endOf(r instanceof RDate ? r : asTime(r, env, 'end_of_year'), 'year'),
  wday: (r, _a, env) => {
    const d = asDate(r, env, 'wday');
    return new Date(d.utcMs).getUTCDay();
  },
  yday: (r, _a, env) => {
    const d = asDate(r, env, 'yday');
    return Math.round((d.utcMs - Date.UTC(d.y, 0, 1)) / 86_400_000) + 1;
  },
  year: (r, _a, env) => (isNumeric(r) ? new RDuration(0, numOf(r) * 12) : asDate(r, env, 'year').y),
  month: (r, _a, env) => (isNumeric(r) ? new RDuration(0, numOf(r)) : asDate(r, env, 'month').m),
  day: (r, _a, env) => (isNumeric(r) ? new RDuration(numOf(r) * 86400, 0) : asDate(r, env, 'day').d),
  hour: (r, _a, env) =>
    isNumeric(r)
      ? new RDuration(numOf(r) * 3600, 0)
      : localParts(asTime(r, env, 'hour').ms, asTime(r, env, 'hour').zone).h,
  min: (r, _a, env) =>
    Array.isArray(r) ? extreme(r, -1) : localParts(asTime(r, env, 'min').ms, asTime(r, env, 'min').zone).mi,
  sec: (r, _a, env) => localParts(asTime(r, env, 'sec').ms, asTime(r, env, 'sec').zone).s,
  ago: (r, _a, env) => {
    if (!(r instanceof RDuration) && !isNumeric(r)) throw new FormulaError(`undefined method 'ago' for ${typeName(r)}`);
    return addDuration(new RTime(env.now(), env.timeZone), r, -1);
  },
  from_now: (r, _a, env) => {
    if (!(r instanceof RDuration) && !isNumeric(r))
      throw new FormulaError(`undefined method 'from_now' for ${typeName(r)}`);
    return addDuration(new RTime(env.now(), env.timeZone), r, 1);
  },
  next_day: (r, a, env) => addDuration(asDate(r, env, 'next_day'), a.length > 0 ? intArg(a[0], 'next_day') : 1, 1),
  prev_day: (r, a, env) => addDuration(asDate(r, env, 'prev_day'), a.length > 0 ? intArg(a[0], 'prev_day') : 1, -1),
  next_month: (r, a, env) =>
    addDuration(asDate(r, env, 'next_month'), new RDuration(0, a.length > 0 ? intArg(a[0], 'next_month') : 1), 1),
  prev_month: (r, a, env) =>
    addDuration(asDate(r, env, 'prev_month'), new RDuration(0, a.length > 0 ? intArg(a[0], 'prev_month') : 1), -1),
  iso8601: (r, _a, env) => asTime(r, env, 'iso8601').toString(),
};

for (const [unit, [seconds, months]] of Object.entries(UNIT_SECONDS)) {
  if (METHODS[unit]) continue;
  METHODS[unit] = (r) => {
    const n = numOf(num(r, unit));
    return new RDuration(n * seconds, n * months);
  };
}

/** Methods that nil answers (Ruby's NilClass plus the ActiveSupport predicates). */
const NIL_METHODS = new Set([
  'present?',
  'blank?',
  'presence',
  'nil?',
  'is_true?',
  'is_not_true?',
  'to_s',
  'to_i',
  'to_f',
  'to_a',
  'to_json',
]);

export function isKnownMethod(name: string): boolean {
  return Object.hasOwn(METHODS, name);
}

export function callMethod(recv: Value, name: string, args: Value[], env: FormulaEnv): Value {
  if (!Object.hasOwn(METHODS, name)) throw new FormulaError(`undefined method '${name}' for ${typeName(recv)}`);
  if (recv === null && !NIL_METHODS.has(name)) throw new FormulaError(`undefined method '${name}' for nil`);
  env.budget.tick(
    Array.isArray(recv)
      ? 1 + Math.floor(recv.length / 16)
      : typeof recv === 'string'
        ? 1 + Math.floor(recv.length / 1024)
        : 1,
  );
  return (METHODS[name] as Method)(recv, args, env);
}
