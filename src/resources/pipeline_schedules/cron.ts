/**
 * Cron lines as `Gitlab::Ci::CronParser` (Fugit) reads a schedule's: five fields (minute, hour, day of
 * month, month, day of week) of `*`, numbers, ranges, steps and lists, month and weekday names, weekday 7
 * as Sunday; a day of month and a day of week both given match either. Times are worked out in the
 * schedule's IANA time zone.
 */

export interface Cron {
  minutes: number[];
  hours: number[];
  days: Set<number>;
  months: Set<number>;
  weekdays: Set<number>;
  /** Day of month and day of week both restricted: either matches. */
  either: boolean;
  anyDay: boolean;
  anyWeekday: boolean;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

/** One field's values, or null when it is not valid cron. */
function field(text: string, min: number, max: number, names?: string[], nameBase = 0): number[] | null {
  const out = new Set<number>();
  const value = (s: string): number | null => {
    const named = names?.indexOf(s.toLowerCase()) ?? -1;
    if (named >= 0) return named + nameBase;
    if (!/^\d{1,2}$/.test(s)) return null;
    const n = Number(s);
    return n >= min && n <= max ? n : null;
  };
  for (const part of text.split(',')) {
    const m = /^([^/]+)(?:\/(\d{1,2}))?$/.exec(part);
    if (!m) return null;
    const step = m[2] === undefined ? 1 : Number(m[2]);
    if (step < 1) return null;
    let lo: number;
    let hi: number;
    if (m[1] === '*') [lo, hi] = [min, max];
    else {
      const range = m[1]!.split('-');
      if (range.length > 2) return null;
      const a = value(range[0]!);
      const b = range.length === 2 ? value(range[1]!) : m[2] === undefined ? a : max;
      if (a === null || b === null || b < a) return null;
      [lo, hi] = [a, b];
    }
    for (let v = lo; v <= hi; v += step) out.add(v);
  }
  return [...out].sort((x, y) => x - y);
}

/** The parsed line, or null when the platform would call it invalid syntax. */
export function parseCron(line: string): Cron | null {
  const parts = line.trim().split(/\s+/);
  if (parts.length !== 5 || line.length > 255) return null;
  const [mi, h, dom, mon, dow] = parts as [string, string, string, string, string];
  const minutes = field(mi, 0, 59);
  const hours = field(h, 0, 23);
  const days = field(dom, 1, 31);
  const months = field(mon, 1, 12, MONTHS, 1);
  const weekdays = field(dow, 0, 7, WEEKDAYS);
  if (!minutes || !hours || !days || !months || !weekdays) return null;
  // As cron does: a field that starts with `*` leaves the day to the other one.
  const anyDay = dom.startsWith('*');
  const anyWeekday = dow.startsWith('*');
  return {
    minutes,
    hours,
    days: new Set(days),
    months: new Set(months),
    weekdays: new Set(weekdays.map((d) => d % 7)),
    either: !anyDay && !anyWeekday,
    anyDay,
    anyWeekday,
  };
}

/** Whether the zone is one the platform knows (an IANA name such as `Europe/Berlin`, or `UTC`). */
export function validTimezone(zone: string): boolean {
  if (zone.trim() === '' || zone.length > 255) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** The zone's offset from UTC at an instant (ms). */
function offsetAt(zone: string, ms: number): number {
  let f = formats.get(zone);
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
    if (formats.size > 1000) formats.clear();
    formats.set(zone, f);
  }
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(new Date(ms)))
    if (part.type !== 'literal') p[part.type] = Number(part.value);
  const local = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  return local - Math.floor(ms / 1000) * 1000;
}

/** A local wall time of the zone as an instant. */
function instantOf(zone: string, localMs: number): number {
  const first = localMs - offsetAt(zone, localMs);
  return localMs - offsetAt(zone, first);
}

/** How far ahead the next time is looked for: a line that matches no day in that span never runs. */
const SEARCH_DAYS = 366 * 5;

/** The first time the line matches strictly after `from` (ms), or null when there is none. */
export function nextTime(cron: Cron, zone: string, from: number): number | null {
  const local = from + offsetAt(zone, from);
  const start = new Date(local);
  let day = Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate());
  for (let n = 0; n < SEARCH_DAYS; n++, day += 86_400_000) {
    const d = new Date(day);
    if (!cron.months.has(d.getUTCMonth() + 1)) continue;
    const dom = cron.days.has(d.getUTCDate());
    const dow = cron.weekdays.has(d.getUTCDay());
    if (!(cron.either ? dom || dow : dom && dow)) continue;
    for (const h of cron.hours)
      for (const mi of cron.minutes) {
        const at = instantOf(zone, day + h * 3_600_000 + mi * 60_000);
        if (at > from) return at;
      }
  }
  return null;
}

/** The last time the line matches strictly before `from` (ms), or null when there is none (Fugit's `previous_time`). */
export function previousTime(cron: Cron, zone: string, from: number): number | null {
  const local = from + offsetAt(zone, from);
  const start = new Date(local);
  let day = Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate());
  const hours = [...cron.hours].sort((a, b) => b - a);
  const minutes = [...cron.minutes].sort((a, b) => b - a);
  for (let n = 0; n < SEARCH_DAYS; n++, day -= 86_400_000) {
    const d = new Date(day);
    if (!cron.months.has(d.getUTCMonth() + 1)) continue;
    const dom = cron.days.has(d.getUTCDate());
    const dow = cron.weekdays.has(d.getUTCDay());
    if (!(cron.either ? dom || dow : dom && dow)) continue;
    for (const h of hours)
      for (const mi of minutes) {
        const at = instantOf(zone, day + h * 3_600_000 + mi * 60_000);
        if (at < from) return at;
      }
  }
  return null;
}
