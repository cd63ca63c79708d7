/**
 * Read-side indexes of the projects area, derived from the committed state and cached by object
 * identity (see users/finder.ts for the principle): a write that touches one project recomputes one leaf
 * bucket's keys; a request that only reads pays nothing.
 *
 * - every project's sort keys, and each order of the list, prepared once per projects table;
 * - a trigram index for `search` (the platform's ILIKE '%word%' on path, name and description), built
 *   for one projects table and reused while only a few leaf buckets changed since;
 * - a viewer's project authorizations, from the membership indexes.
 */
import type { PlatformState, ProjectRecord, UserRecord } from '../../core/state.js';
import { iget, leafRecords, mget, tget, tleaves, type Table } from '../../core/table.js';
import { groupChain } from './access.js';
import { repositoryBytes } from '../repository/contents.js';
import { projectStatistics } from './entities.js';
import type { Project } from './model.js';
import { fuzzyWords } from '../users/finder.js';

/** A project with the lower-cased text and numeric times the list filters and orders compare. */
export interface ProjectKey {
  p: Project;
  created: number;
  updated: number;
  activity: number;
  path: string;
  name: string;
  desc: string;
  /** The renderer's cache of the record's JSON (see entities.ts). */
  rendered?: unknown;
  /** The renderer's last list rendering of it (see entities.ts). */
  view?: unknown;
}

export type ProjectOrder =
  | 'id'
  | 'name'
  | 'path'
  | 'created_at'
  | 'updated_at'
  | 'last_activity_at'
  | 'repository_size'
  | 'storage_size'
  | 'wiki_size';

interface ProjectsIndex {
  table: Table<ProjectRecord>;
  asc: ProjectKey[];
  /** Keys by project id (sparse). */
  byId: ProjectKey[];
  /** Leaf buckets by key, for the search index's change detection. */
  leaves: Map<string, object>;
  sorted: Map<string, ProjectKey[]>;
  /** The ids of each order in `sorted`, for scans that touch no records. */
  sortedIds: Map<string, Int32Array>;
  /** The refs table the repository-size orders were made from. */
  refs?: PlatformState['refs'];
  /** Each id's position in an order (by `order_by`, ascending; `desc` is its reverse). */
  ranks: Map<string, Int32Array>;
  /**
   * The orders and keys of the index this one was built after (one generation only, so that no chain of
   * old indexes stays alive): a name or path order is then merged from the old one and the changed keys.
   */
  before?: { sorted: Map<string, ProjectKey[]>; byId: ProjectKey[] };
}

/** The index that last held each leaf bucket: a new table's index finds the one built before it. */
const indexOfLeaf = new WeakMap<object, ProjectsIndex>();

const leafKeys = new WeakMap<object, ProjectKey[]>();
const indexes = new WeakMap<Table<ProjectRecord>, ProjectsIndex>();

function keyOf(record: ProjectRecord): ProjectKey {
  const p = record as Project;
  return {
    p,
    created: Date.parse(p.created_at),
    updated: Date.parse(p.updated_at),
    activity: Date.parse(p.last_activity_at),
    path: p.path.toLowerCase(),
    name: p.name.toLowerCase(),
    desc: p.description.toLowerCase(),
    rendered: undefined,
    view: undefined,
  };
}

/** The key of one project (for lists built from an index lookup rather than a scan). */
export function projectKey(st: PlatformState, p: ProjectRecord): ProjectKey {
  const k = projectsIndex(st.projects).byId[p.id];
  return k && k.p === p ? k : keyOf(p);
}

