/**
 * `GroupsFinder` and the ordering of group lists, on read-side indexes derived from the committed state
 * and cached by table identity (immer keeps untouched tables and buckets identical), so that a list in a
 * world of many groups is one filter pass over a prepared array.
 */
import { ACCESS, groupsSeenFromInside, VISIBILITY_LEVEL } from '../../core/access.js';
import type { PlatformState, UserRecord } from '../../core/state.js';
import { leafRecords, mget, tget, tleaves, type Table } from '../../core/table.js';
import { descendantIds, type Group } from './model.js';

/** A group with the lower-cased route keys that searches compare. */
export interface GroupKey {
  g: Group;
  /**
   * The record's id and visibility level, copied here: group records come in many shapes, and reading
   * them off every record of a 10,000-group list was most of a non-admin's request.
   */
  id: number;
  level: number;
  /** Lower-cased full path and full name (the route's path and name). */
  path: string;
  name: string;
}

export type GroupOrder = 'name' | 'path' | 'id';

interface GroupsIndex {
  asc: GroupKey[];
  sorted: Map<string, GroupKey[]>;
}

const leafKeys = new WeakMap<object, GroupKey[]>();
const indexes = new WeakMap<Table<unknown>, GroupsIndex>();

const keyOf = (g: Group): GroupKey => ({
  g,
  id: g.id,
  level: VISIBILITY_LEVEL[g.visibility],
  path: g.full_path.toLowerCase(),
  name: (g.full_name ?? g.name).toLowerCase(),
});

function groupsIndex(st: PlatformState): GroupsIndex {
  let ix = indexes.get(st.groups);
  if (ix) return ix;
  const asc: GroupKey[] = [];
  for (const [, leaf] of tleaves(st.groups)) {
    let keys = leafKeys.get(leaf);
    if (!keys) {
      keys = leafRecords(leaf).map((g) => keyOf(g as Group));
      leafKeys.set(leaf, keys);
    }
    for (const k of keys) asc.push(k);
  }
  ix = { asc, sorted: new Map() };
  indexes.set(st.groups, ix);
  return ix;
}

/** Byte order, as a database with C collation compares. */
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The comparator of `reorder(order_by => sort, id: asc)`: the id breaks ties in ascending order whatever
 * the direction, except when the order is the id itself.
 */
function comparator(orderBy: GroupOrder, sort: 'asc' | 'desc'): (a: GroupKey, b: GroupKey) => number {
  const dir = sort === 'asc' ? 1 : -1;
  if (orderBy === 'id') return (a, b) => dir * (a.g.id - b.g.id);
  const field = orderBy;
  return (a, b) => dir * cmp(a.g[field], b.g[field]) || a.g.id - b.g.id;
}

/** Every group in an order. Cached per groups table. */
export function orderedGroups(
  st: PlatformState,
  orderBy: GroupOrder,
  sort: 'asc' | 'desc',
): readonly GroupKey[] {
  const ix = groupsIndex(st);
  const key = `${orderBy}:${sort}`;
  let list = ix.sorted.get(key);
  if (!list) {
    list = orderBy === 'id' && sort === 'asc' ? ix.asc : ix.asc.slice().sort(comparator(orderBy, sort));
    ix.sorted.set(key, list);
  }
  return list;
}

/** Orders a small list the same way. */
export function sortGroups(list: GroupKey[], orderBy: GroupOrder, sort: 'asc' | 'desc'): GroupKey[] {
  return list.sort(comparator(orderBy, sort));
}

export const groupKey = keyOf;

// ---------------------------------------------------------------------------------------------------
// Which groups a user's lists hold

interface ListedCache {
  groups: PlatformState['groups'];
  projects: PlatformState['projects'];
  shares: PlatformState['shares'];
  byUser: Map<number, Set<number>>;
}
const listedCaches = new WeakMap<PlatformState['members'], ListedCache>();

