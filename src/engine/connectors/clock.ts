// clock (Scheduler): the recurring-event trigger with intervals, times of day, weekdays, days of
// the month and cron expressions in a time zone (20 §10.2), and the wait action. Calendar
// arithmetic for time zones and cron comes from croner; missed runs are not replayed: a recipe
// that was stopped or down past its time runs once when it comes back, then keeps its schedule.
import { Cron } from 'croner';
import { StepError, type Connector } from './types.ts';
import { isValidZone, localParts } from '../../recipe/formula/zones.ts';
import { RTime, hashGet, newHash, toRubyString, type Hash, type Value } from '../../recipe/formula/values.ts';

const UNITS = ['minutes', 'hours', 'days', 'weeks', 'months', 'custom'] as const;
type Unit = (typeof UNITS)[number];
const UNIT_MS: Record<Exclude<Unit, 'custom' | 'months'>, number> = {
  minutes: 60_000,
  hours: 3_600_000,
  days: 86_400_000,
  weeks: 604_800_000,
};
const MONTH_MS = 30 * 86_400_000;
export const DEFAULT_TIME_ZONE = 'America/Los_Angeles';

export interface Schedule {
  unit: Unit;
  every: number;
  zone: string;
  startAfter: number | null;
  /** Set for calendar schedules (a time of day, weekdays, days of month, or a cron expression). */
  cron: CronTimes | null;
}

function text(input: Hash, key: string): string | null {
  const v = hashGet(input, key);
  if (v === null || v === undefined) return null;
  const s = toRubyString(v).trim();
  return s === '' ? null : s;
}

const TIME_OF_DAY = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?\s*([ap]m)?$/i;

/** The schedule a trigger input describes, or a list of problems [label, value, message, path]. */
export function scheduleOf(input: Hash): Schedule | Array<[string, unknown, string, string]> {
  const problems: Array<[string, unknown, string, string]> = [];
  const unit = (text(input, 'time_unit') ?? 'minutes').toLowerCase();
  if (!(UNITS as readonly string[]).includes(unit))
    problems.push(['Time unit', unit, `must be one of ${UNITS.join(', ')}`, 'time_unit']);
  const everyText = text(input, 'trigger_every') ?? '1';
  const every = Number(everyText);
  if (!Number.isInteger(every) || every < 1 || every > 10_000)
    problems.push(['Trigger every', everyText, 'must be a whole number from 1', 'trigger_every']);
  const zone = text(input, 'timezone') ?? text(input, 'time_zone') ?? DEFAULT_TIME_ZONE;
  if (!isValidZone(zone))
    problems.push(['Timezone', zone, 'is not a known time zone (use an IANA name such as Europe/Paris)', 'timezone']);
  let startAfter: number | null = null;
  const startText = text(input, 'start_after');
  if (startText !== null) {
    startAfter = Date.parse(startText);
    if (Number.isNaN(startAfter)) problems.push(['Start after', startText, 'is not a date and time', 'start_after']);
  }
  let pattern: string | null = null;
  if (unit === 'custom') {
    pattern = text(input, 'cron_expression') ?? text(input, 'cron');
    if (pattern === null) problems.push(['Cron expression', null, "can't be blank", 'cron_expression']);
    else if (pattern.split(/\s+/).length !== 5)
      problems.push([
        'Cron expression',
        pattern,
        'must have 5 fields: minute hour day-of-month month day-of-week',
        'cron_expression',
      ]);
  } else if (unit === 'days' || unit === 'weeks' || unit === 'months') {
    const at = text(input, 'trigger_at');
    const days = text(input, 'days_of_week');
    const dom = text(input, 'days_of_month');
    if (at !== null || days !== null || dom !== null) {
      let minute = 0;
      let hour = 0;
      if (at !== null) {
        const m = TIME_OF_DAY.exec(at);
        if (!m) problems.push(['Trigger at', at, 'must be a time of day such as 09:30 or 09:30:00', 'trigger_at']);
        else {
          hour = Number(m[1]) % 24;
          minute = Number(m[2]);
          if (m[4]) hour = (hour % 12) + (m[4].toLowerCase() === 'pm' ? 12 : 0);
          if (hour > 23 || minute > 59) problems.push(['Trigger at', at, 'is not a valid time of day', 'trigger_at']);
        }
      }
      let dow = '*';
      if (unit === 'weeks' && days !== null) {
        const list = days.split(',').map((d) => d.trim());
        if (list.some((d) => !/^[1-7]$/.test(d)))
          problems.push([
            'Days of week',
            days,
            'must be day numbers from 1 (Monday) to 7 (Sunday), separated by commas',
            'days_of_week',
          ]);
        dow = list.map((d) => String(Number(d) % 7)).join(',');
      }
      let domField = '*';
      if (unit === 'months') {
        const list = (dom ?? '1').split(',').map((d) => d.trim());
        if (list.some((d) => !/^([1-9]|[12]\d|3[01]|L)$/.test(d)))
          problems.push([
            'Days of month',
            dom,
            'must be day numbers from 1 to 31 (or L for the last day), separated by commas',
            'days_of_month',
          ]);
        domField = list.join(',');
      }
      pattern = `${minute} ${hour} ${domField} * ${dow}`;
    }
  }
  let cron: CronTimes | null = null;
  if (pattern !== null && problems.length === 0) {
    try {
      cron = cronTimesOf(pattern, zone);
    } catch (error) {
      problems.push(['Cron expression', pattern, `is invalid: ${(error as Error).message}`, 'cron_expression']);
    }
  }
  if (problems.length > 0) return problems;
  return { unit: unit as Unit, every, zone, startAfter, cron };
}