export function projectsIndex(t: Table<ProjectRecord>): ProjectsIndex {
  let ix = indexes.get(t);
  if (ix) return ix;
  const asc: ProjectKey[] = [];
  const byId: ProjectKey[] = [];
  const leaves = new Map<string, object>();
  for (const [key, leaf] of tleaves(t)) {
    let keys = leafKeys.get(leaf);
    if (!keys) {
      keys = leafRecords(leaf).map(keyOf);
      leafKeys.set(leaf, keys);
    }
    leaves.set(key, leaf);
    for (const k of keys) {
      asc.push(k);
      byId[k.p.id] = k;
    }
  }
  let before: ProjectsIndex | undefined;
  for (const leaf of leaves.values()) if ((before = indexOfLeaf.get(leaf))) break;
  ix = {
    table: t,
    asc,
    byId,
    leaves,
    sorted: new Map(),
    sortedIds: new Map(),
    ranks: new Map(),
    before: before && { sorted: before.sorted, byId: before.byId },
  };
  for (const leaf of leaves.values()) indexOfLeaf.set(leaf, ix);
  indexes.set(t, ix);
  return ix;
}

const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);

type Field = (k: ProjectKey, st: PlatformState) => string | number;

const FIELDS: Record<Exclude<ProjectOrder, 'id'>, Field> = {
  // Raw values, byte order: what a database with C collation gives.
  name: (k) => k.p.name,
  path: (k) => k.p.path,
  created_at: (k) => k.created,
  updated_at: (k) => k.updated,
  last_activity_at: (k) => k.activity,
  repository_size: (k, st) => repositoryBytes(st, k.p),
  storage_size: (k, st) => projectStatistics(k.p.id, repositoryBytes(st, k.p)).storage_size,
  wiki_size: (k) => projectStatistics(k.p.id, 0).wiki_size,
};

/** Orders by a value computed per project (sizes): computed once per key and sort. */
const COMPUTED_ORDERS: readonly ProjectOrder[] = ['repository_size', 'storage_size', 'wiki_size'];

/** Orders by a size that follows the repository (its refs), not the projects table alone. */
const REFS_ORDERS: readonly ProjectOrder[] = ['repository_size', 'storage_size'];

/** The index of the projects table, its repository-size orders dropped once any ref moved. */
function indexOf(st: PlatformState): ProjectsIndex {
  const ix = projectsIndex(st.projects);
  if (ix.refs !== st.refs) {
    for (const order of REFS_ORDERS) {
      for (const sort of ['asc', 'desc']) {
        ix.sorted.delete(`${order}:${sort}`);
        ix.sortedIds.delete(`${order}:${sort}`);
      }
      ix.ranks.delete(order);
    }
    ix.refs = st.refs;
  }
  return ix;
}

/** The comparator of an order, with id as tie-breaker in the same direction. */
export function comparator(
  orderBy: ProjectOrder,
  sort: 'asc' | 'desc',
  st: PlatformState,
): (a: ProjectKey, b: ProjectKey) => number {
  const dir = sort === 'asc' ? 1 : -1;
  if (orderBy === 'id') return (a, b) => dir * (a.p.id - b.p.id);
  const raw = FIELDS[orderBy];
  // A field of the key or record is read as it is: a map of values per sort would cost more than the
  // reads (a list of a user's or group's projects sorts on every request; a new projects table re-sorts all).
  if (!COMPUTED_ORDERS.includes(orderBy))
    return (a, b) => dir * (cmp(raw(a, st), raw(b, st)) || a.p.id - b.p.id);
  // Each key's value once per sort: a size reads the repository.
  const values = new Map<ProjectKey, string | number>();
  const field = (k: ProjectKey) => {
    let v = values.get(k);
    if (v === undefined) values.set(k, (v = raw(k, st)));
    return v;
  };
  return (a, b) => dir * (cmp(field(a), field(b)) || a.p.id - b.p.id);
}

/** Every project in the given order. Cached per projects table. */
export function orderedProjects(
  st: PlatformState,
  orderBy: ProjectOrder,
  sort: 'asc' | 'desc',
): readonly ProjectKey[] {
  const ix = indexOf(st);
  if (orderBy === 'id' && sort === 'asc') return ix.asc;
  const cacheKey = `${orderBy}:${sort}`;
  let list = ix.sorted.get(cacheKey);
  if (list) return list;
  const other = ix.sorted.get(`${orderBy}:${sort === 'asc' ? 'desc' : 'asc'}`);
  if (orderBy === 'id') list = ix.asc.slice().reverse();
  else if (other) list = other.slice().reverse();
  else if (!(list = merged(ix, cacheKey, orderBy, sort, st))) {
    const asc = comparator(orderBy, 'asc', st);
    // Generated worlds create projects in time order: id order often is the order already.
    let sorted = true;
    for (let i = 1; i < ix.asc.length && sorted; i++) sorted = asc(ix.asc[i - 1]!, ix.asc[i]!) <= 0;
    list = sorted ? ix.asc.slice() : ix.asc.slice().sort(asc);
    if (sort === 'desc') list.reverse();
  }
  ix.sorted.set(cacheKey, list);
  return list;
}

