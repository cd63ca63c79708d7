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
import { isWip } from './text.js';
import { comparator, type IssueOrder } from './order.js';

export { comparator, type IssueOrder };

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

// ---------------------------------------------------------------------------------------------------
// Filters

export type Wildcard = 'none' | 'any';

export interface NegatableFilters {
  /** Lower-cased label titles; or a wildcard. */
  labels?: string[] | Wildcard;
  milestone?: string | Wildcard;
  /** A user id; -1 for an unknown user (nothing matches). */
  authorId?: number;
  assignee?: number[] | Wildcard;
  reviewer?: number | Wildcard;
  myReaction?: string | Wildcard;
  weight?: number | Wildcard;
  iids?: number[];
  search?: Search;
}

export interface Search {
  /** Lower-cased words of at least 3 characters (quoted phrases kept whole), or the whole query. */
  words: string[];
  exact: string | null;
  title: boolean;
  description: boolean;
}

export interface Filters extends NegatableFilters {
  state?: string;
  scope: 'all' | 'created_by_me' | 'assigned_to_me';
  createdAfter?: string;
  createdBefore?: string;
  updatedAfter?: string;
  updatedBefore?: string;
  confidential?: boolean;
  dueDate?: '0' | 'overdue' | 'week' | 'month' | 'next_month_and_previous_two_weeks';
  sourceBranch?: string;
  targetBranch?: string;
  sourceProjectId?: number;
  wip?: 'yes' | 'no';
  not: NegatableFilters;
}

/** `Gitlab::SQL::Pattern`: words of three characters or more, each matched as a substring; else the whole query exactly. */
export function parseSearch(raw: string, inParam?: string): Search | undefined {
  const query = raw.trim().replace(/\s+/g, ' ');
  if (query === '') return undefined;
  const words: string[] = [];
  const quoted = /"([^"]+)"/g;
  for (const m of query.matchAll(quoted)) words.push(m[1]!.toLowerCase());
  for (const w of query.replace(quoted, ' ').split(' ')) if (w.length >= 3) words.push(w.toLowerCase());
  const cols = (inParam ?? '').split(',').map((s) => s.trim());
  let title = cols.includes('title');
  let description = cols.includes('description');
  if (!title && !description) title = description = true;
  return { words, exact: words.length ? null : query.toLowerCase(), title, description };
}

function textMatches(s: Search, text: string | null): boolean {
  if (text === null) return false;
  const t = text.toLowerCase();
  if (s.exact !== null) return t === s.exact;
  return s.words.every((w) => t.includes(w));
}

const searchMatches = (s: Search, r: Rec) =>
  (s.title && textMatches(s, r.title)) || (s.description && textMatches(s, r.description));

/** What a predicate needs beyond the record: the viewer, the clock's today, label titles, awards. */
export interface FindContext {
  st: PlatformState;
  user: UserRecord | null;
  today: string;
  /** Whether this instance shows weights (paid tiers). */
  weights: boolean;
}

const lowerTitles = new WeakMap<object, string>();

/** A label's lower-cased title, memoised per label record. */
function labelTitle(st: PlatformState, id: number): string {
  const l = tget(st.issuables.labels, id);
  if (!l) return '';
  let t = lowerTitles.get(l);
  if (t === undefined) {
    t = l.title.toLowerCase();
    lowerTitles.set(l, t);
  }
  return t;
}

function milestoneTitle(st: PlatformState, id: number): string | undefined {
  return tget(st.issuables.milestones, id)?.title;
}

function reacted(ctx: FindContext, kind: Kind, r: Rec, name: string | Wildcard): boolean {
  const uid = ctx.user!.id;
  for (const id of mget(ctx.st.issuables.idx.awards, `${kind === 'i' ? 'Issue' : 'MergeRequest'}:${r.id}`)) {
    const a = tget(ctx.st.issuables.awards, id)!;
    if (a.user_id === uid && (name === 'any' || name === 'none' || a.name === name)) return true;
  }
  return false;
}

/**
 * The filters `not[...]` can negate. Each check answers "the record has it"; positively every check must
 * hold, negated any one that holds excludes the record. Lists differ by direction: positive labels and
 * assignee usernames must all be present, negated ones exclude a record that has any of them.
 */