function period(s: Schedule): number {
  if (s.unit === 'months') return s.every * MONTH_MS;
  if (s.unit === 'custom') return 0;
  return s.every * UNIT_MS[s.unit];
}

/**
 * When the schedule fires next, seen at `now`: `lastFired` null means the recipe never ran
 * (interval schedules then fire at once, or at start_after); a time already past means "now".
 */
export function nextFireTime(s: Schedule, now: number, lastFired: number | null): number {
  const notBefore = s.startAfter !== null && s.startAfter > now ? s.startAfter : now;
  if (s.cron === null) {
    if (lastFired === null) return notBefore;
    return Math.max(lastFired + period(s), notBefore);
  }
  if (lastFired !== null) {
    // A run missed while stopped or down happens once, at once.
    const due = s.cron.after(lastFired);
    if (due !== null && due <= now && s.every === 1) return notBefore;
  }
  let candidate = s.cron.after(notBefore - 1);
  const minGap = s.every > 1 && lastFired !== null ? period(s) - 3_600_000 : 0;
  for (let i = 0; candidate !== null && i < 1000 && lastFired !== null && candidate - lastFired < minGap; i++) {
    candidate = s.cron.after(candidate);
  }
  return candidate === null ? Number.POSITIVE_INFINITY : candidate;
}

/**
 * The runs of a cron pattern in a time zone, shared by the schedules that name the same pair.
 * Croner's next-run search costs about a millisecond; the last answer is kept, so asking again
 * from any time between the time asked and that run (thousands of schedules armed at start on a
 * few patterns) costs nothing.
 */
export class CronTimes {
  readonly #cron: Cron;
  #from = Number.NaN;
  #next: number | null = null;

  constructor(pattern: string, zone: string) {
    this.#cron = new Cron(pattern, { timezone: zone, paused: true });
  }

  /** The first run strictly after `ms` (epoch ms), or null when there is none. */
  after(ms: number): number | null {
    if (ms >= this.#from && (this.#next === null || ms < this.#next)) return this.#next;
    const next = this.#cron.nextRun(new Date(ms));
    this.#from = ms;
    this.#next = next === null ? null : next.getTime();
    return this.#next;
  }
}

/** Patterns kept for reuse (a map cleared when full: each entry is a few hundred bytes). */
const MAX_CRON_PATTERNS = 1000;
const cronPatterns = new Map<string, CronTimes>();

function cronTimesOf(pattern: string, zone: string): CronTimes {
  const key = `${zone} ${pattern}`;
  let times = cronPatterns.get(key);
  if (!times) {
    times = new CronTimes(pattern, zone);
    if (cronPatterns.size >= MAX_CRON_PATTERNS) cronPatterns.clear();
    cronPatterns.set(key, times);
  }
  return times;
}

function isoWeek(ms: number, zone: string): number {
  const p = localParts(ms, zone);
  const date = new Date(Date.UTC(p.y, p.m - 1, p.d));
  const day = (date.getUTCDay() + 6) % 7;
  date.setUTCDate(date.getUTCDate() - day + 3);
  const firstThursday = new Date(Date.UTC(date.getUTCFullYear(), 0, 4));
  return (
    1 +
    Math.round(
      ((date.getTime() - firstThursday.getTime()) / 86_400_000 - 3 + ((firstThursday.getUTCDay() + 6) % 7)) / 7,
    )
  );
}

export const clock: Connector = {
  provider: 'clock',
  title: 'Scheduler',
  needsConnection: false,
  reachesOutside: false,
  triggers: {
    scheduled_event: {
      title: 'new scheduled event',
      kind: 'schedule',
      check(input) {
        const s = scheduleOf(input);
        return Array.isArray(s) ? s : [];
      },
      output(event): Value {
        const at = Date.parse(toRubyString(hashGet(event, 'scheduled_time')));
        const zone = toRubyString(hashGet(event, 'timezone')) || DEFAULT_TIME_ZONE;
        const p = localParts(at, zone);
        return newHash([
          ['scheduled_time', new RTime(at, zone).toString()],
          ['scheduled_day', new Date(Date.UTC(p.y, p.m - 1, p.d)).getUTCDay()],
          ['scheduled_week', isoWeek(at, zone) - 1],
          ['scheduled_month', p.m - 1],
        ]);
      },
      titleFields: (event) => [['Start time', toRubyString(hashGet(event, 'scheduled_time'))]],
    },
  },
  actions: {
    wait_for_interval: {
      title: 'Wait',
      required: [{ path: 'interval', label: 'Interval' }],
      async run(input, sc) {
        const seconds = Number(toRubyString(hashGet(input, 'interval')));
        if (!Number.isFinite(seconds) || seconds < 0)
          throw new StepError('Bad request', 'interval must be a number of seconds');
        if (seconds > sc.limits.maxWaitSeconds)
          throw new StepError('Bad request', `interval is longer than ${sc.limits.maxWaitSeconds} seconds`);
        await sc.sleep(seconds * 1000);
        return newHash([['waited_seconds', seconds]]);
      },
    },
  },
};