/** Keys changed since the index before, past which a name or path order is sorted afresh. */
const MAX_MERGED = 4096;

/**
 * A name or path order from the same order of the index before, after a write changed a few records: its
 * keys that still stand, merged with the changed keys sorted. Names and paths order every key totally
 * (id breaks ties), so the merge is the order a full sort makes, for a fraction of the comparisons.
 */
function merged(
  ix: ProjectsIndex,
  cacheKey: string,
  orderBy: ProjectOrder,
  sort: 'asc' | 'desc',
  st: PlatformState,
): ProjectKey[] | undefined {
  if (orderBy !== 'name' && orderBy !== 'path') return undefined;
  const old = ix.before?.sorted.get(cacheKey);
  if (!old) return undefined;
  const oldById = ix.before!.byId;
  const fresh: ProjectKey[] = [];
  for (const k of ix.asc) if (oldById[k.p.id] !== k && fresh.push(k) > MAX_MERGED) return undefined;
  const order = comparator(orderBy, sort, st);
  fresh.sort(order);
  const byId = ix.byId;
  const out: ProjectKey[] = [];
  let j = 0;
  for (const k of old) {
    if (byId[k.p.id] !== k) continue;
    while (j < fresh.length && order(fresh[j]!, k) < 0) out.push(fresh[j++]!);
    out.push(k);
  }
  while (j < fresh.length) out.push(fresh[j++]!);
  return out.length === ix.asc.length ? out : undefined;
}

/** The ids of `orderedProjects`, for scans by a byte-per-id filter. */
export function orderedIds(st: PlatformState, orderBy: ProjectOrder, sort: 'asc' | 'desc'): Int32Array {
  const ix = indexOf(st);
  const cacheKey = `${orderBy}:${sort}`;
  let ids = ix.sortedIds.get(cacheKey);
  if (!ids) {
    const list = orderedProjects(st, orderBy, sort);
    ids = new Int32Array(list.length);
    for (let i = 0; i < list.length; i++) ids[i] = list[i]!.p.id;
    ix.sortedIds.set(cacheKey, ids);
  }
  return ids;
}

/**
 * Ids in the given order, as a scan of `orderedIds` would meet them: each id's position in the
 * ascending order is looked up and the positions sorted (natively), which for a few hundred ids is far
 * cheaper than walking every project.
 */
export function sortIds(
  st: PlatformState,
  ids: ArrayLike<number>,
  orderBy: ProjectOrder,
  sort: 'asc' | 'desc',
): Int32Array {
  const ix = indexOf(st);
  let rank = ix.ranks.get(orderBy);
  const asc = orderedIds(st, orderBy, 'asc');
  if (!rank) {
    rank = new Int32Array(ix.byId.length + 1).fill(-1);
    for (let i = 0; i < asc.length; i++) rank[asc[i]!] = i;
    ix.ranks.set(orderBy, rank);
  }
  const positions = new Int32Array(ids.length);
  let n = 0;
  for (let i = 0; i < ids.length; i++) {
    const r = rank[ids[i]!];
    if (r !== undefined && r >= 0) positions[n++] = r;
  }
  const sorted = positions.subarray(0, n).sort();
  const out = new Int32Array(n);
  if (sort === 'asc') for (let i = 0; i < n; i++) out[i] = asc[sorted[i]!]!;
  else for (let i = 0; i < n; i++) out[i] = asc[sorted[n - 1 - i]!]!;
  return out;
}

/** The key of a project by id, from the current index. */
export const keyById = (st: PlatformState, id: number): ProjectKey | undefined =>
  projectsIndex(st.projects).byId[id];

