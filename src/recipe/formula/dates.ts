// Dates and times in formulas: durations added to dates and times (calendar-aware, DST-aware),
// ISO 8601 and formatted parsing, strftime, the start and end of a day, week, month or year.
import { FormulaError } from './errors.ts';
import { RDate, RDuration, RTime, numOf, pad, type RFloat } from './values.ts';
import { fromLocal, localParts } from './zones.ts';

export function dateOfTime(t: RTime): RDate {
  const p = localParts(t.ms, t.zone);
  return new RDate(p.y, p.m, p.d);
}

export function addDuration(base: RTime | RDate, delta: RDuration | number | RFloat, sign: 1 | -1): RTime | RDate {
  const d = delta instanceof RDuration ? delta : null;
  if (base instanceof RDate) {
    if (d === null) return new RDate(base.y, base.m, base.d + sign * Math.trunc(numOf(delta as number | RFloat)));
    const months = base.m + sign * d.months;
    const shifted = clampDay(base.y, months, base.d);
    return new RDate(shifted.y, shifted.m, shifted.d + sign * Math.trunc(d.seconds / 86400));
  }
  if (d === null) return new RTime(base.ms + sign * numOf(delta as number | RFloat) * 1000, base.zone);
  let ms = base.ms;
  if (d.months !== 0) {
    const p = localParts(ms, base.zone);
    const c = clampDay(p.y, p.m + sign * d.months, p.d);
    ms = fromLocal(c.y, c.m, c.d, p.h, p.mi, p.s, p.ms, base.zone);
  }
  if (d.seconds % 86400 === 0 && d.seconds !== 0) {
    // Whole days keep the wall-clock time across DST changes, as ActiveSupport does.
    const p = localParts(ms, base.zone);
    return new RTime(fromLocal(p.y, p.m, p.d + sign * (d.seconds / 86400), p.h, p.mi, p.s, p.ms, base.zone), base.zone);
  }
  return new RTime(ms + sign * d.seconds * 1000, base.zone);
}

function clampDay(y: number, m: number, d: number): { y: number; m: number; d: number } {
  const first = new Date(Date.UTC(y, m - 1, 1));
  const yy = first.getUTCFullYear();
  const mm = first.getUTCMonth() + 1;
  const last = new Date(Date.UTC(yy, mm, 0)).getUTCDate();
  return { y: yy, m: mm, d: Math.min(d, last) };
}

const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}:?\d{2}|UTC)?$/i;

/** An ISO 8601 date or time; without an offset it is read in `zone`. */
export function parseTime(s: string, zone: string): RTime {
  const m = ISO_TIME.exec(s.trim());
  if (!m) {
    const loose = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(s.trim());
    if (loose)
      return new RTime(fromLocal(Number(loose[3]), Number(loose[1]), Number(loose[2]), 0, 0, 0, 0, zone), zone);
    throw new FormulaError(`cannot parse ${JSON.stringify(s).slice(0, 60)} as a time`);
  }
  const [, y, mo, d, h = '0', mi = '0', sec = '0', frac = '0', off] = m;
  const milli = Number(frac.padEnd(3, '0').slice(0, 3));
  const parts = [Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(sec), milli] as const;
  if (!validDate(parts[0], parts[1], parts[2]) || parts[3] > 23 || parts[4] > 59 || parts[5] > 60)
    throw new FormulaError(`invalid date ${JSON.stringify(s).slice(0, 60)}`);
  if (off === undefined) return new RTime(fromLocal(...parts, zone), zone);
  let offsetMinutes = 0;
  if (off.toUpperCase() !== 'Z' && off.toUpperCase() !== 'UTC') {
    const sign = off.startsWith('-') ? -1 : 1;
    const digits = off.slice(1).replace(':', '');
    offsetMinutes = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4)));
  }
  const ms = Date.UTC(parts[0], parts[1] - 1, parts[2], parts[3], parts[4], parts[5], parts[6]) - offsetMinutes * 60000;
  return new RTime(ms, offsetMinutes === 0 ? 'UTC' : zone);
}

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