/**
 * The groups of a user's own hierarchy (`GroupsFinder` without `all_available`): the ancestors of the
 * groups they are authorized for, and the descendants of the groups they are a member of.
 */
export function userHierarchy(st: PlatformState, userId: number): ReadonlySet<number> {
  let cache = listedCaches.get(st.members);
  if (!cache || cache.groups !== st.groups || cache.projects !== st.projects || cache.shares !== st.shares) {
    cache = { groups: st.groups, projects: st.projects, shares: st.shares, byUser: new Map() };
    listedCaches.set(st.members, cache);
  }
  let set = cache.byUser.get(userId);
  if (!set) {
    set = new Set(groupsSeenFromInside(st, userId));
    for (const gid of memberGroups(st, userId, ACCESS.GUEST)) {
      set.add(gid);
      for (const d of descendantIds(st, gid)) set.add(d);
    }
    cache.byUser.set(userId, set);
  }
  return set;
}

/** Groups the user is a direct member of with at least `minLevel`. */
export function memberGroups(
  st: PlatformState,
  userId: number,
  minLevel: number,
  exactLevel?: number,
): number[] {
  const out: number[] = [];
  for (const id of mget(st.idx.membersByUser, String(userId))) {
    const m = tget(st.members, id)!;
    if (m.source !== 'group' || m.access_level < minLevel) continue;
    if (exactLevel !== undefined && m.access_level !== exactLevel) continue;
    out.push(m.source_id);
  }
  return out;
}

export interface FinderParams {
  all_available?: boolean;
  owned?: boolean;
  min_access_level?: number;
}

/**
 * `GroupsFinder#all_groups` as a membership test: owned groups (direct owner memberships), else groups at
 * `min_access_level` and their descendants, else everything for an admin who asks for all available
 * groups, else the user's hierarchy plus the groups public to them when all available ones are asked for
 * (anonymous callers always get those).
 */
export function finderTest(
  st: PlatformState,
  viewer: UserRecord | null,
  f: FinderParams,
): ((k: GroupKey) => boolean) | VisibilityTest | MembershipTest | 'all' | 'none' {
  if (f.owned) {
    if (!viewer) return 'none';
    const owned = new Set(memberGroups(st, viewer.id, ACCESS.OWNER, ACCESS.OWNER));
    return (k) => owned.has(k.id);
  }
  if (viewer && f.min_access_level !== undefined) {
    const set = new Set<number>();
    for (const gid of memberGroups(st, viewer.id, f.min_access_level)) {
      set.add(gid);
      for (const d of descendantIds(st, gid)) set.add(d);
    }
    return (k) => set.has(k.id);
  }
  const allAvailable = f.all_available ?? viewer?.admin === true;
  if (viewer?.admin && allAvailable) return 'all';
  const own = viewer ? userHierarchy(st, viewer.id) : undefined;
  if (viewer && !allAvailable)
    return own!.size === 0 ? 'none' : Object.assign((k: GroupKey) => own!.has(k.id), { only: own! });
  const minLevel = viewer && !viewer.external ? VISIBILITY_LEVEL.internal : VISIBILITY_LEVEL.public;
  const test = (k: GroupKey) => k.level >= minLevel || own?.has(k.id) === true;
  return Object.assign(test, { minLevel, own });
}

/** `finderTest`'s test for all available groups (a non-admin's list): what it keeps, as values. */
export interface VisibilityTest {
  (k: GroupKey): boolean;
  readonly minLevel: number;
  readonly own: ReadonlySet<number> | undefined;
}

/** `finderTest`'s test for the viewer's own hierarchy: the ids it keeps. */
export interface MembershipTest {
  (k: GroupKey): boolean;
  readonly only: ReadonlySet<number>;
}

const positions = new WeakMap<readonly GroupKey[], Map<number, number>>();

/**
 * The groups of `ids` in the order of `ordered` (cached per groups table): a viewer's own hierarchy is
 * usually a few groups, found through each group's place in the order rather than by a pass over all.
 */
