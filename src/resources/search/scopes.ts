/**
 * What each search scope finds (`Gitlab::SearchResults` and its group and project variants), for one
 * viewer within a set of projects: the records, filtered and ordered as the platform's finders do.
 * Rendering is left to the routes.
 */
import { ACCESS, canReadProject, groupAccess, projectAccess } from '../../core/access.js';
import type { GroupRecord, PlatformState, ProjectRecord, UserRecord } from '../../core/state.js';
import { mget, tget, tvalues } from '../../core/table.js';
import { descendantIds } from '../groups/model.js';
import { abilities, canSeeIssue, canSeeNote } from '../issuables/access.js';
import { findInProjects, parseSearch, type FindContext, type Filters } from '../issuables/finder.js';
import type {
  IssueRecord,
  MergeRequestRecord,
  MilestoneRecord,
  NoteRecord,
  SnippetRecord,
} from '../issuables/store.js';
import { canDownloadCode } from '../projects/access.js';
import type { Project } from '../projects/model.js';
import { searchProjects } from '../projects/finder.js';
import { canReadSnippet } from '../snippets/model.js';
import { compileSearch, fuzzyWords } from '../users/finder.js';

export interface SearchInput {
  ctx: FindContext;
  query: string;
  /** `state` (all, opened, closed, merged). */
  state?: string;
  confidential?: boolean;
  /** `order_by=created_at&sort=asc` turns the issuable order around; anything else is newest first. */
  ascending: boolean;
}

/** The projects a search runs in: every readable one, a group's, or one. */
export type Within =
  { kind: 'all' } | { kind: 'group'; group: GroupRecord } | { kind: 'project'; project: Project };

const byIdDesc = (a: { id: number }, b: { id: number }) => b.id - a.id;
const byUpdatedDesc = <T extends { id: number; updated_at: string }>(a: T, b: T) =>
  a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : b.id - a.id;

/** Ids of the projects in scope that the viewer may read. */
export function projectIds(st: PlatformState, user: UserRecord | null, w: Within): number[] {
  if (w.kind === 'project') return [w.project.id];
  const ids =
    w.kind === 'group'
      ? [w.group.id, ...descendantIds(st, w.group.id)].flatMap((g) =>
          mget(st.idx.projectsByNamespace, `group:${g}`),
        )
      : tvalues(st.projects).map((p) => p.id);
  return ids.filter((id) => {
    const p = tget(st.projects, id);
    return !!p && canReadProject(st, user, p);
  });
}

/** `Project.search` over the projects in scope, newest first (`ProjectsFinder`'s `id_desc`). */
export function searchProjectsIn(st: PlatformState, ids: number[], query: string): ProjectRecord[] {
  const found = searchProjects(st, query);
  return ids
    .filter((id) => found.hits[id] === 1)
    .map((id) => tget(st.projects, id)!)
    .sort(byIdDesc);
}

/**
 * `issuable_params`: a query ending in `#12` (or `!12`) looks the iid up instead of searching text.
 */