const FORMAT_TOKENS: Array<[string, string]> = [
  ['YYYY', '(?<Y>\\d{4})'],
  ['YY', '(?<y>\\d{2})'],
  ['MM', '(?<M>\\d{1,2})'],
  ['M', '(?<M>\\d{1,2})'],
  ['DD', '(?<D>\\d{1,2})'],
  ['D', '(?<D>\\d{1,2})'],
  ['HH', '(?<h>\\d{1,2})'],
  ['hh', '(?<h>\\d{1,2})'],
  ['mm', '(?<mi>\\d{1,2})'],
  ['ss', '(?<s>\\d{1,2})'],
  ['%Y', '(?<Y>\\d{4})'],
  ['%y', '(?<y>\\d{2})'],
  ['%m', '(?<M>\\d{1,2})'],
  ['%d', '(?<D>\\d{1,2})'],
  ['%H', '(?<h>\\d{1,2})'],
  ['%M', '(?<mi>\\d{1,2})'],
  ['%S', '(?<s>\\d{1,2})'],
];

/** Parse with a format such as 'MM/DD/YYYY' or '%d-%m-%Y'; without one, ISO 8601. */
export function parseDate(s: string, format: string | undefined, zone: string): RDate {
  if (format === undefined) {
    const t = parseTime(s, zone);
    return dateOfTime(t);
  }
  const fields = parseWithFormat(s, format);
  return new RDate(fields.y, fields.m, fields.d);
}

