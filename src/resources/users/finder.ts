/**
 * Read-side indexes of the users area, derived from the committed state and cached by object identity.
 *
 * immer hands out a new object for every table, bucket and record a write touches and keeps the rest, so
 * a cache keyed by those objects is always in step with the state: a write that touches one user
 * recomputes one bucket's keys, and a request that only reads pays nothing. This keeps `GET /users` to one
 * filter pass over a prepared array, however many users the world holds.
 */
import type { MemberRecord, PlatformState, ProjectRecord, UserRecord } from '../../core/state.js';
import { iget, leafRecords, tget, tleaves, tvalues, type Table } from '../../core/table.js';

/** A user with the lower-cased search keys and numeric times the list filters compare. */
export interface UserKey {
  u: UserRecord;
  name: string;
  username: string;
  email: string;
  created: number;
  updated: number;
}

export type UserOrder = 'id' | 'name' | 'username' | 'created_at' | 'updated_at';

/**
 * Every user's lower-cased name and username in one string, `\u0001name\nusername` per user in id
 * order, so that a search is a few `indexOf` calls (fast native scans) instead of one call per user.
 * Words never hold whitespace, so a match never spans two fields or two users.
 */
interface Haystack {
  text: string;
  /** Where each user's entry starts in `text`. */
  starts: Int32Array;
  ids: Int32Array;
  maxId: number;
}

interface BucketData {
  keys: UserKey[];
  hay: string;
}

interface UsersIndex {
  /** Ascending id. */
  asc: UserKey[];
  /** Keys by user id (sparse), made on the first search that needs it. */
  byId?: UserKey[];
  buckets: BucketData[];
  /** Ascending by a field with id as tie-breaker; descending is the reverse, so ties break the same way. */
  sorted: Map<string, UserKey[]>;
  /** The ids of each order in `sorted` (and `id:asc`, `id:desc`), for scans that touch no records. */
  sortedIds: Map<string, Int32Array>;
  desc?: UserKey[];
  hay?: Haystack;
}

const ENTRY = '\u0001';
const bucketData = new WeakMap<object, BucketData>();
const usersIndexes = new WeakMap<Table<UserRecord>, UsersIndex>();

function keyOf(u: UserRecord): UserKey {
  return {
    u,
    name: u.name.toLowerCase(),
    username: u.username.toLowerCase(),
    email: u.email.toLowerCase(),
    created: Date.parse(u.created_at),
    updated: Date.parse(u.updated_at),
  };
}

function usersIndex(t: Table<UserRecord>): UsersIndex {
  let ix = usersIndexes.get(t);
  if (ix) return ix;
  const buckets: BucketData[] = [];
  // Leaves come in ascending id order, and ids within a leaf too.
  for (const [, bucket] of tleaves(t)) {
    let data = bucketData.get(bucket);
    if (!data) {
      const keys = leafRecords(bucket).map(keyOf);
      data = { keys, hay: keys.map((k) => `${ENTRY}${k.name}\n${k.username}`).join('') };
      bucketData.set(bucket, data);
    }
    buckets.push(data);
  }
  // Joined a leaf at a time: after a write every list starts from here, and pushing 100k keys one by
  // one (with a sparse by-id array beside) was most of the first list after it.
  const asc = ([] as UserKey[]).concat(...buckets.map((b) => b.keys));
  ix = { asc, buckets, sorted: new Map(), sortedIds: new Map() };
  usersIndexes.set(t, ix);
  return ix;
}

function byIdOf(ix: UsersIndex): UserKey[] {
  if (ix.byId) return ix.byId;
  const byId: UserKey[] = [];
  for (const k of ix.asc) byId[k.u.id] = k;
  return (ix.byId = byId);
}

function haystack(ix: UsersIndex): Haystack {
  if (ix.hay) return ix.hay;
  const n = ix.asc.length;
  const starts = new Int32Array(n + 1);
  const ids = new Int32Array(n);
  let pos = 0;
  for (let i = 0; i < n; i++) {
    const k = ix.asc[i]!;
    starts[i] = pos;
    ids[i] = k.u.id;
    pos += 1 + k.name.length + 1 + k.username.length;
  }
  starts[n] = pos;
  // A trailing entry mark closes the last username for exact matches.
  const text = ix.buckets.map((b) => b.hay).join('') + ENTRY;
  ix.hay = { text, starts, ids, maxId: n > 0 ? ids[n - 1]! : 0 };
  return ix.hay;
}