function issuableFilters(i: SearchInput, kind: 'i' | 'm'): Filters | null {
  const f: Filters = { scope: 'all', not: {} };
  const iid = /[#!](\d+)$/.exec(i.query);
  if (iid) f.iids = [Number(iid[1])];
  else {
    const s = parseSearch(i.query);
    if (!s) return null;
    f.search = s;
  }
  // `by_state`: issues have no merged state, and `merged` means closed for them.
  if (i.state && i.state !== 'all') f.state = kind === 'i' && i.state === 'merged' ? 'closed' : i.state;
  if (kind === 'i' && i.confidential !== undefined) f.confidential = i.confidential;
  return f;
}

export function searchIssuables<T extends IssueRecord | MergeRequestRecord>(
  i: SearchInput,
  ids: number[],
  kind: 'i' | 'm',
): T[] {
  const filters = issuableFilters(i, kind);
  if (!filters) return [];
  return findInProjects<T>(
    i.ctx,
    ids,
    { kind, filters, orderBy: 'created_at', sort: i.ascending ? 'asc' : 'desc' },
    false,
  );
}

/** `Gitlab::SQL::Pattern` over several columns: any one holds every word (or equals the short query). */
function textSearch(query: string): ((fields: readonly (string | null)[]) => boolean) | null {
  const q = query.trim().replace(/\s+/g, ' ').toLowerCase();
  if (q === '') return null;
  const words = fuzzyWords(q);
  return (fields) =>
    fields.some((f) => {
      if (f === null) return false;
      const t = f.toLowerCase();
      return words.length === 0 ? t === q : words.every((w) => t.includes(w));
    });
}

/**
 * Project milestones whose title or description match, in projects where the viewer may read issues or
 * merge requests; recently updated first.
 */
export function searchMilestones(i: SearchInput, ids: number[]): MilestoneRecord[] {
  const test = textSearch(i.query);
  if (!test) return [];
  const st = i.ctx.st;
  const out: MilestoneRecord[] = [];
  for (const pid of ids) {
    const p = tget(st.projects, pid) as Project | undefined;
    if (!p) continue;
    const a = abilities(st, i.ctx.user, p);
    if (!a.issues && !a.mergeRequests) continue;
    for (const mid of mget(st.issuables.idx.owned, `p${pid}`)) {
      const m = tget(st.issuables.milestones, mid);
      if (m && test([m.title, m.description])) out.push(m);
    }
  }
  return out.sort(byUpdatedDesc);
}

/** Comments (not system notes) of one project that the viewer may read, recently updated first. */
export function searchNotes(i: SearchInput, project: Project): NoteRecord[] {
  const test = textSearch(i.query);
  if (!test) return [];
  const st = i.ctx.st;
  const a = abilities(st, i.ctx.user, project);
  const readable = (n: NoteRecord) => {
    if (n.noteable_type === 'Issue') {
      const issue = tget(st.issuables.issues, n.noteable_id);
      return !!issue && canSeeIssue(a, issue);
    }
    if (n.noteable_type === 'MergeRequest') return a.mergeRequests;
    if (n.noteable_type === 'Snippet') {
      const s = tget(st.issuables.snippets, n.noteable_id);
      return !!s && canReadSnippet(st, i.ctx.user, s);
    }
    // `NotesFinder`: a project's commit notes for a viewer who may download its code.
    if (n.noteable_type === 'Commit') return canDownloadCode(project, i.ctx.user, a.level);
    return false;
  };
  return tvalues(st.issuables.notes)
    .filter((n) => n.project_id === project.id && !n.system && test([n.body]))
    .filter((n) => canSeeNote(a, n) && readable(n))
    .sort(byUpdatedDesc);
}

/** Snippets the viewer may read whose title, description or file name match; recently updated first. */
export function searchSnippetTitles(i: SearchInput): SnippetRecord[] {
  const test = textSearch(i.query);
  if (!test) return [];
  const st = i.ctx.st;
  return tvalues(st.issuables.snippets)
    .filter((s) => test([s.title, s.description, s.file_name]) && canReadSnippet(st, i.ctx.user, s))
    .sort(byUpdatedDesc);
}

/** Who counts as a member of the scope: anyone for an instance search. */
function memberTest(st: PlatformState, w: Within): ((u: UserRecord) => boolean) | null {
  if (w.kind === 'all') return null;
  if (w.kind === 'project') return (u) => projectAccess(st, u, w.project) >= ACCESS.GUEST;
  // `direct_and_indirect_users`: members of the group's ancestors, of the group and its subgroups,
  // and of the projects in them.
  const subtree = [w.group.id, ...descendantIds(st, w.group.id)];
  const users = new Set<number>();
  const keys = subtree.map((g) => `group:${g}`);
  for (const g of subtree)
    for (const pid of mget(st.idx.projectsByNamespace, `group:${g}`)) keys.push(`project:${pid}`);
  for (const key of keys)
    for (const id of mget(st.idx.membersBySource, key)) {
      const m = tget(st.members, id);
      if (m && m.access_level >= ACCESS.GUEST) users.add(m.user_id);
    }
  return (u) => users.has(u.id) || groupAccess(st, u, w.group) >= ACCESS.GUEST;
}

/** `User.search` among the scope's members: by relevance (exact name, username, e-mail), then name. */
export function searchUsers(i: SearchInput, w: Within): UserRecord[] {
  const st = i.ctx.st;
  const search = compileSearch(st, i.query);
  if (!search) return [];
  const member = memberTest(st, w);
  return search
    .candidates('id', 'desc')
    .filter((k) => search.test(k) && (!member || member(k.u)))
    .map((k) => ({ k, rank: search.rank(k) }))
    .sort(
      (a, b) =>
        a.rank - b.rank || (a.k.u.name < b.k.u.name ? -1 : a.k.u.name > b.k.u.name ? 1 : b.k.u.id - a.k.u.id),
    )
    .map((r) => r.k.u);
}