// ---------------------------------------------------------------------------------------------------
// Search

/** Trigram codes: 6 bits per character (a-z, 0-9, the rest folded), so a trigram is an 18-bit number. */
function charCode(ch: number): number {
  if (ch >= 97 && ch <= 122) return ch - 96;
  if (ch >= 48 && ch <= 57) return ch - 21;
  return 37 + (ch % 27);
}

const TRIGRAMS = 1 << 18;

interface TrigramIndex {
  leaves: Map<string, object>;
  /** CSR postings: ids of trigram t are ids[offsets[t] .. offsets[t + 1]), ascending. */
  offsets: Int32Array;
  ids: Int32Array;
}

type Fields = (k: ProjectKey) => readonly string[];

function buildTrigrams(
  keys: readonly ProjectKey[],
  leaves: Map<string, object>,
  fields: Fields,
): TrigramIndex {
  const counts = new Int32Array(TRIGRAMS + 1);
  const last = new Int32Array(TRIGRAMS).fill(-1);
  const visit = (k: ProjectKey, onNew: (t: number) => void) => {
    const id = k.p.id;
    for (const text of fields(k)) {
      if (text.length < 3) continue;
      let a = charCode(text.charCodeAt(0));
      let b = charCode(text.charCodeAt(1));
      for (let i = 2; i < text.length; i++) {
        const c = charCode(text.charCodeAt(i));
        const t = (a << 12) | (b << 6) | c;
        if (last[t] !== id) {
          last[t] = id;
          onNew(t);
        }
        a = b;
        b = c;
      }
    }
  };
  for (const k of keys) visit(k, (t) => counts[t + 1]!++);
  for (let t = 0; t < TRIGRAMS; t++) counts[t + 1]! += counts[t]!;
  const ids = new Int32Array(counts[TRIGRAMS]!);
  const fill = counts.slice(0, TRIGRAMS);
  last.fill(-1);
  for (const k of keys) visit(k, (t) => (ids[fill[t]!++] = k.p.id));
  return { leaves, offsets: counts, ids };
}

interface SearchState {
  ix?: TrigramIndex;
  /** The namespaces variant depends on group and user names too. */
  deps?: readonly object[];
  /** The namespaced fields of each project key met so far. */
  fields?: WeakMap<ProjectKey, readonly string[]>;
}
/** One state per mode, shared across tables so that an index outlives small writes. */
const plainState: SearchState = {};
const namespacedStates = new WeakMap<object, SearchState>();

/** Rebuild once more than this many leaf buckets (64 projects each) changed since the index was built. */
const MAX_DIRTY_LEAVES = 32;

interface Dirty {
  keys: Set<string>;
  records: ProjectKey[];
}
const dirtyCache = new WeakMap<Table<ProjectRecord>, WeakMap<TrigramIndex, Dirty>>();

function dirtyLeaves(ix: ProjectsIndex, tri: TrigramIndex): Dirty | null {
  let byIndex = dirtyCache.get(ix.table);
  const cached = byIndex?.get(tri);
  if (cached) return cached;
  const keys = new Set<string>();
  for (const [key, leaf] of ix.leaves) if (tri.leaves.get(key) !== leaf) keys.add(key);
  for (const key of tri.leaves.keys()) if (!ix.leaves.has(key)) keys.add(key);
  if (keys.size > MAX_DIRTY_LEAVES) return null;
  const records: ProjectKey[] = [];
  for (const key of keys) {
    const leaf = ix.leaves.get(key);
    if (leaf) records.push(...leafKeys.get(leaf)!);
  }
  const dirty = { keys, records };
  if (!byIndex) dirtyCache.set(ix.table, (byIndex = new WeakMap()));
  byIndex.set(tri, dirty);
  return dirty;
}

const leafKeyOf = (id: number) => `${id >> 12}:${(id >> 6) & 63}`;

/**
 * Lower-cased route path and name (`search_namespaces`): the namespace's full path and full name. Kept
 * per project key in `cache` (the namespaced search state, which lives as long as the groups and users
 * tables it read).
 */
