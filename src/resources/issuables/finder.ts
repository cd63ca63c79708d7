/**
 * `IssuesFinder` and `MergeRequestsFinder`: filters, visibility and ordering, on read-side caches.
 *
 * Each project's issues and merge requests are cached with inverted lists (by state, author, assignee,
 * label, milestone), keyed by the identity of the project's meta record, which every write to the
 * project's issuables replaces. A list request then starts from the shortest list a filter names and
 * checks the full predicate on those candidates only, instead of scanning the project.
 */
import { ACCESS, canReadProject } from '../../core/access.js';
import type { PlatformState, UserRecord } from '../../core/state.js';
import { mget, tget, tkeys } from '../../core/table.js';
import type { Project } from '../projects/model.js';
import { abilities, canSeeIssue, type ProjectAbilities } from './access.js';
import { chunkIds, type IssueRecord, type Kind, type MergeRequestRecord, type ProjectMeta } from './store.js';
import { comparator, type IssueOrder } from './order.js';

import { labelTitle, matches, milestoneTitle, setAny, type FindContext, type Filters } from './filters.js';

export { comparator, type IssueOrder };
export {
  matches,
  parseSearch,
  type FindContext,
  type Filters,
  type NegatableFilters,
  type Search,
  type Wildcard,
} from './filters.js';

type Rec = IssueRecord | MergeRequestRecord;

export interface ProjectSet<T extends Rec> {
  /** Ascending id. */
  all: T[];
  by: Map<string, T[]>;
  /** Orderings of `all` or of an inverted list (`<key>|<order>:<sort>`), built on first use. */
  sorted: Map<string, T[]>;
  /** How many are confidential: with none, visibility needs no check per record. */
  confidential: number;
  /** The ids of the set's labels by lower-cased title, for the labels table they were read from. */
  labelTitles?: TitleIndex;
  /** The ids of the set's milestones by title, for the milestones table they were read from. */
  milestoneTitles?: TitleIndex;
  /** Inverted lists narrowed by state, label ids and milestone ids (`idPrefilter`), by what narrowed them. */
  narrowed?: Map<string, T[]>;
  /** Orderings of the narrowed lists, by list. */
  narrowedSorted?: WeakMap<T[], Map<string, T[]>>;
}

/**
 * The ordered lists kept on a set and returned as they are: the same array answers every request the set
 * stands for, so that what is made of it (a page's rendering) can be kept by its identity.
 */
const keptLists = new WeakSet<readonly Rec[]>();

/** Whether `list` is one the finder keeps and returns again while its records stand (never changed). */
export const isKeptList = (list: readonly Rec[]): boolean => keptLists.has(list);

/** Narrowed lists kept per set: past this many, the set starts over (a client trying many filters). */
const NARROWED_PER_SET = 64;

interface TitleIndex {
  readonly table: object;
  readonly ids: Map<string, number[]>;
}

const caches = {
  i: new WeakMap<ProjectMeta, ProjectSet<Rec>>(),
  m: new WeakMap<ProjectMeta, ProjectSet<Rec>>(),
};
const EMPTY: ProjectSet<Rec> = { all: [], by: new Map(), sorted: new Map(), confidential: 0 };

function push<T>(map: Map<string, T[]>, key: string, v: T): void {
  const list = map.get(key);
  if (list) list.push(v);
  else map.set(key, [v]);
}

function buildSet<T extends Rec>(st: PlatformState, kind: Kind, meta: ProjectMeta): ProjectSet<T> {
  const table = (
    kind === 'i' ? st.issuables.issues : st.issuables.mergeRequests
  ) as PlatformState['issuables']['issues'];
  const ids = chunkIds(
    st.issuables.idx.byProject,
    kind,
    meta.id,
    kind === 'i' ? meta.issue_iid : meta.mr_iid,
  );
  ids.sort((a, b) => a - b);
  const all: T[] = [];
  const by = new Map<string, T[]>();
  let confidential = 0;
  for (const id of ids) {
    const r = tget(table, id) as unknown as T | undefined;
    if (!r) continue;
    all.push(r);
    if ((r as IssueRecord).confidential) confidential++;
    push(by, `s:${r.state}`, r);
    push(by, `a:${r.author_id}`, r);
    if (r.assignee_ids.length === 0) push(by, 'as:none', r);
    for (const u of r.assignee_ids) push(by, `as:${u}`, r);
    if (r.label_ids.length === 0) push(by, 'l:none', r);
    for (const l of r.label_ids) push(by, `l:${l}`, r);
    push(by, `m:${r.milestone_id ?? 'none'}`, r);
  }
  return { all, by, sorted: new Map(), confidential };
}

