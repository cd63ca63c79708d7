/**
 * Cron lines as `Gitlab::Ci::CronParser` (Fugit) reads a schedule's: five fields (minute, hour, day of
 * month, month, day of week) of `*`, numbers, ranges, steps and lists, month and weekday names, weekday 7
 * as Sunday; a day of month and a day of week both given match either. Times are worked out in the
 * schedule's IANA time zone. Fugit's own extensions are read too: `L` and negative days of month (`-2`:
 * the day before the last) and a weekday's nth of the month (`mon#2`, `fri#L`, `fri#-1`).
 *
 * Why not a library: the platform validates with `Fugit::Cron.parse("#{cron} #{cron_timezone}")`
 * (`Gitlab::Ci::CronParser#try_parse_cron`), so what it refuses matters as much as what it accepts.
 * `cron-parser` (the best-kept JavaScript one) accepts Quartz's `?`, `W` and `H`, which Fugit refuses,
 * and lacks Fugit's negative days and `#L`; a wrapper that filters its input would be as long as this
 * parser. `@daily`-style specials are refused, as the platform's appended time zone makes Fugit refuse
 * them. Fugit's six-field lines (seconds first) and weekday modulo (`tue%2`) are not read.
 */

export interface Cron {
  minutes: number[];
  hours: number[];
  days: Set<number>;
  months: Set<number>;
  weekdays: Set<number>;
  /** Days counted from the month's end: 1 is its last day (Fugit's `L` and `-1`). */
  lastDays: number[];
  /** A weekday's nth of the month: [weekday, n], n > 0 from the start, n < 0 from the end (`#L`: -1). */
  nthWeekdays: Array<[number, number]>;
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
  const months = field(mon, 1, 12, MONTHS, 1);
  // `L`, `-N`, `day#N` are list items of their own; the rest of the list is ordinary cron.
  const lastDays: number[] = [];
  const plainDays = dom.split(',').filter((item) => {
    const m = /^(?:L|-(\d{1,2}))$/.exec(item);
    if (!m) return true;
    const back = m[1] === undefined ? 1 : Number(m[1]);
    lastDays.push(back >= 1 && back <= 30 ? back : 0);
    return false;
  });
  const nthWeekdays: Array<[number, number]> = [];
  const plainWeekdays = dow.split(',').filter((item) => {
    const m = /^([a-z]{3}|\d)#(L|-?\d)$/i.exec(item);
    if (!m) return true;
    const day = field(m[1]!, 0, 7, WEEKDAYS);
    const n = m[2]!.toUpperCase() === 'L' ? -1 : Number(m[2]);
    nthWeekdays.push([day?.length === 1 && n !== 0 && n >= -5 && n <= 5 ? day[0]! % 7 : -1, n]);
    return false;
  });
  const days = plainDays.length ? field(plainDays.join(','), 1, 31) : [];
  const weekdays = plainWeekdays.length ? field(plainWeekdays.join(','), 0, 7, WEEKDAYS) : [];
  if (!minutes || !hours || !days || !months || !weekdays) return null;
  if (lastDays.includes(0) || nthWeekdays.some(([d]) => d < 0)) return null;
  // As cron does: a field that starts with `*` leaves the day to the other one.
  const anyDay = dom.startsWith('*');
  const anyWeekday = dow.startsWith('*');
  return {
    minutes,
    hours,
    days: new Set(days),
    months: new Set(months),
    weekdays: new Set(weekdays.map((d) => d % 7)),
    lastDays,
    nthWeekdays,
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

/** Whether the line's days match a date (its UTC fields are the zone's local date). */
function dayMatches(cron: Cron, d: Date): boolean {
  if (!cron.months.has(d.getUTCMonth() + 1)) return false;
  const date = d.getUTCDate();
  const length = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  const weekday = d.getUTCDay();
  const dom = cron.days.has(date) || cron.lastDays.includes(length - date + 1);
  const dow =
    cron.weekdays.has(weekday) ||
    cron.nthWeekdays.some(
      ([w, n]) =>
        w === weekday && (n > 0 ? Math.ceil(date / 7) === n : Math.ceil((length - date + 1) / 7) === -n),
    );
  return cron.either ? dom || dow : dom && dow;
}

/** How far ahead the next time is looked for: a line that matches no day in that span never runs. */
const SEARCH_DAYS = 366 * 5;

/** The first time the line matches strictly after `from` (ms), or null when there is none. */
export function nextTime(cron: Cron, zone: string, from: number): number | null {
  const local = from + offsetAt(zone, from);
  const start = new Date(local);
  let day = Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate());
  for (let n = 0; n < SEARCH_DAYS; n++, day += 86_400_000) {
    if (!dayMatches(cron, new Date(day))) continue;
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
    if (!dayMatches(cron, new Date(day))) continue;
    for (const h of hours)
      for (const mi of minutes) {
        const at = instantOf(zone, day + h * 3_600_000 + mi * 60_000);
        if (at < from) return at;
      }
  }
  return null;
}
