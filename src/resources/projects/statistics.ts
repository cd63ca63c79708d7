/** Rendered times, and the deterministic statistics and languages a project reports. */

const digit = (s: string, i: number) => {
  const c = s.charCodeAt(i) - 48;
  return c >= 0 && c <= 9 ? c : -100;
};

/** Times as the platform renders them: ISO 8601 with milliseconds, UTC. */
export function isoTime(s: string | null): string | null {
  // Already so (`/\.\d{3}Z$/`): read by character, as every cold project rendering asks this twice.
  if (s === null) return s;
  const n = s.length;
  if (n >= 5 && s.charCodeAt(n - 1) === 90 && s.charCodeAt(n - 5) === 46) {
    if (digit(s, n - 4) >= 0 && digit(s, n - 3) >= 0 && digit(s, n - 2) >= 0) return s;
  }
  const t = Date.parse(s);
  return Number.isNaN(t) ? s : new Date(t).toISOString();
}

export const DAY = 86_400_000;

/** A two-digit field of `s` at `i` as a number (negative when not two digits). */
const two = (s: string, i: number) => digit(s, i) * 10 + digit(s, i + 1);

/**
 * `new Date(Date.parse(s) + DAY).toISOString()`: for a time as toISOString writes it (years 0000-9999) on
 * the 1st to 27th of a month only the day changes, so no date is parsed or formatted.
 */
export function dayAfter(s: string): string {
  if (
    s.length === 24 &&
    s.charCodeAt(4) === 45 &&
    s.charCodeAt(7) === 45 &&
    s.charCodeAt(10) === 84 &&
    s.charCodeAt(13) === 58 &&
    s.charCodeAt(16) === 58 &&
    s.charCodeAt(19) === 46 &&
    s.charCodeAt(23) === 90 &&
    two(s, 0) >= 0 &&
    two(s, 2) >= 0 &&
    two(s, 5) >= 1 &&
    two(s, 5) <= 12 &&
    two(s, 11) >= 0 &&
    two(s, 11) <= 23 &&
    two(s, 14) >= 0 &&
    two(s, 14) <= 59 &&
    two(s, 17) >= 0 &&
    two(s, 17) <= 59 &&
    digit(s, 20) >= 0 &&
    two(s, 21) >= 0
  ) {
    const day = two(s, 8);
    if (day >= 1 && day <= 27) return `${s.slice(0, 8)}${day < 9 ? '0' : ''}${day + 1}${s.slice(10)}`;
  }
  return new Date(Date.parse(s) + DAY).toISOString();
}

/**
 * A project's statistics: the repository's size is its objects' (`repositoryBytes`, given by the
 * caller), the other figures deterministic stand-ins: a project always reports the same ones.
 */
export interface ProjectStatistics {
  commit_count: number;
  storage_size: number;
  repository_size: number;
  wiki_size: number;
  lfs_objects_size: number;
  job_artifacts_size: number;
  packages_size: number;
  snippets_size: number;
}

function mix(n: number): number {
  let z = Math.imul(n ^ (n >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

export function projectStatistics(id: number, repository_size: number): ProjectStatistics {
  const h1 = mix(id * 4 + 1);
  const h2 = mix(id * 4 + 2);
  const h3 = mix(id * 4 + 3);
  const wiki_size = h2 % 4 === 0 ? 0 : (h2 >>> 3) % 1_048_576;
  const lfs_objects_size = h3 % 5 === 0 ? (h3 >>> 4) % 104_857_600 : 0;
  const job_artifacts_size = (h1 >>> 5) % 3 === 0 ? 0 : (h2 >>> 7) % 20_971_520;
  const packages_size = (h3 >>> 9) % 7 === 0 ? (h1 >>> 11) % 10_485_760 : 0;
  const snippets_size = 0;
  return {
    commit_count: 1 + ((h2 >>> 11) % 2_500),
    storage_size:
      repository_size + wiki_size + lfs_objects_size + job_artifacts_size + packages_size + snippets_size,
    repository_size,
    wiki_size,
    lfs_objects_size,
    job_artifacts_size,
    packages_size,
    snippets_size,
  };
}

const LANGUAGES = [
  'Ruby',
  'JavaScript',
  'TypeScript',
  'Go',
  'Python',
  'Java',
  'Shell',
  'HTML',
  'CSS',
  'Vue',
  'Dockerfile',
  'Makefile',
  'C',
  'Rust',
];

/** `GET /projects/:id/languages`: a deterministic mix of up to five languages, percentages summing to 100. */
export function projectLanguages(id: number): Record<string, number> {
  const h = mix(id * 7 + 5);
  const count = 1 + (h % 5);
  const picked: string[] = [];
  for (let i = 0; picked.length < count; i++) {
    const lang = LANGUAGES[mix(id * 31 + i) % LANGUAGES.length]!;
    if (!picked.includes(lang)) picked.push(lang);
  }
  const weights = picked.map((_, i) => 1 + (mix(id * 13 + i) % 1000));
  const total = weights.reduce((a, b) => a + b, 0);
  // Hundredths, largest first; the first takes the rounding remainder so the sum is exactly 100.
  const shares = weights.map((w) => Math.floor((w / total) * 10_000)).sort((a, b) => b - a);
  shares[0]! += 10_000 - shares.reduce((a, b) => a + b, 0);
  const out: Record<string, number> = {};
  picked.forEach((lang, i) => (out[lang] = shares[i]! / 100));
  return out;
}

/** A flat copy of a concatenation: the cache then holds one string, not the tree of its pieces. */