/** A project's issues (`i`) or merge requests (`m`), cached until the project's issuables change. */
export function projectSet<T extends Rec>(st: PlatformState, kind: Kind, projectId: number): ProjectSet<T> {
  const meta = tget(st.issuables.projectMeta, projectId);
  if (!meta) return EMPTY as ProjectSet<T>;
  let set = caches[kind].get(meta);
  if (!set) {
    set = buildSet(st, kind, meta);
    caches[kind].set(meta, set);
  }
  return set as ProjectSet<T>;
}

/**
 * The ids of the labels (`l`) or milestones (`m`) on the set's records, by title: built once per set and
 * titles table (a rename replaces the table), instead of reading every inverted list's key per request.
 */
function idsByTitle<T extends Rec>(
  set: ProjectSet<T>,
  prefix: 'l:' | 'm:',
  title: (id: number) => string | undefined,
): Map<string, number[]> {
  const ids = new Map<string, number[]>();
  for (const key of set.by.keys()) {
    if (!key.startsWith(prefix) || key === `${prefix}none`) continue;
    const id = Number(key.slice(2));
    const t = title(id);
    if (t === undefined) continue;
    const list = ids.get(t);
    if (list) list.push(id);
    else ids.set(t, [id]);
  }
  return ids;
}

/** The set's label or milestone ids by title (`idsByTitle`), kept on the set for the table they were read from. */
function idsTitled<T extends Rec>(
  st: PlatformState,
  set: ProjectSet<T>,
  kind: 'labelTitles' | 'milestoneTitles',
): Map<string, number[]> {
  const labels = kind === 'labelTitles';
  const table = labels ? st.issuables.labels : st.issuables.milestones;
  let ix = set[kind];
  if (ix?.table !== table) {
    // A label missing from the table has the title '' (as `labelTitle` reads it).
    const ids = labels
      ? idsByTitle(set, 'l:', (id) => labelTitle(st, id))
      : idsByTitle(set, 'm:', (id) => milestoneTitle(st, id));
    ix = { table, ids };
    if (set !== EMPTY) set[kind] = ix;
  }
  return ix.ids;
}

/**
 * What the positive label and milestone filters require, checked on a record's ids before the full
 * predicate (which checks them again by title): the ids of this set's labels and milestones that carry
 * the asked titles. A record has a label titled `t` exactly when one of its label ids is among them, as
 * every label and milestone on the set's records has its inverted list. Null when nothing is asked.
 */
function idPrefilter<T extends Rec>(st: PlatformState, set: ProjectSet<T>, f: Filters): Prefilter<T> | null {
  const labelSets: number[][] = [];
  if (Array.isArray(f.labels)) {
    const byTitle = idsTitled(st, set, 'labelTitles');
    for (const t of f.labels) labelSets.push(byTitle.get(t) ?? []);
  }
  let milestones: number[] | null = null;
  if (typeof f.milestone === 'string' && f.milestone !== 'none' && f.milestone !== 'any')
    milestones = idsTitled(st, set, 'milestoneTitles').get(f.milestone) ?? [];
  const state = f.state !== undefined && f.state !== 'all' ? f.state : null;
  if (labelSets.length === 0 && milestones === null && state === null) return null;
  // What the test reads, as ids: the key stays true whatever the tables' titles become.
  const key = `${state ?? ''}|${milestones === null ? '-' : milestones.join(',')}|${labelSets.map((l) => l.join(',')).join(';')}`;
  const test = (r: T) => {
    if (state !== null && r.state !== state) return false;
    if (milestones !== null && (r.milestone_id === null || !milestones.includes(r.milestone_id)))
      return false;
    for (const ids of labelSets) {
      let has = false;
      for (const id of r.label_ids)
        if (ids.includes(id)) {
          has = true;
          break;
        }
      if (!has) return false;
    }
    return true;
  };
  return { test, key, exact: onlyIds(f) };
}

interface Prefilter<T> {
  test: (r: T) => boolean;
  /** The ids and state it compares. */
  key: string;
  /** Whether it decides the whole predicate (the filters ask for nothing else). */
  exact: boolean;
}

/** Whether the filters ask for no more than a state, label titles and a milestone title. */
function onlyIds(f: Filters): boolean {
  if (f.scope !== 'all' || setAny(f.not)) return false;
  if (f.labels !== undefined && !Array.isArray(f.labels)) return false;
  if (f.milestone === 'none' || f.milestone === 'any') return false;
  for (const k in f) {
    if (k === 'state' || k === 'scope' || k === 'not' || k === 'labels' || k === 'milestone') continue;
    if ((f as unknown as Record<string, unknown>)[k] !== undefined) return false;
  }
  return true;
}

/**
 * `base` (an inverted list of `set`, named `baseKey`) narrowed by the id prefilter, kept on the set: the
 * set and its lists never change (a write replaces the set), and the prefilter's key names every id it
 * compares, so a kept list answers again as long as the set stands.
 */
