// Time-zone arithmetic on IANA zones through Intl (no host state, no time-zone database of our own).

export interface LocalParts {
  y: number;
  m: number;
  d: number;
  h: number;
  mi: number;
  s: number;
  ms: number;
  /** Minutes east of UTC. */
  offsetMinutes: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const MAX_CACHED_ZONES = 500;

/** Zone names in the vendor's form ("Pacific Time (US & Canada)") are not accepted; IANA ids and UTC are. */
export function isValidZone(zone: string): boolean {
  if (zone.length > 64) return false;
  try {
    formatterFor(zone);
    return true;
  } catch {
    return false;
  }
}

function formatterFor(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    if (formatters.size >= MAX_CACHED_ZONES) formatters.clear();
    formatters.set(zone, f);
  }
  return f;
}

export function localParts(ms: number, zone: string): LocalParts {
  const parts = formatterFor(zone).formatToParts(new Date(ms));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const y = get('year');
  const m = get('month');
  const d = get('day');
  const h = get('hour') % 24;
  const mi = get('minute');
  const s = get('second');
  const milli = ((ms % 1000) + 1000) % 1000;
  const asUtc = Date.UTC(y, m - 1, d, h, mi, s, milli);
  return { y, m, d, h, mi, s, ms: milli, offsetMinutes: Math.round((asUtc - ms) / 60000) };
}

/** The instant of a wall-clock time in a zone (the earlier one when the clock goes back). */
export function fromLocal(
  y: number,
  m: number,
  d: number,
  h: number,
  mi: number,
  s: number,
  milli: number,
  zone: string,
): number {
  const wall = Date.UTC(y, m - 1, d, h, mi, s, milli);
  let guess = wall - localParts(wall, zone).offsetMinutes * 60000;
  // Two corrections settle any real zone (offset changes are hours apart).
  for (let i = 0; i < 2; i++) {
    const offset = localParts(guess, zone).offsetMinutes;
    guess = wall - offset * 60000;
  }
  return guess;
}

/** '+01:00' (colon) or '+0100'. */
export function formatOffset(minutes: number, colon: boolean): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return colon ? `${sign}${hh}:${mm}` : `${sign}${hh}${mm}`;
}
