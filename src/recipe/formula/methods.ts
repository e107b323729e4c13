// The formula methods (contract 20 §8.2), one table: name -> implementation. A method not in the
// table does not exist; calling it is an error, and a recipe using it does not start.
import { jsonShape, MAX_EVENT_CONTAINERS } from '../../json-shape.ts';
import { createHash } from 'node:crypto';
import { FormulaError } from './errors.ts';
import type { FormulaEnv } from './env.ts';
import {
  RDate,
  RDuration,
  RFloat,
  RTime,
  hashGet,
  hashSet,
  isHash,
  isNumeric,
  MAX_EVENT_DEPTH,
  newHash,
  numOf,
  typeName,
  fromPlain,
  compareValues,
  isTrue,
  rubyEquals,
  toRubyString,
  type Hash,
  type Value,
} from './values.ts';
import { fromLocal, localParts } from './zones.ts';
import { UNIT_SECONDS, addDuration, endOf, parseDate, parseTime, parseWithFormat, startOf, strftime } from './dates.ts';
import { regexSubject } from './regex-safety.ts';
import {
  type Method,
  blank,
  encodeString,
  str,
  list,
  hash,
  num,
  intArg,
  strArg,
  options,
  leadingNumber,
  regexArg,
  zoneArg,
  asTime,
  asDate,
  first,
  last,
  length,
  includes,
  index,
  rowMatches,
  titleize,
  toJson,
  sumOf,
  extreme,
  flatten,
  round,
  currency,
  ordinalize,
  toParam,
  splitString,
  replaceWith,
} from './method-helpers.ts';

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