export function pickInOrder(ordered: readonly GroupKey[], ids: ReadonlySet<number>): readonly GroupKey[] {
  if (ids.size * 8 > ordered.length) return ordered.filter((k) => ids.has(k.id));
  let at = positions.get(ordered);
  if (!at) {
    at = new Map();
    for (let i = 0; i < ordered.length; i++) at.set(ordered[i]!.id, i);
    positions.set(ordered, at);
  }
  const found: number[] = [];
  for (const id of ids) {
    const i = at.get(id);
    if (i !== undefined) found.push(i);
  }
  return found.sort((a, b) => a - b).map((i) => ordered[i]!);
}

const visibleLists = new WeakMap<readonly GroupKey[], Map<number, readonly GroupKey[]>>();

/**
 * The groups of an ordered list (`orderedGroups`, cached per groups table) at `minLevel` or above, cached
 * with the list: what a viewer with no groups of their own sees, without a pass over every group.
 */
export function visibleAt(ordered: readonly GroupKey[], minLevel: number): readonly GroupKey[] {
  let byLevel = visibleLists.get(ordered);
  if (!byLevel) visibleLists.set(ordered, (byLevel = new Map()));
  let list = byLevel.get(minLevel);
  if (!list) byLevel.set(minLevel, (list = ordered.filter((k) => k.level >= minLevel)));
  return list;
}

// ---------------------------------------------------------------------------------------------------
// Search

/** Words of at least 3 characters (quoted phrases kept whole), as the platform's fuzzy search picks them. */
function fuzzyWords(query: string): string[] {
  const quoted = query.match(/"[^"]+"/g) ?? [];
  let rest = query;
  for (const q of quoted) rest = rest.replace(q, '');
  const words = rest.split(/\s+/).filter(Boolean);
  for (const q of quoted) words.push(q.slice(1, -1));
  return words.filter((w) => w.length >= 3);
}

/**
 * `Namespace.search(query, include_parents: true)`: the route's path or name (full path, full name)
 * holds every word of three or more characters, or equals the whole query when it has none.
 */
export function groupSearch(query: string): (k: GroupKey) => boolean {
  const q = query.trim().replace(/\s+/g, ' ').toLowerCase();
  const words = fuzzyWords(q);
  if (words.length === 0) return (k) => k.path === q || k.name === q;
  return (k) => words.every((w) => k.path.includes(w)) || words.every((w) => k.name.includes(w));
}

/** pg_trgm's trigrams of a string: per word of letters and digits, padded with two spaces before and one after. */
function trigrams(s: string): Set<string> {
  const out = new Set<string>();
  for (const word of s.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word === '') continue;
    const padded = `  ${word} `;
    const chars = [...padded];
    for (let i = 0; i + 3 <= chars.length; i++) out.add(chars.slice(i, i + 3).join(''));
  }
  return out;
}

/** pg_trgm's `similarity`: shared trigrams over all trigrams. */
function similarity(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const t of a) if (b.has(t)) shared++;
  return shared / (a.size + b.size - shared);
}

/**
 * `sorted_by_similarity_and_parent_id_desc`: path similarity plus 0.7 × name similarity, highest first,
 * then parent id descending (top-level groups last), then id descending.
 */
export function sortBySimilarity(list: readonly GroupKey[], search: string): GroupKey[] {
  const q = trigrams(search);
  const scored = list.map((k) => ({
    k,
    score: similarity(trigrams(k.g.path), q) + 0.7 * similarity(trigrams(k.g.name), q),
  }));
  scored.sort((a, b) => {
    if (a.score !== b.score) return b.score - a.score;
    const pa = a.k.g.parent_id;
    const pb = b.k.g.parent_id;
    if (pa !== pb) return pa === null ? 1 : pb === null ? -1 : pb - pa;
    return b.k.g.id - a.k.g.id;
  });
  return scored.map((s) => s.k);
}
