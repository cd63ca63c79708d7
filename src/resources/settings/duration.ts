/**
 * ChronicDuration as the platform uses it for `archive_builds_in_human_readable`: parses `2 days`,
 * `1 month`, `1h 30m`, `3600` into seconds, and writes seconds back in its short format (`1d 1h`).
 */
const MINUTE = 60;
const HOUR = 3600;
const DAY = 86400;
const WEEK = 7 * DAY;
const MONTH = 30 * DAY;
const YEAR = 31557600;

const UNITS: Array<[RegExp, number]> = [
  [/^(s|secs?|seconds?)$/, 1],
  [/^(m|mins?|minutes?)$/, MINUTE],
  [/^(h|hrs?|hours?)$/, HOUR],
  [/^(d|days?)$/, DAY],
  [/^(w|wks?|weeks?)$/, WEEK],
  [/^(mo|mos|months?)$/, MONTH],
  [/^(y|yrs?|years?)$/, YEAR],
];

/** Seconds, or undefined when the text is no duration. A bare number is seconds. */
export function parseChronic(text: string): number | undefined {
  const s = text.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(s)) return Math.round(Number(s));
  const re = /(\d+(?:\.\d+)?)\s*([a-z]+)[\s,]*/gy;
  let total = 0;
  let end = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    const unit = UNITS.find(([u]) => u.test(m![2]!.replace(/^and$/, '')));
    if (!unit) return undefined;
    total += Number(m[1]) * unit[1];
    end = re.lastIndex;
  }
  return end === s.length && end > 0 ? Math.round(total) : undefined;
}

/** `ChronicDuration.output(seconds, format: :short)`. */
export function outputChronic(seconds: number): string {
  const parts: string[] = [];
  let rest = seconds;
  for (const [size, unit] of [
    [YEAR, 'y'],
    [MONTH, 'mo'],
    [DAY, 'd'],
    [HOUR, 'h'],
    [MINUTE, 'm'],
    [1, 's'],
  ] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n}${unit}`);
    rest -= n * size;
  }
  return parts.join(' ') || '0s';
}