function namespacedFields(st: PlatformState, cache: WeakMap<ProjectKey, readonly string[]>): Fields {
  return (k) => {
    let f = cache.get(k);
    if (!f) {
      const p = k.p;
      let nsName = '';
      if (p.namespace_kind === 'user')
        nsName = (p.owner_id !== null && tget(st.users, p.owner_id)?.name) || '';
      else
        nsName = groupChain(st, p)
          .map((g) => g.name)
          .reverse()
          .join(' / ');
      f = [p.path_with_namespace.toLowerCase(), `${nsName} / ${p.name}`.toLowerCase(), k.desc];
      cache.set(k, f);
    }
    return f;
  };
}

const plainFields: Fields = (k) => [k.path, k.name, k.desc];

/** A compiled `search`: marks the ids of matching projects. */
export interface ProjectSearch {
  /** Matching ids (a byte per id). */
  hits: Uint8Array;
  count: number;
  /** The matching ids themselves (`count` of them), in no particular order. */
  ids: Int32Array;
  /** Every match in a given order (`order_by:sort`), once a list asked for it. */
  ordered: Map<string, readonly ProjectKey[]>;
}

/** Recent searches per projects table: clients page through the same query, and benchmarks repeat it. */
const searchCaches = new WeakMap<Table<ProjectRecord>, Map<string, ProjectSearch>>();
const SEARCH_CACHE_SIZE = 64;

/**
 * The projects whose path, name or description (with `namespaces`: full path, full name or description)
 * contain every word of three or more characters, all in the same field; with no such word, whose field
 * equals the whole query (case-insensitively), as the platform's `fuzzy_search` does.
 */
export function searchProjects(st: PlatformState, raw: string, namespaces = false): ProjectSearch {
  let recent = searchCaches.get(st.projects);
  if (!recent) searchCaches.set(st.projects, (recent = new Map()));
  // The namespaced variant reads group and user names too: keyed by their tables as well.
  const key = namespaces ? `n:${raw}` : `p:${raw}`;
  const hit = recent.get(key);
  if (hit && (!namespaces || namespacedStates.get(st.groups)?.deps?.[0] === st.users)) return hit;
  const found = runSearch(st, raw, namespaces);
  if (recent.size >= SEARCH_CACHE_SIZE) recent.delete(recent.keys().next().value!);
  recent.set(key, found);
  return found;
}

function runSearch(st: PlatformState, raw: string, namespaces: boolean): ProjectSearch {
  const ix = projectsIndex(st.projects);
  const maxId = ix.byId.length;
  const hits = new Uint8Array(maxId + 1);
  let count = 0;
  const ids: number[] = [];
  const query = raw.trim().replace(/\s+/g, ' ').toLowerCase();
  const ordered = new Map<string, readonly ProjectKey[]>();
  const done = () => ({ hits, count, ids: Int32Array.from(ids), ordered });
  if (query === '') return done();
  let state: SearchState;
  if (namespaces) {
    let s = namespacedStates.get(st.groups);
    if (!s || s.deps?.[0] !== st.users) {
      s = { deps: [st.users], fields: new WeakMap() };
      namespacedStates.set(st.groups, s);
    }
    state = s;
  } else state = plainState;
  const fields = namespaces ? namespacedFields(st, state.fields!) : plainFields;
  const words = fuzzyWords(query);
  const mark = (k: ProjectKey) => {
    if (hits[k.p.id] === 0) {
      hits[k.p.id] = 1;
      count++;
      ids.push(k.p.id);
    }
  };
  if (words.length === 0) {
    if (namespaces) {
      for (const k of ix.asc) if (fields(k).some((f) => f === query)) mark(k);
    } else for (const k of ix.asc) if (k.path === query || k.name === query || k.desc === query) mark(k);
    return done();
  }
  const test = (k: ProjectKey) => fields(k).some((f) => words.every((w) => f.includes(w)));

  let tri = state.ix;
  let dirty = tri ? dirtyLeaves(ix, tri) : null;
  if (!tri || !dirty) {
    tri = buildTrigrams(ix.asc, ix.leaves, fields);
    state.ix = tri;
    dirty = dirtyLeaves(ix, tri)!;
  }
  // The rarest trigram of any word: every match holds all of them.
  let best = -1;
  let bestLen = Infinity;
  for (const w of words)
    for (let i = 2; i < w.length; i++) {
      const t =
        (charCode(w.charCodeAt(i - 2)) << 12) |
        (charCode(w.charCodeAt(i - 1)) << 6) |
        charCode(w.charCodeAt(i));
      const len = tri.offsets[t + 1]! - tri.offsets[t]!;
      if (len < bestLen) {
        bestLen = len;
        best = t;
      }
    }
  const end = tri.offsets[best + 1]!;
  const checkLeaf = dirty.keys.size > 0;
  for (let i = tri.offsets[best]!; i < end; i++) {
    const id = tri.ids[i]!;
    if (checkLeaf && dirty.keys.has(leafKeyOf(id))) continue;
    const k = ix.byId[id];
    if (k && test(k)) mark(k);
  }
  for (const k of dirty.records) if (test(k)) mark(k);
  return done();
}

