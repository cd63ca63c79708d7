/**
 * The filters of `IssuesFinder` and `MergeRequestsFinder` and the predicate a record must pass: the
 * params a list takes (labels, milestone, author, assignee, reviewer, reactions, search, dates, `not`),
 * checked on each candidate the finder's caches give (finder.ts).
 */
import type { PlatformState, UserRecord } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import type { IssueRecord, Kind, MergeRequestRecord } from './store.js';
import { isWip } from './text.js';

type Rec = IssueRecord | MergeRequestRecord;

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
export function labelTitle(st: PlatformState, id: number): string {
  const l = tget(st.issuables.labels, id);
  if (!l) return '';
  let t = lowerTitles.get(l);
  if (t === undefined) {
    t = l.title.toLowerCase();
    lowerTitles.set(l, t);
  }
  return t;
}

export function milestoneTitle(st: PlatformState, id: number): string | undefined {
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
export function hasAny(f: NegatableFilters): boolean {
  let v = nonEmpty.get(f);
  if (v === undefined) {
    v = setAny(f);
    nonEmpty.set(f, v);
  }
  return v;
}

/** `hasAny` read once (a request's `not` hash is new each time, and mostly empty). */
export function setAny(f: NegatableFilters): boolean {
  for (const k in f) if ((f as Record<string, unknown>)[k] !== undefined) return true;
  return false;
}
