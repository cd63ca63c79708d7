/**
 * Generated issues and merge requests (`generate.issues_per_project`, `merge_requests_per_project`):
 * for every project, a few labels and milestones, then issues and merge requests by its members, with
 * plausible titles, states, labels, assignees and due dates. Deterministic for a seed; plain mutation on
 * the state being built, a handful of bucket writes per record.
 */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { PlatformState } from '../../core/state.js';
import { mget, tget, tkeys } from '../../core/table.js';
import type { Project } from '../projects/model.js';
import { reportProgress } from '../../scenario/progress.js';
import { createIssue, createLabel, createMergeRequest, createMilestone, realizeDeclared } from './model.js';
import { generateRepositories, type RepositoryGenerateSpec } from '../repository/generate.js';

type S = Draft<PlatformState>;

export interface IssuablesSpec {
  issues_per_project?: number;
  merge_requests_per_project?: number;
}

const LABELS: [string, string, number | null][] = [
  ['bug', '#D9534F', 1],
  ['feature', '#5CB85C', 2],
  ['enhancement', '#428BCA', 3],
  ['documentation', '#F0AD4E', null],
  ['security', '#CC0033', 0],
  ['ux', '#7F8C8D', null],
];
const VERBS =
  'Fix Add Remove Update Refactor Improve Document Investigate Support Handle Migrate Optimise'.split(' ');
const THINGS = (
  'login page,search results,user profile,API pagination,error messages,dark mode,email notifications,' +
  'file uploads,CI pipeline,dashboard charts,settings form,password reset,session timeout,export to CSV,' +
  'mobile layout,webhooks,audit log,rate limiting,caching layer,database migrations,release notes,' +
  'onboarding flow,billing page,access tokens,markdown rendering,issue board,merge checks,cron jobs'
).split(',');
const DETAILS = [
  'on Safari',
  'for admins',
  'when the list is empty',
  'after an upgrade',
  'in the API',
  'for large projects',
  'behind a proxy',
  '',
  '',
  '',
];

/** mulberry32: small, fast and the same sequence everywhere. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DAY = 86_400_000;

/** Adds generated issuables to every project of a state being built. */
/** The counts of `generate` this area reads. */
export const generateIssuablesFields = {
  issues_per_project: z
    .number()
    .int()
    .min(0)
    .default(0)
    .describe('issues in every project (explicit and generated), with labels, milestones and assignees'),
  merge_requests_per_project: z.number().int().min(0).default(0).describe('merge requests in every project'),
};

export function generateIssuables(st: S, spec: IssuablesSpec, seed: number, now: Date): void {
  const issues = spec.issues_per_project ?? 0;
  const mrs = spec.merge_requests_per_project ?? 0;
  if (issues + mrs === 0) return;
  const rand = prng(seed ^ 0x15a0e5);
  const below = (n: number) => Math.floor(rand() * n);
  const pick = <T>(list: readonly T[]): T => list[below(list.length)]!;
  const end = now.getTime();
  const nowIso = now.toISOString();
  const title = () => {
    const d = pick(DETAILS);
    return `${pick(VERBS)} ${pick(THINGS)}${d ? ` ${d}` : ''}`;
  };
  const projectIds = tkeys(st.projects);
  const mrIds: number[] = [];
  for (const [n, pid] of projectIds.entries()) {
    const p = tget(st.projects, pid) as Project;
    const people = [p.creator_id];
    for (const mid of mget(st.idx.membersBySource, `project:${pid}`)) {
      const m = tget(st.members, mid)!;
      if (!people.includes(m.user_id)) people.push(m.user_id);
    }
    if (p.namespace_kind === 'group')
      for (const mid of mget(st.idx.membersBySource, `group:${p.namespace_id}`)) {
        const m = tget(st.members, mid)!;
        if (!people.includes(m.user_id)) people.push(m.user_id);
      }
    const labelIds = LABELS.map(([t, color, priority]) =>
      createLabel(st, { project_id: pid }, { title: t, color, priority }, p.created_at),
    );
    const start = Date.parse(p.created_at);
    const span = Math.max(DAY, end - start);
    const milestoneIds = [1, 2, 3].map((n) =>
      createMilestone(
        st,
        { project_id: pid },
        {
          title: `v${n}.0`,
          state: n === 1 && rand() < 0.5 ? 'closed' : 'active',
          due_date: new Date(start + (span * n) / 3 + 30 * DAY).toISOString().slice(0, 10),
        },
        p.created_at,
      ),
    );
    const someLabels = () => {
      const out: number[] = [];
      for (let k = below(3); k > 0; k--) {
        const l = pick(labelIds);
        if (!out.includes(l)) out.push(l);
      }
      return out;
    };
    const at = (i: number, n: number) =>
      new Date(start + Math.floor(((i + rand()) / n) * span)).toISOString();
    for (let i = 0; i < issues; i++) {
      const created = at(i, issues);
      const closed = rand() < 0.3;
      const assigned = rand() < 0.6;
      createIssue(
        st,
        {
          project_id: pid,
          author_id: pick(people),
          title: title(),
          description: rand() < 0.5 ? `Steps:\n\n- [x] reproduce\n- [ ] fix` : null,
          assignee_ids: assigned ? [pick(people)] : [],
          label_ids: someLabels(),
          milestone_id: rand() < 0.4 ? pick(milestoneIds) : null,
          confidential: rand() < 0.05,
          due_date: rand() < 0.2 ? new Date(end + (below(90) - 30) * DAY).toISOString().slice(0, 10) : null,
          state: closed ? 'closed' : 'opened',
          created_at: created,
          updated_at: created,
          closed_at: closed ? created : null,
        },
        nowIso,
      );
    }
    for (let i = 0; i < mrs; i++) {
      const created = at(i, mrs);
      const r = rand();
      const id = createMergeRequest(
        st,
        {
          project_id: pid,
          author_id: pick(people),
          title: title(),
          source_branch: `feature-${i + 1}`,
          target_branch: p.default_branch ?? 'master',
          assignee_ids: rand() < 0.5 ? [pick(people)] : [],
          label_ids: someLabels(),
          state: r < 0.6 ? 'opened' : r < 0.85 ? 'merged' : 'closed',
          created_at: created,
          updated_at: created,
          merged_at: created,
          closed_at: created,
          version: false,
        },
        nowIso,
      );
      mrIds.push(id);
    }
    reportProgress('issues and merge requests (projects done)', n + 1, projectIds.length);
  }
  if (mrIds.length === 0) return;
  // The branches start from the default branches' heads: the generated repositories come first (the
  // repository area's own pass then skips every project it has written).
  generateRepositories(st, spec as RepositoryGenerateSpec, seed, now);
  for (const id of mrIds) realizeDeclared(st, id);
}