// ---------------------------------------------------------------------------------------------------
// Authorizations

/**
 * The viewer's project authorizations (`project_authorizations`): project id -> access level, from
 * direct memberships, group memberships (inherited by subgroups), groups the projects are shared with,
 * and personal projects (as a maintainer, the 13.x rule).
 */
export function authorizations(st: PlatformState, user: UserRecord): Map<number, number> {
  const out = new Map<number, number>();
  const raise = (pid: number, level: number) => {
    if ((out.get(pid) ?? 0) < level) out.set(pid, level);
  };
  for (const pid of mget(st.idx.projectsByNamespace, `user:${user.id}`)) raise(pid, 40);
  // Group levels, inherited down the tree.
  const groupLevels = new Map<number, number>();
  const descend = (gid: number, level: number) => {
    if ((groupLevels.get(gid) ?? 0) >= level) return;
    groupLevels.set(gid, level);
    for (const sub of mget(st.idx.subgroups, String(gid))) descend(sub, level);
  };
  for (const mid of mget(st.idx.membersByUser, String(user.id))) {
    const m = tget(st.members, mid);
    if (!m) continue;
    if (m.source === 'project') raise(m.source_id, m.access_level);
    else descend(m.source_id, m.access_level);
  }
  for (const [gid, level] of groupLevels) {
    for (const pid of mget(st.idx.projectsByNamespace, `group:${gid}`)) raise(pid, level);
    for (const sid of mget(st.idx.sharesBy, `g${gid}`)) {
      const sh = tget(st.shares, sid);
      if (sh) raise(sh.project_id, Math.min(sh.group_access, level));
    }
  }
  // Group links (`GroupGroupLink`): a direct member of the group shared with gets the shared group's
  // projects, and its subgroups', at min(the link's access, their membership); `core/access.ts` reads
  // the same rule for one group.
  if (st.groupLinks.size > 0) {
    const linked = new Map<number, number>();
    const descendLinked = (gid: number, level: number) => {
      if ((linked.get(gid) ?? 0) >= level) return;
      linked.set(gid, level);
      for (const sub of mget(st.idx.subgroups, String(gid))) descendLinked(sub, level);
    };
    for (const mid of mget(st.idx.membersByUser, String(user.id))) {
      const m = tget(st.members, mid);
      if (!m || m.source !== 'group') continue;
      for (const lid of mget(st.idx.groupLinksBy, `w${m.source_id}`)) {
        const link = tget(st.groupLinks, lid)!;
        descendLinked(link.shared_group_id, Math.min(link.group_access, m.access_level));
      }
    }
    for (const [gid, level] of linked)
      for (const pid of mget(st.idx.projectsByNamespace, `group:${gid}`)) raise(pid, level);
  }
  return out;
}

/** Whether the user starred the project. */
export const starredBy = (st: PlatformState, projectId: number, userId: number) =>
  iget(st.idx.stars, `${projectId}:${userId}`) !== undefined;