/** Marks the ids of the users whose entry contains `needle`. */
function markMatches(h: Haystack, needle: string, into: Uint8Array): void {
  let from = 0;
  for (;;) {
    const at = h.text.indexOf(needle, from);
    if (at < 0) return;
    // The entry holding `at`: the last start at or before it.
    let lo = 0;
    let hi = h.ids.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (h.starts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    into[h.ids[lo]!] = 1;
    from = h.starts[lo + 1]!;
  }
}

const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);

const FIELDS: Record<Exclude<UserOrder, 'id'>, (k: UserKey) => string | number> = {
  // Raw values, byte order: what a database with C collation gives.
  name: (k) => k.u.name,
  username: (k) => k.u.username,
  created_at: (k) => k.created,
  updated_at: (k) => k.updated,
};

/** Every user in the given order (tie-breaker: id in the same direction). Cached per users table. */
export function orderedUsers(
  st: PlatformState,
  orderBy: UserOrder,
  sort: 'asc' | 'desc',
): readonly UserKey[] {
  const ix = usersIndex(st.users);
  if (orderBy === 'id') return sort === 'asc' ? ix.asc : (ix.desc ??= ix.asc.slice().reverse());
  const cacheKey = `${orderBy}:${sort}`;
  let list = ix.sorted.get(cacheKey);
  if (!list) {
    const field = FIELDS[orderBy];
    list = ix.asc.slice().sort((a, b) => cmp(field(a), field(b)) || a.u.id - b.u.id);
    if (sort === 'desc') list.reverse();
    ix.sorted.set(cacheKey, list);
  }
  return list;
}

function orderedIds(st: PlatformState, orderBy: UserOrder, sort: 'asc' | 'desc'): Int32Array {
  const ix = usersIndex(st.users);
  const cacheKey = `${orderBy}:${sort}`;
  let ids = ix.sortedIds.get(cacheKey);
  if (!ids) {
    const list = orderedUsers(st, orderBy, sort);
    ids = new Int32Array(list.length);
    for (let i = 0; i < list.length; i++) ids[i] = list[i]!.u.id;
    ix.sortedIds.set(cacheKey, ids);
  }
  return ids;
}

/** The key of one user (for lists built from an index lookup rather than a scan). */
export function userKey(u: UserRecord): UserKey {
  return keyOf(u);
}

// ---------------------------------------------------------------------------------------------------
// Search, as `User.search` does it

/**
 * Words of at least 3 characters (quoted phrases kept whole), as the platform's fuzzy matching picks them
 * (for users and projects alike).
 */
export function fuzzyWords(query: string): string[] {
  const quoted = query.match(/"[^"]+"/g) ?? [];
  let rest = query;
  for (const q of quoted) rest = rest.replace(q, '');
  const words = rest.split(/\s+/).filter(Boolean);
  for (const q of quoted) words.push(q.slice(1, -1));
  return words.filter((w) => w.length >= 3);
}

/** A compiled `search` filter. */
export interface UserSearch {
  query: string;
  test(k: UserKey): boolean;
  /** The users that may match, in the given order; `test` decides. Touches no other user. */
  candidates(orderBy: UserOrder, sort: 'asc' | 'desc'): UserKey[];
  /** The platform's relevance: exact name, then username, then e-mail, then the rest; then by name. */
  rank(k: UserKey): number;
}

/**
 * Compiles `search` against the current users: name or username contain every word of three or more
 * characters (or equal the whole query when it has none), or the primary e-mail equals the query.
 * Null when the query can match nothing (`none`).
 */