function narrowed<T extends Rec>(set: ProjectSet<T>, base: T[], baseKey: string, pre: Prefilter<T>): T[] {
  if (set === EMPTY) return base.filter(pre.test);
  const k = `${baseKey}|${pre.key}`;
  const kept = (set.narrowed ??= new Map()).get(k);
  if (kept) return kept;
  const list = base.filter(pre.test);
  if (set.narrowed.size >= NARROWED_PER_SET) set.narrowed.clear();
  set.narrowed.set(k, list);
  return list;
}

/** The empty list a missing inverted list reads as (never changed). */
const NONE: never[] = [];

/** The inverted lists' keys of the states a filter may name (constants: no key is made per request). */
const STATE_KEYS: Readonly<Record<string, string>> = Object.assign(Object.create(null) as object, {
  opened: 's:opened',
  closed: 's:closed',
  merged: 's:merged',
  locked: 's:locked',
});

/** The shortest inverted list the filters name (`all` when none), with its key. */
function candidates<T extends Rec>(
  st: PlatformState,
  set: ProjectSet<T>,
  f: Filters,
  user: UserRecord | null,
): { list: T[]; key: string } {
  // Without closures: this runs on every list request.
  let best = set.all;
  let bestKey = 'all';
  let key: string | undefined;
  let l: T[] | undefined;
  const stateKey = f.state === undefined ? undefined : STATE_KEYS[f.state];
  if (stateKey !== undefined && (l = set.by.get(stateKey) ?? NONE).length < best.length) {
    best = l;
    bestKey = stateKey;
  }
  if (f.authorId !== undefined && (l = set.by.get((key = `a:${f.authorId}`)) ?? NONE).length < best.length) {
    best = l;
    bestKey = key;
  }
  if (f.scope === 'created_by_me' || f.scope === 'assigned_to_me') {
    const prefix = f.scope === 'created_by_me' ? 'a:' : 'as:';
    if ((l = (user ? set.by.get(`${prefix}${user.id}`) : undefined) ?? NONE).length < best.length) {
      best = l;
      bestKey = 'me';
    }
  }
  key = undefined;
  if (f.assignee === 'none') key = 'as:none';
  else if (Array.isArray(f.assignee) && f.assignee.length > 0) key = `as:${f.assignee[0]}`;
  if (key !== undefined && (l = set.by.get(key) ?? NONE).length < best.length) {
    best = l;
    bestKey = key;
  }
  // A title no record's label or milestone carries: nothing matches ('none').
  key = undefined;
  if (f.labels === 'none') key = 'l:none';
  else if (Array.isArray(f.labels) && f.labels.length > 0) {
    // A title may name several labels (a project's and a group's): only a single list can drive.
    const ids = idsTitled(st, set, 'labelTitles').get(f.labels[0]!);
    if (ids === undefined) key = 'none';
    else if (ids.length === 1) key = `l:${ids[0]}`;
  }
  if (key !== undefined && (l = (key === 'none' ? NONE : set.by.get(key)) ?? NONE).length < best.length) {
    best = l;
    bestKey = key;
  }
  key = undefined;
  if (f.milestone === 'none') key = 'm:none';
  else if (typeof f.milestone === 'string' && f.milestone !== 'any') {
    const ids = idsTitled(st, set, 'milestoneTitles').get(f.milestone);
    if (ids === undefined) key = 'none';
    else if (ids.length === 1) key = `m:${ids[0]}`;
  }
  if (key !== undefined && (l = (key === 'none' ? NONE : set.by.get(key)) ?? NONE).length < best.length) {
    best = l;
    bestKey = key;
  }
  return { list: best, key: bestKey };
}

/** A narrowed list in a record-column order, kept beside it on the set (both go with the set). */
function sortedNarrowed<T extends Rec>(
  ctx: FindContext,
  set: ProjectSet<T>,
  list: T[],
  orderBy: 'created_at' | 'updated_at',
  sort: 'asc' | 'desc',
): T[] {
  if (set === EMPTY) return [...list].sort(comparator(ctx.st, orderBy, sort));
  const orders = (set.narrowedSorted ??= new WeakMap());
  const k = `${orderBy}:${sort}`;
  let byOrder = orders.get(list);
  if (byOrder === undefined) orders.set(list, (byOrder = new Map()));
  let out = byOrder.get(k);
  if (out === undefined) {
    out = [...list].sort(comparator(ctx.st, orderBy, sort));
    byOrder.set(k, out);
    keptLists.add(out);
  }
  return out;
}

/** Whether the filters ask for nothing beyond a state: the state's list is then the answer. */
function stateOnly(f: Filters): boolean {
  if (f.scope !== 'all' || setAny(f.not)) return false;
  for (const k in f) {
    if (k === 'state' || k === 'scope' || k === 'not') continue;
    if ((f as unknown as Record<string, unknown>)[k] !== undefined) return false;
  }
  return true;
}

