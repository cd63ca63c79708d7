/**
 * The project lists: `GET /projects`, `GET /users/:user_id/projects`, `GET /groups/:id/projects` and
 * `GET /groups/:id/projects/shared`, with the platform's filters, visibility rules, orders and both
 * pagination strategies (offset with its 50,000 ceiling, and keyset by id).
 */
import { ACCESS, VISIBILITY_LEVEL, canReadProject, findGroup } from '../../core/access.js';
import { findUser } from '../../core/auth.js';
import { state, type Ctx } from '../../core/context.js';
import { grapeError, notFound } from '../../core/errors.js';
import { featureEnabled } from '../../core/features.js';
import {
  COUNT_LIMIT,
  keysetPage,
  offsetPage,
  paginationParams,
  perPage,
  type Page,
} from '../../core/pagination.js';
import { p, type Parsed, type Shape } from '../../core/params.js';
import { jsonChunks, jsonResponse } from '../../core/respond.js';
import { parse } from '../../core/router.js';
import type { GroupRecord, PlatformState, UserRecord } from '../../core/state.js';
import { mget, tget, tvalues } from '../../core/table.js';
import { featureAvailable } from './access.js';
import { projectRenderer, projectLanguages, type ProjectEntityOptions } from './entities.js';
import {
  authorizations,
  comparator,
  keyById,
  orderedIds,
  orderedProjects,
  projectKey,
  searchProjects,
  sortIds,
  type ProjectKey,
  type ProjectSearch,
  type ProjectOrder,
} from './finder.js';
import { settleDeletions } from './lifecycle.js';
import { loadProject } from './helpers.js';
import { own } from '../../core/own.js';

const VISIBILITIES = ['private', 'internal', 'public'] as const;
const ACCESS_VALUES = [10, 20, 30, 40, 50] as const;
const SORTS = ['asc', 'desc'] as const;
const STATISTICS_ORDERS = ['storage_size', 'repository_size', 'wiki_size'] as const;
const ORDERS = [
  'id',
  'name',
  'path',
  'created_at',
  'updated_at',
  'last_activity_at',
  ...STATISTICS_ORDERS,
] as const;
const GROUP_ORDERS = [
  'id',
  'name',
  'path',
  'created_at',
  'updated_at',
  'last_activity_at',
  'similarity',
] as const;

/**
 * `collection_params` + `statistics_params` + `with_custom_attributes` of `GET /projects`, in declaration
 * order. `GET /users/:user_id/starred_projects` declares the first two only.
 */
function projectsShape(paid: boolean, scope: 'all' | 'user' | 'starred'): Shape {
  return {
    order_by: p.str().values(ORDERS).default('created_at'),
    sort: p.str().values(SORTS).default('desc'),
    archived: p.bool(),
    visibility: p.str().values(VISIBILITIES),
    search: p.str(),
    ...(scope === 'all' ? { search_namespaces: p.bool() } : {}),
    owned: p.bool().default(false),
    starred: p.bool().default(false),
    membership: p.bool().default(false),
    with_issues_enabled: p.bool().default(false),
    with_merge_requests_enabled: p.bool().default(false),
    with_programming_language: p.str(),
    min_access_level: p.int().values(ACCESS_VALUES),
    id_after: p.int(),
    id_before: p.int(),
    ...(scope === 'all'
      ? { last_activity_after: p.datetime(), last_activity_before: p.datetime(), repository_storage: p.str() }
      : {}),
    ...(paid
      ? { wiki_checksum_failed: p.bool().default(false), repository_checksum_failed: p.bool().default(false) }
      : {}),
    ...paginationParams,
    simple: p.bool().default(false),
    statistics: p.bool().default(false),
    ...(scope === 'starred' ? {} : { with_custom_attributes: p.bool().default(false) }),
    custom_attributes: p.hash(),
  };
}

const shapes = new Map<string, Shape>();
function shapeFor(key: string, make: () => Shape): Shape {
  let s = shapes.get(key);
  if (!s) shapes.set(key, (s = make()));
  return s;
}

/** `GET /groups/:id/projects` (and `/shared` without the group-only params). */
function groupShape(shared: boolean, paid: boolean): Shape {
  return {
    archived: p.bool().default(false),
    visibility: p.str().values(VISIBILITIES),
    search: p.str(),
    order_by: p
      .str()
      .values(shared ? GROUP_ORDERS.slice(0, -1) : GROUP_ORDERS)
      .default('created_at'),
    sort: p.str().values(SORTS).default('desc'),
    simple: p.bool().default(false),
    ...(shared ? {} : { owned: p.bool().default(false) }),
    starred: p.bool().default(false),
    with_issues_enabled: p.bool().default(false),
    with_merge_requests_enabled: p.bool().default(false),
    ...(shared ? {} : { with_shared: p.bool().default(true), include_subgroups: p.bool().default(false) }),
    min_access_level: p.int().values(ACCESS_VALUES),
    ...(!shared && paid ? { with_security_reports: p.bool().default(false) } : {}),
    ...paginationParams,
    with_custom_attributes: p.bool().default(false),
    custom_attributes: p.hash(),
  };
}