export function parseWithFormat(
  s: string,
  format: string,
): { y: number; m: number; d: number; h: number; mi: number; s: number } {
  if (format.length > 100) throw new FormulaError('format is too long');
  let pattern = '';
  const seen = new Set<string>();
  for (let i = 0; i < format.length;) {
    const token = FORMAT_TOKENS.find(([t]) => format.startsWith(t, i));
    if (token) {
      const group = /<(\w+)>/.exec(token[1])?.[1] as string;
      pattern += seen.has(group) ? '\\d+' : token[1];
      seen.add(group);
      i += token[0].length;
    } else {
      pattern += (format[i] as string).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      i++;
    }
  }
  const m = new RegExp(`^${pattern}$`).exec(s.trim());
  if (!m?.groups)
    throw new FormulaError(`${JSON.stringify(s).slice(0, 60)} does not match the format ${JSON.stringify(format)}`);
  const g = m.groups;
  const y = g.Y !== undefined ? Number(g.Y) : g.y !== undefined ? 2000 + Number(g.y) : 1970;
  const out = {
    y,
    m: Number(g.M ?? 1),
    d: Number(g.D ?? 1),
    h: Number(g.h ?? 0),
    mi: Number(g.mi ?? 0),
    s: Number(g.s ?? 0),
  };
  if (!validDate(out.y, out.m, out.d) || out.h > 23 || out.mi > 59 || out.s > 59)
    throw new FormulaError(`invalid date ${JSON.stringify(s).slice(0, 60)}`);
  return out;
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

export function strftime(v: RTime | RDate, fmt: string): string {
  const p =
    v instanceof RTime
      ? localParts(v.ms, v.zone)
      : { y: v.y, m: v.m, d: v.d, h: 0, mi: 0, s: 0, ms: 0, offsetMinutes: 0 };
  const wday = new Date(Date.UTC(p.y, p.m - 1, p.d)).getUTCDay();
  const yday = Math.round((Date.UTC(p.y, p.m - 1, p.d) - Date.UTC(p.y, 0, 1)) / 86_400_000) + 1;
  const off = p.offsetMinutes;
  const offText = `${off < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(off) / 60), 2)}${pad(Math.abs(off) % 60, 2)}`;
  return fmt.replace(/%([-0^]?)([a-zA-Z%])/g, (_all, flag: string, code: string) => {
    const n = (value: number, width: number) => (flag === '-' ? String(value) : pad(value, width));
    switch (code) {
      case 'Y':
        return String(p.y);
      case 'y':
        return pad(p.y % 100, 2);
      case 'm':
        return n(p.m, 2);
      case 'd':
        return n(p.d, 2);
      case 'e':
        return String(p.d).padStart(2, ' ');
      case 'H':
        return n(p.h, 2);
      case 'I':
        return n(((p.h + 11) % 12) + 1, 2);
      case 'l':
        return String(((p.h + 11) % 12) + 1);
      case 'M':
        return n(p.mi, 2);
      case 'S':
        return n(p.s, 2);
      case 'L':
        return pad(p.ms, 3);
      case 'p':
        return p.h < 12 ? 'AM' : 'PM';
      case 'P':
        return p.h < 12 ? 'am' : 'pm';
      case 'b':
        return (MONTHS[p.m - 1] as string).slice(0, 3);
      case 'B':
        return MONTHS[p.m - 1] as string;
      case 'a':
        return (DAYS[wday] as string).slice(0, 3);
      case 'A':
        return DAYS[wday] as string;
      case 'j':
        return pad(yday, 3);
      case 'u':
        return String(wday === 0 ? 7 : wday);
      case 'w':
        return String(wday);
      case 'z':
        return offText;
      case 'Z':
        return v instanceof RTime ? v.zone : 'UTC';
      case 's':
        return String(Math.floor((v instanceof RTime ? v.ms : v.utcMs) / 1000));
      case 'F':
        return `${p.y}-${pad(p.m, 2)}-${pad(p.d, 2)}`;
      case 'T':
        return `${pad(p.h, 2)}:${pad(p.mi, 2)}:${pad(p.s, 2)}`;
      case 'D':
        return `${pad(p.m, 2)}/${pad(p.d, 2)}/${pad(p.y % 100, 2)}`;
      case '%':
        return '%';
      default:
        return `%${flag}${code}`;
    }
  });
}

export function startOf(v: RTime | RDate, unit: 'day' | 'week' | 'month' | 'year' | 'hour'): RTime | RDate {
  const isTime = v instanceof RTime;
  const p = isTime ? localParts(v.ms, v.zone) : { y: v.y, m: v.m, d: v.d, h: 0 };
  const y = p.y;
  let { m, d } = p;
  let h = 0;
  if (unit === 'hour') h = p.h;
  if (unit === 'week') d -= (new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7; // weeks start on Monday
  if (unit === 'month') d = 1;
  if (unit === 'year') {
    m = 1;
    d = 1;
  }
  const date = new RDate(y, m, d);
  if (!isTime) return date;
  return new RTime(fromLocal(date.y, date.m, date.d, h, 0, 0, 0, v.zone), v.zone);
}

export function endOf(v: RTime | RDate, unit: 'day' | 'week' | 'month' | 'year'): RTime | RDate {
  const start = startOf(v, unit);
  const next =
    unit === 'day'
      ? new RDuration(86400, 0)
      : unit === 'week'
        ? new RDuration(7 * 86400, 0)
        : unit === 'month'
          ? new RDuration(0, 1)
          : new RDuration(0, 12);
  const after = addDuration(start, next, 1);
  if (after instanceof RDate) return new RDate(after.y, after.m, after.d - 1);
  return new RTime(after.ms - 1, after.zone);
}

export const UNIT_SECONDS: Record<string, [number, number]> = {
  second: [1, 0],
  seconds: [1, 0],
  minute: [60, 0],
  minutes: [60, 0],
  hour: [3600, 0],
  hours: [3600, 0],
  day: [86400, 0],
  days: [86400, 0],
  week: [604800, 0],
  weeks: [604800, 0],
  fortnight: [1_209_600, 0],
  fortnights: [1_209_600, 0],
  month: [0, 1],
  months: [0, 1],
  year: [0, 12],
  years: [0, 12],
};