/** One project's matching records, in order: from cached orderings where they answer. */
function findInProject<T extends Rec>(
  ctx: FindContext,
  kind: Kind,
  set: ProjectSet<T>,
  f: Filters,
  visible: ((r: T) => boolean) | null,
  orderBy: IssueOrder,
  sort: 'asc' | 'desc',
  ordered: boolean,
): T[] {
  const { list: candidateList, key } = candidates(ctx.st, set, f, ctx.user);
  const pre = idPrefilter(ctx.st, set, f);
  const base = pre === null ? candidateList : narrowed(set, candidateList, key, pre);
  const keep = visible
    ? (r: T) => visible(r) && matches(ctx, kind, f, r)
    : (r: T) => matches(ctx, kind, f, r);
  if (pre?.exact && !visible) {
    // The narrowed list is the answer: the predicate asks nothing the prefilter did not decide.
    if (!ordered) return base;
    if (orderBy === 'created_at' || orderBy === 'updated_at')
      return sortedNarrowed(ctx, set, base, orderBy, sort);
    return [...base].sort(comparator(ctx.st, orderBy, sort));
  }
  if (!ordered) return base.filter(keep);
  // Orderings by a record's own columns are cached per project set (the others read labels and
  // milestones, which change without the set changing).
  const cacheable = orderBy === 'created_at' || orderBy === 'updated_at';
  const sortedList = (listKey: string, list: T[]) => {
    const k = `${listKey}|${orderBy}:${sort}`;
    let out = set.sorted.get(k);
    if (!out) {
      out = [...list].sort(comparator(ctx.st, orderBy, sort));
      set.sorted.set(k, out);
      keptLists.add(out);
    }
    return out;
  };
  if (cacheable && !visible && stateOnly(f) && (key === 'all' || key.startsWith('s:')))
    return sortedList(key, candidateList);
  if (cacheable && base.length * 2 > set.all.length) return sortedList('all', set.all).filter(keep);
  return base.filter(keep).sort(comparator(ctx.st, orderBy, sort));
}

export interface FindRequest {
  kind: Kind;
  filters: Filters;
  orderBy: IssueOrder;
  sort: 'asc' | 'desc';
}

/** `find_issues(project_id:)` / `find_merge_requests(project_id:)`. */
export function findInOneProject<T extends Rec>(ctx: FindContext, project: Project, req: FindRequest): T[] {
  const a = abilities(ctx.st, ctx.user, project);
  const set = projectSet<T>(ctx.st, req.kind, project.id);
  const visible = visibility<T>(req.kind, a, set);
  if (visible === false) return [];
  return findInProject(ctx, req.kind, set, req.filters, visible, req.orderBy, req.sort, true);
}

/** The per-record visibility check: false when nothing is visible, null when everything is. */
function visibility<T extends Rec>(
  kind: Kind,
  a: ProjectAbilities,
  set: ProjectSet<T>,
): ((r: T) => boolean) | null | false {
  if (kind === 'i') {
    if (!a.issues) return false;
    if (set.confidential === 0 || a.allConfidential) return null;
    return (r) => canSeeIssue(a, r as IssueRecord);
  }
  return a.mergeRequests ? null : false;
}

/** Across projects (a group's, or every project the viewer can read): merged and ordered. */
export function findInProjects<T extends Rec>(
  ctx: FindContext,
  projectIds: Iterable<number>,
  req: FindRequest,
  nonArchived: boolean,
): T[] {
  const out: T[] = [];
  for (const pid of projectIds) {
    const p = tget(ctx.st.projects, pid) as Project | undefined;
    if (!p || (nonArchived && p.archived)) continue;
    const set = projectSet<T>(ctx.st, req.kind, pid);
    if (set.all.length === 0) continue;
    if (!canReadProject(ctx.st, ctx.user, p)) continue;
    const visible = visibility<T>(req.kind, abilities(ctx.st, ctx.user, p), set);
    if (visible === false) continue;
    for (const r of findInProject(ctx, req.kind, set, req.filters, visible, req.orderBy, req.sort, false))
      out.push(r);
  }
  return out.sort(comparator(ctx.st, req.orderBy, req.sort));
}

/** Ids of every project that has issuables, for the instance-wide lists. */
export function projectsWithIssuables(st: PlatformState): number[] {
  return tkeys(st.issuables.projectMeta);
}

/** The projects under a group and its subgroups. */
export function groupProjectIds(st: PlatformState, groupId: number): number[] {
  const out: number[] = [];
  const groups = [groupId];
  for (let i = 0; i < groups.length; i++) {
    for (const pid of mget(st.idx.projectsByNamespace, `group:${groups[i]}`)) out.push(pid);
    for (const child of mget(st.idx.subgroups, String(groups[i]))) groups.push(child);
  }
  return out;
}

export { ACCESS };
