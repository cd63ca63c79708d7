/** Rendered times, and the deterministic statistics and languages a project reports. */

/** Times as the platform renders them: ISO 8601 with milliseconds, UTC. */
export function isoTime(s: string | null): string | null {
  if (s === null || /\.\d{3}Z$/.test(s)) return s;
  const t = Date.parse(s);
  return Number.isNaN(t) ? s : new Date(t).toISOString();
}

export const DAY = 86_400_000;

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