type Params = Record<string, unknown> & Parsed<ReturnType<typeof projectsShape>>;

interface Filters {
  archived?: boolean;
  visibility?: string;
  search?: string;
  searchNamespaces?: boolean;
  owned: boolean;
  starred: boolean;
  membership: boolean;
  withIssues: boolean;
  withMrs: boolean;
  language?: string;
  minAccess?: number;
  idAfter?: number;
  idBefore?: number;
  activityAfter?: number;
  activityBefore?: number;
  repositoryStorage?: string;
  customAttributes?: Record<string, unknown>;
  checksumFailed: boolean;
}

/** The predicate of an unfiltered list: the ordered list is then the result as it is. */
const ALL = () => true;

/** The viewer-relative part of a list: who can see what, and the filters that depend on the viewer. */
function buildPredicate(
  st: PlatformState,
  viewer: UserRecord | null,
  f: Filters,
): { test: (k: ProjectKey) => boolean; only?: Iterable<number>; search?: ProjectSearch } {
  const admin = viewer?.admin === true;
  // Everyone but an admin needs their authorizations for visibility; an admin only for these filters.
  let auth: Map<number, number> | null = viewer && !admin ? authorizations(st, viewer) : null;
  const authOf = (u: UserRecord) => (auth ??= authorizations(st, u));
  const level = (id: number) => (viewer ? (authOf(viewer).get(id) ?? 0) : 0);
  const tests: ((k: ProjectKey) => boolean)[] = [];
  let only: Iterable<number> | undefined;

  // Visibility: anonymous sees public projects; users public, internal (unless external) and their own.
  if (!viewer) tests.push((k) => k.p.visibility === 'public');
  else if (!admin) {
    const internal = !viewer.external;
    const mine = authOf(viewer);
    tests.push(
      (k) => k.p.visibility === 'public' || (internal && k.p.visibility === 'internal') || mine.has(k.p.id),
    );
  }
  if (viewer && f.owned) {
    // Personal projects, and projects where the user is authorized as an owner.
    const personal = mget(st.idx.projectsByNamespace, `user:${viewer.id}`);
    const mine = new Set(personal);
    for (const [id, l] of authOf(viewer)) if (l >= ACCESS.OWNER) mine.add(id);
    tests.push((k) => mine.has(k.p.id));
    only = mine;
  } else if (viewer && f.minAccess !== undefined) {
    const min = f.minAccess;
    tests.push((k) => level(k.p.id) >= min);
    only = authOf(viewer).keys();
  } else if (viewer && f.membership) {
    tests.push((k) => level(k.p.id) > 0);
    only = authOf(viewer).keys();
  }
  if (viewer && f.starred) {
    const starred = new Set(
      mget(st.idx.starsBy, `u${viewer.id}`).map((sid) => tget(st.stars, sid)?.project_id ?? 0),
    );
    tests.push((k) => starred.has(k.p.id));
    if (!only) only = starred;
  }
  if (f.archived !== undefined) {
    const want = f.archived;
    tests.push((k) => k.p.archived === want);
  }
  if (f.visibility) {
    const v = f.visibility;
    tests.push((k) => k.p.visibility === v);
  }
  if (f.withIssues)
    tests.push((k) => featureAvailable(k.p.issues_access_level, 'issues', level(k.p.id), admin));
  if (f.withMrs) tests.push((k) => k.p.merge_requests_access_level !== 'disabled');
  if (f.language) {
    const lang = f.language.toLowerCase();
    tests.push((k) => Object.keys(projectLanguages(k.p.id)).some((l) => l.toLowerCase() === lang));
  }
  if (f.idAfter !== undefined) {
    const id = f.idAfter;
    tests.push((k) => k.p.id > id);
  }
  if (f.idBefore !== undefined) {
    const id = f.idBefore;
    tests.push((k) => k.p.id < id);
  }
  if (f.activityAfter !== undefined) {
    const t = f.activityAfter;
    tests.push((k) => k.activity > t);
  }
  if (f.activityBefore !== undefined) {
    const t = f.activityBefore;
    tests.push((k) => k.activity < t);
  }
  if (f.repositoryStorage !== undefined) {
    const s = f.repositoryStorage;
    tests.push((k) => k.p.repository_storage === s);
  }
  if (f.customAttributes)
    for (const [key, value] of Object.entries(f.customAttributes))
      tests.push((k) => own(k.p.custom_attributes, key) === String(value));
  if (f.checksumFailed) tests.push(() => false);
  let search: ProjectSearch | undefined;
  if (f.search !== undefined) search = searchProjects(st, f.search, f.searchNamespaces === true);
  const test =
    tests.length === 0
      ? ALL
      : tests.length === 1
        ? tests[0]!
        : (k: ProjectKey) => {
            for (const t of tests) if (!t(k)) return false;
            return true;
          };
  return { test, only, search };
}