export function compileSearch(st: PlatformState, raw: string): UserSearch | null {
  const query = raw.replace(/^@/, '').toLowerCase();
  if (query.trim() === '') return null;
  const squished = query.trim().replace(/\s+/g, ' ');
  const words = fuzzyWords(squished);
  const ix = usersIndex(st.users);
  const h = haystack(ix);
  const hits = new Uint8Array(h.maxId + 1);
  if (words.length === 0) {
    // No word long enough: a case-insensitive exact match of a whole name or username.
    markMatches(h, `${ENTRY}${squished}\n`, hits);
    markMatches(h, `\n${squished}${ENTRY}`, hits);
  } else {
    // Candidates hold the first word somewhere; the rest must sit in the same field.
    markMatches(h, words[0]!, hits);
  }
  const byEmail = iget(st.idx.emails, query);
  const inOneField =
    words.length > 1
      ? (k: UserKey) => words.every((w) => k.name.includes(w)) || words.every((w) => k.username.includes(w))
      : () => true;
  return {
    query,
    test: (k) => (hits[k.u.id] === 1 && inOneField(k)) || k.u.id === byEmail,
    candidates: (orderBy, sort) => {
      const out: UserKey[] = [];
      const ids = orderedIds(st, orderBy, sort);
      const email = byEmail ?? -1;
      for (let i = 0, n = ids.length; i < n; i++) {
        const id = ids[i]!;
        if (hits[id] === 1 || id === email) out.push(byIdOf(ix)[id]!);
      }
      return out;
    },
    rank: (k) => (k.u.name === query ? 0 : k.u.username === query ? 1 : k.email === query ? 2 : 3),
  };
}

// ---------------------------------------------------------------------------------------------------
// Derived per-user facts from other tables

const personalIndexes = new WeakMap<Table<ProjectRecord>, Map<number, number[]>>();

/** Personal project ids by owner. Cached per projects table. */
export function personalProjects(st: PlatformState): Map<number, number[]> {
  let map = personalIndexes.get(st.projects);
  if (!map) {
    map = new Map();
    for (const p of tvalues(st.projects))
      if (p.namespace_kind === 'user' && p.owner_id !== null) {
        const list = map.get(p.owner_id);
        if (list) list.push(p.id);
        else map.set(p.owner_id, [p.id]);
      }
    personalIndexes.set(st.projects, map);
  }
  return map;
}

const roleIndexes = new WeakMap<Table<MemberRecord>, Map<number, number>>();

/** The highest direct membership level of each user. Cached per members table. */
function highestMemberLevels(st: PlatformState): Map<number, number> {
  let map = roleIndexes.get(st.members);
  if (!map) {
    map = new Map();
    for (const m of tvalues(st.members))
      map.set(m.user_id, Math.max(map.get(m.user_id) ?? 0, m.access_level));
    roleIndexes.set(st.members, map);
  }
  return map;
}

/** `highest_role`: the user's highest access level anywhere (owners of personal projects are maintainers). */
export function highestRole(st: PlatformState, userId: number): number {
  const level = highestMemberLevels(st).get(userId) ?? 0;
  return personalProjects(st).has(userId) ? Math.max(level, 40) : level;
}

interface AuthorizedCache {
  members: Table<MemberRecord>;
  groups: PlatformState['groups'];
  users: Set<number>;
}
const authorizedIndexes = new WeakMap<Table<ProjectRecord>, AuthorizedCache>();

/**
 * Users with access to at least one project (the platform's project_authorizations): personal owners,
 * project members, and members of any group with a project in its subtree.
 */
export function usersWithProjects(st: PlatformState): Set<number> {
  const cached = authorizedIndexes.get(st.projects);
  if (cached && cached.members === st.members && cached.groups === st.groups) return cached.users;
  const withProjects = new Set<number>();
  const users = new Set<number>();
  for (const p of tvalues(st.projects)) {
    if (p.namespace_kind === 'user') {
      if (p.owner_id !== null) users.add(p.owner_id);
      continue;
    }
    for (
      let g = tget(st.groups, p.namespace_id);
      g && !withProjects.has(g.id);
      g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id)
    )
      withProjects.add(g.id);
  }
  for (const m of tvalues(st.members)) {
    if (m.access_level < 10) continue;
    if (m.source === 'project' || withProjects.has(m.source_id)) users.add(m.user_id);
  }
  authorizedIndexes.set(st.projects, { members: st.members, groups: st.groups, users });
  return users;
}
