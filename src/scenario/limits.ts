/**
 * Bounds on what a scenario's `generate` block may ask for. Generated worlds live in memory: ten
 * million users would run any process out of it, so each count has a ceiling (above the largest worlds
 * the benchmarks build), and a scenario past one is refused, naming it, before anything is generated.
 */
import type { Scenario } from './schema.js';

export const GENERATE_LIMITS = {
  users: 100_000,
  groups: 100_000,
  projects: 100_000,
  /** Issues over all projects (`issues_per_project` times explicit and generated projects). */
  issues: 1_000_000,
  /** Merge requests over all projects, likewise. */
  merge_requests: 1_000_000,
} as const;

/** The problems of a `generate` block past its limits, as scenario field paths. */
export function generateProblems(s: Scenario): string[] {
  const g = s.generate;
  if (!g) return [];
  const out: string[] = [];
  const over = (field: string, n: number, limit: number, what = field) => {
    if (n > limit) out.push(`generate.${field}: at most ${limit} ${what} can be generated (asked for ${n})`);
  };
  over('users', g.users, GENERATE_LIMITS.users);
  over('groups', g.groups, GENERATE_LIMITS.groups);
  over('projects', g.projects, GENERATE_LIMITS.projects);
  const projects = s.projects.length + g.projects;
  over('issues_per_project', g.issues_per_project * projects, GENERATE_LIMITS.issues, 'issues in all');
  over(
    'merge_requests_per_project',
    g.merge_requests_per_project * projects,
    GENERATE_LIMITS.merge_requests,
    'merge requests in all',
  );
  return out;
}