/** How many matching rows a page needs: all of them while the platform still counts them. */
function rowsNeeded(c: Ctx, st: PlatformState, page: number, keyset: boolean): number {
  if (keyset) return perPage(c) + 1;
  if (!featureEnabled(st, 'api_kaminari_count_with_limit')) return Infinity;
  return Math.max(COUNT_LIMIT + 1, Math.max(page, 1) * perPage(c) + 1);
}

/** The part of an id-ordered list strictly between `after` and `before` (binary search: keyset pages start anywhere). */
function idRange(
  list: readonly ProjectKey[],
  sort: 'asc' | 'desc',
  range: { after?: number; before?: number },
): readonly ProjectKey[] {
  // First index whose id is beyond `bound` in the list's direction.
  const firstPast = (bound: number, inclusive: boolean) => {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const id = list[mid]!.p.id;
      const past =
        sort === 'asc' ? (inclusive ? id >= bound : id > bound) : inclusive ? id <= bound : id < bound;
      if (past) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  let start = 0;
  let end = list.length;
  if (sort === 'asc') {
    if (range.after !== undefined) start = firstPast(range.after, false);
    if (range.before !== undefined) end = firstPast(range.before, true);
  } else {
    if (range.before !== undefined) start = firstPast(range.before, false);
    if (range.after !== undefined) end = firstPast(range.after, true);
  }
  return start === 0 && end === list.length ? list : list.slice(start, Math.max(start, end));
}

/** Filters and orders the candidates; stops once `needed` rows matched (the rest is never shown nor counted). */
function collect(
  st: PlatformState,
  candidates: Iterable<number> | null,
  pred: (k: ProjectKey) => boolean,
  orderBy: ProjectOrder,
  sort: 'asc' | 'desc',
  needed: number,
  search?: ProjectSearch,
  range?: { after?: number; before?: number },
): readonly ProjectKey[] {
  if (search) {
    const hits = search.hits;
    // A search: scan the order's ids against the hits (no record is touched), then test the hits.
    const out: ProjectKey[] = [];
    if (candidates) {
      for (const id of new Set(candidates))
        if (hits[id] === 1) {
          const k = keyById(st, id);
          if (k && pred(k)) out.push(k);
        }
      return out.sort(comparator(orderBy, sort, st));
    }
    // Unfiltered (an admin's search): every match in order, kept with the search.
    const cacheKey = `${orderBy}:${sort}`;
    // Size orders follow the refs, which the search (kept per projects table) does not see.
    const keep = pred === ALL && orderBy !== 'repository_size' && orderBy !== 'storage_size';
    const known = keep ? search.ordered.get(cacheKey) : undefined;
    if (known) return known;
    // A few matches are put in order directly; many are picked out of the whole order.
    const ids =
      search.count * 8 < st.projects.size
        ? sortIds(st, search.ids, orderBy, sort)
        : orderedIds(st, orderBy, sort);
    if (pred === ALL) needed = Infinity;
    for (let i = 0, n = ids.length; i < n; i++) {
      const id = ids[i]!;
      if (hits[id] !== 1) continue;
      const k = keyById(st, id)!;
      if (pred(k) && out.push(k) >= needed) break;
    }
    if (keep) search.ordered.set(cacheKey, out);
    return out;
  }
  if (candidates) {
    const out: ProjectKey[] = [];
    const seen = new Set<number>();
    for (const id of candidates) {
      if (seen.has(id)) continue;
      seen.add(id);
      const p = tget(st.projects, id);
      if (!p) continue;
      const k = projectKey(st, p);
      if (pred(k)) out.push(k);
    }
    return out.sort(comparator(orderBy, sort, st));
  }
  let all = orderedProjects(st, orderBy, sort);
  if (orderBy === 'id' && range) all = idRange(all, sort, range);
  if (pred === ALL) return all;
  const out: ProjectKey[] = [];
  for (const k of all) if (pred(k) && out.push(k) >= needed) break;
  return out;
}

const KEYSET_UNAVAILABLE = 'Keyset pagination is not yet available for this type of request';
const OFFSET_LIMIT = 50_000;

/** `paginate_with_strategies` for Project relations: keyset by id, else offset up to the ceiling. */
function strategy(c: Ctx, prm: { page: number; per_page: number; order_by: string }): 'keyset' | 'offset' {
  if (c.get('params').pagination === 'keyset') {
    if (prm.order_by !== 'id') throw grapeError(405, KEYSET_UNAVAILABLE);
    return 'keyset';
  }
  if (prm.page * prm.per_page > OFFSET_LIMIT)
    throw grapeError(
      405,
      `Offset pagination has a maximum allowed offset of ${OFFSET_LIMIT} for requests that return objects of type Project. Remaining records can be retrieved using keyset pagination.`,
    );
  return 'offset';
}

function send(c: Ctx, page: Page<ProjectKey>, opts: ProjectEntityOptions): Response {
  const headers: Record<string, string> = {};
  for (const k in page.headers) headers[k.toLowerCase()] = page.headers[k]!;
  const list = projectRenderer(c).listChunks(page.items, opts);
  return 'text' in list
    ? jsonResponse(list.text, 200, headers)
    : jsonChunks(list.chunks, list.size, 200, headers);
}

function filtersFrom(c: Ctx, prm: Params, admin: boolean): Filters {
  const t = (s: unknown) => (typeof s === 'string' ? Date.parse(s) : undefined);
  const search = typeof prm.search === 'string' ? prm.search : undefined;
  return {
    archived: prm.archived as boolean | undefined,
    visibility: prm.visibility as string | undefined,
    search: search !== undefined && search.trim() !== '' ? search : undefined,
    searchNamespaces: prm.search_namespaces as boolean | undefined,
    owned: prm.owned === true,
    starred: prm.starred === true,
    membership: prm.membership === true,
    withIssues: prm.with_issues_enabled === true,
    withMrs: prm.with_merge_requests_enabled === true,
    language: prm.with_programming_language as string | undefined,
    minAccess: prm.min_access_level as number | undefined,
    idAfter: prm.id_after as number | undefined,
    idBefore: prm.id_before as number | undefined,
    activityAfter: t(prm.last_activity_after),
    activityBefore: t(prm.last_activity_before),
    repositoryStorage: admin ? (prm.repository_storage as string | undefined) : undefined,
    customAttributes: admin ? (prm.custom_attributes as Record<string, unknown> | undefined) : undefined,
    checksumFailed: prm.wiki_checksum_failed === true || prm.repository_checksum_failed === true,
  };
}

/**
 * `GET /projects`, `GET /users/:user_id/projects`, `GET /users/:user_id/starred_projects` (13.12's
 * `StarredProjectsFinder`: the user's stars through `ProjectsFinder`, so the caller sees only the
 * projects it may read; a private profile does not hide them in 13.12) and `GET /projects/:id/forks`
 * (the direct forks).
 */
function listProjects(c: Ctx, scope: 'all' | 'user' | 'starred' | 'forks'): Response {
  settleDeletions(c);
  const forksOf = scope === 'forks' ? loadProject(c) : undefined;
  const paid = c.get('fx').tier() !== 'free';
  const shapeScope = scope === 'all' || scope === 'starred' ? scope : 'user';
  const prm = parse(
    c,
    shapeFor(`${shapeScope}:${paid}`, () => projectsShape(paid, shapeScope)),
  ) as Params;
  const st = state(c);
  const viewer = c.get('viewer').user;
  const admin = viewer?.admin === true;
  let user: UserRecord | undefined;
  if (scope === 'user' || scope === 'starred') {
    user = findUser(st, c.req.param('user_id') ?? '');
    if (!user) throw notFound('User', 'no such user');
  }
  // Statistics orders are for admins; anyone else gets the declared default, in the links too.
  if ((STATISTICS_ORDERS as readonly string[]).includes(prm.order_by as string) && !admin) {
    prm.order_by = 'created_at';
    c.set('linkParams', { ...c.get('linkParams'), order_by: 'created_at' });
  }
  const orderBy = prm.order_by as ProjectOrder;
  const sort = prm.sort as 'asc' | 'desc';
  const mode = strategy(c, prm as { page: number; per_page: number; order_by: string });
  const f = filtersFrom(c, prm, admin);
  const { test, only, search } = buildPredicate(st, viewer, f);
  const candidates = user
    ? scope === 'starred'
      ? mget(st.idx.starsBy, `u${user.id}`).map((sid) => tget(st.stars, sid)!.project_id)
      : mget(st.idx.projectsByNamespace, `user:${user.id}`)
    : forksOf
      ? tvalues(st.projects)
          .filter((p) => p.forked_from_project_id === forksOf.id)
          .map((p) => p.id)
      : (only ?? null);
  const needed = rowsNeeded(c, st, prm.page as number, mode === 'keyset');
  const list = collect(st, candidates, test, orderBy, sort, needed, search, {
    after: f.idAfter,
    before: f.idBefore,
  });
  const page = mode === 'keyset' ? keysetPage(c, list, (k) => k.p.id, sort) : offsetPage(c, list);
  const simple = prm.simple === true || !viewer;
  return send(c, page, {
    shape: simple ? 'basic' : 'withAccess',
    statistics: prm.statistics === true,
    customAttributes: admin && prm.with_custom_attributes === true,
    directGroupAccess: true,
  });
}

// ---------------------------------------------------------------------------------------------------
// Group projects

/** The group and, with `deep`, its descendants. */
function groupTree(st: PlatformState, g: GroupRecord, deep: boolean): number[] {
  const out = [g.id];
  if (!deep) return out;
  for (let i = 0; i < out.length; i++) out.push(...mget(st.idx.subgroups, String(out[i])));
  return out;
}

/** Trigram similarity (pg_trgm's, on lower-cased words padded with two spaces in front and one behind). */
function trigrams(s: string): Set<string> {
  const out = new Set<string>();
  for (const word of s.toLowerCase().split(/[^a-z0-9]+/)) {
    if (!word) continue;
    const w = `  ${word} `;
    for (let i = 0; i + 3 <= w.length; i++) out.add(w.slice(i, i + 3));
  }
  return out;
}

function similarity(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let common = 0;
  for (const t of a) if (b.has(t)) common++;
  return common / (a.size + b.size - common);
}

/** `order_by=similarity`: path counts fully, name at 0.7, description at 0.2 (the platform's weights). */
function bySimilarity(list: ProjectKey[], search: string | undefined): ProjectKey[] {
  if (!search)
    return list.sort((a, b) => (a.p.name < b.p.name ? -1 : a.p.name > b.p.name ? 1 : a.p.id - b.p.id));
  const q = trigrams(search);
  const score = new Map<number, number>();
  for (const k of list)
    score.set(
      k.p.id,
      similarity(q, trigrams(k.p.path)) +
        0.7 * similarity(q, trigrams(k.p.name)) +
        0.2 * similarity(q, trigrams(k.p.description)),
    );
  return list.sort((a, b) => score.get(b.p.id)! - score.get(a.p.id)! || b.p.id - a.p.id);
}

/** `GET /groups/:id/projects` and `GET /groups/:id/projects/shared`. */
function listGroupProjects(c: Ctx, shared: boolean): Response {
  settleDeletions(c);
  const paid = c.get('fx').tier() !== 'free';
  const prm = parse(
    c,
    shapeFor(`group:${shared}:${paid}`, () => groupShape(shared, paid)),
  ) as Params;
  const st = state(c);
  const group = findGroup(c, c.req.param('id') ?? '');
  const viewer = c.get('viewer').user;
  const admin = viewer?.admin === true;
  const withShared = shared || prm.with_shared !== false;
  const ids: number[] = [];
  if (!shared)
    for (const gid of groupTree(st, group, prm.include_subgroups === true))
      ids.push(...mget(st.idx.projectsByNamespace, `group:${gid}`));
  if (withShared)
    for (const sid of mget(st.idx.sharesBy, `g${group.id}`)) {
      const sh = tget(st.shares, sid);
      if (sh) ids.push(sh.project_id);
    }
  const f = filtersFrom(c, prm, admin);
  f.membership = false;
  const { test, search } = buildPredicate(st, viewer, f);
  const similar = prm.order_by === 'similarity';
  const flagged = similar && featureEnabled(st, 'similarity_search');
  const orderBy = (similar ? 'created_at' : prm.order_by) as ProjectOrder;
  let list = collect(st, ids, test, orderBy, prm.sort as 'asc' | 'desc', Infinity, search) as ProjectKey[];
  if (flagged) list = bySimilarity(list, f.search);
  const page = offsetPage(c, list);
  return send(c, page, {
    shape: prm.simple === true ? 'basic' : 'full',
    customAttributes: admin && prm.with_custom_attributes === true,
  });
}

export const listRoutes = { listProjects, listGroupProjects };

/** Whether the viewer may read a project, for lists built elsewhere. */
export const visibleProject = canReadProject;
export { VISIBILITY_LEVEL };