function matchesNegatable(
  ctx: FindContext,
  kind: Kind,
  f: NegatableFilters,
  r: Rec,
  negated: boolean,
): boolean {
  // `decided(has)`: the answer when a check is final for this direction, else undefined (keep checking).
  const final = (has: boolean) => (negated ? has : !has);
  const st = ctx.st;
  if (f.labels !== undefined) {
    let has: boolean;
    if (f.labels === 'none') has = r.label_ids.length === 0;
    else if (f.labels === 'any') has = r.label_ids.length > 0;
    else {
      const hasTitle = (t: string) => {
        for (const id of r.label_ids) if (labelTitle(st, id) === t) return true;
        return false;
      };
      has = negated ? f.labels.some(hasTitle) : f.labels.every(hasTitle);
    }
    if (final(has)) return false;
  }
  if (f.milestone !== undefined) {
    const m = r.milestone_id;
    const has =
      f.milestone === 'none'
        ? m === null
        : f.milestone === 'any'
          ? m !== null
          : m !== null && milestoneTitle(st, m) === f.milestone;
    if (final(has)) return false;
  }
  if (f.authorId !== undefined && final(r.author_id === f.authorId)) return false;
  if (f.assignee !== undefined) {
    const a = r.assignee_ids;
    let has: boolean;
    if (f.assignee === 'none') has = a.length === 0;
    else if (f.assignee === 'any') has = a.length > 0;
    else has = negated ? f.assignee.some((id) => a.includes(id)) : f.assignee.every((id) => a.includes(id));
    if (final(has)) return false;
  }
  if (f.reviewer !== undefined && kind === 'm') {
    const rv = (r as MergeRequestRecord).reviewer_ids;
    const has =
      f.reviewer === 'none'
        ? rv.length === 0
        : f.reviewer === 'any'
          ? rv.length > 0
          : rv.includes(f.reviewer);
    if (final(has)) return false;
  }
  if (f.myReaction !== undefined && ctx.user) {
    const any = reacted(ctx, kind, r, f.myReaction);
    if (final(f.myReaction === 'none' ? !any : any)) return false;
  }
  if (f.weight !== undefined && ctx.weights && kind === 'i') {
    const w = (r as IssueRecord).weight;
    const has = f.weight === 'none' ? w === null : f.weight === 'any' ? w !== null : w === f.weight;
    if (final(has)) return false;
  }
  if (f.iids !== undefined && final(f.iids.includes(r.iid))) return false;
  if (f.search !== undefined && final(searchMatches(f.search, r))) return false;
  return true;
}

function dueDateMatches(kind: Filters['dueDate'], due: string | null, today: string): boolean {
  if (kind === '0') return due === null;
  if (due === null) return false;
  const t = Date.parse(`${today}T00:00:00Z`);
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const DAY = 86_400_000;
  const d = new Date(t);
  if (kind === 'overdue') return due < today;
  if (kind === 'week') {
    // Rails weeks start on Monday.
    const monday = t - ((d.getUTCDay() + 6) % 7) * DAY;
    return due >= day(monday) && due <= day(monday + 6 * DAY);
  }
  const monthEnd = (y: number, m: number) => day(Date.UTC(y, m + 1, 0));
  if (kind === 'month')
    return (
      due >= day(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)) &&
      due <= monthEnd(d.getUTCFullYear(), d.getUTCMonth())
    );
  // next_month_and_previous_two_weeks
  return due >= day(t - 14 * DAY) && due <= monthEnd(d.getUTCFullYear(), d.getUTCMonth() + 1);
}

/** The full predicate of a list request (visibility is checked separately). */
export function matches(ctx: FindContext, kind: Kind, f: Filters, r: Rec): boolean {
  if (f.state !== undefined && f.state !== 'all' && r.state !== f.state) return false;
  if (f.scope === 'created_by_me' && r.author_id !== ctx.user?.id) return false;
  if (f.scope === 'assigned_to_me' && !(ctx.user && r.assignee_ids.includes(ctx.user.id))) return false;
  if (f.createdAfter !== undefined && r.created_at < f.createdAfter) return false;
  if (f.createdBefore !== undefined && r.created_at > f.createdBefore) return false;
  if (f.updatedAfter !== undefined && r.updated_at < f.updatedAfter) return false;
  if (f.updatedBefore !== undefined && r.updated_at > f.updatedBefore) return false;
  if (kind === 'i') {
    const i = r as IssueRecord;
    if (f.confidential !== undefined && i.confidential !== f.confidential) return false;
    if (f.dueDate !== undefined && !dueDateMatches(f.dueDate, i.due_date, ctx.today)) return false;
  } else {
    const m = r as MergeRequestRecord;
    if (f.sourceBranch !== undefined && m.source_branch !== f.sourceBranch) return false;
    if (f.targetBranch !== undefined && m.target_branch !== f.targetBranch) return false;
    if (f.sourceProjectId !== undefined && m.source_project_id !== f.sourceProjectId) return false;
    if (f.wip !== undefined && isWip(m.title, ctx.st.version) !== (f.wip === 'yes')) return false;
  }
  if (!matchesNegatable(ctx, kind, f, r, false)) return false;
  if (hasAny(f.not) && !matchesNegatable(ctx, kind, f.not, r, true)) return false;
  return true;
}

const nonEmpty = new WeakMap<NegatableFilters, boolean>();

/** Whether any negatable filter is set, remembered for the predicate's checks of every record. */
function hasAny(f: NegatableFilters): boolean {
  let v = nonEmpty.get(f);
  if (v === undefined) {
    v = setAny(f);
    nonEmpty.set(f, v);
  }
  return v;
}

/** `hasAny` read once (a request's `not` hash is new each time, and mostly empty). */
function setAny(f: NegatableFilters): boolean {
  for (const k in f) if ((f as Record<string, unknown>)[k] !== undefined) return true;
  return false;
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
