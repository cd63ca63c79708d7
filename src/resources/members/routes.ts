/**
 * The members API shared by groups and projects: `/<groups|projects>/:id/members` (list, show, add, change,
 * remove) and `/members/all` (with the inherited memberships). The two sources differ only in what a
 * `MembershipSource` says: where inherited memberships come from, who may administer, what may not change.
 *
 * Every members endpoint authenticates before anything else (the API's `before { authenticate! }`), so an
 * anonymous caller gets a 401 even where the params are wrong.
 */
import { requireUser } from '../../core/auth.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { conflict, forbidden, notFound, recordNotFound, validationError } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { MemberRecord, MemberSource, PlatformState, UserRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { compileSearch, userKey } from '../users/finder.js';
import { removeMember, setMember } from '../projects/model.js';
import { memberSystemEvent } from '../hooks/system.js';
import { dropRequest } from '../access_requests/model.js';

/** A membership as the entity shows it (a personal project's owner has no record: id 0). */
export type Member = Pick<MemberRecord, 'id' | 'user_id' | 'access_level' | 'expires_at' | 'created_at'>;

/** What tells a group's members API from a project's. */
export interface MembershipSource<S extends { id: number }, M extends Member> {
  kind: MemberSource;
  /** Where `/members/all` inherits from, as a 404's explanation says it (`its ancestors`). */
  inheritedFrom: string;
  /** The source of the path's `:id`, or the 404 the viewer gets. */
  load(c: Ctx): S;
  direct(st: PlatformState, s: S): M[];
  directMember(st: PlatformState, s: S, userId: number): M | undefined;
  /** Direct and inherited memberships, one per user, by user id. */
  all(st: PlatformState, s: S): M[];
  /** Whether a search of the direct members comes in relevance order (the group API) or in list order. */
  rankSearch: boolean;
  render(c: Ctx): (m: M | MemberRecord) => unknown;
  canAdmin(c: Ctx, user: UserRecord, s: S): boolean;
  /** The model's errors hash for a membership at this level and expiry (empty when valid). */
  errors(
    st: PlatformState,
    s: S,
    userId: number,
    level: number,
    expiresAt: string | null,
    today: string,
  ): Record<string, string[]>;
  /** A membership nobody may change or remove (a group's last owner, a personal project's owner). */
  locked(st: PlatformState, s: S, m: M): boolean;
  /** The record ids removed along with a membership. */
  cascade?(st: PlatformState, s: S, m: M): number[];
}

/**
 * One membership per user: the highest access level, then the latest expiry (none counts as latest), then
 * the oldest; ordered by user id, as `DISTINCT ON` leaves them.
 */
export function bestPerUser<M extends Member>(members: Iterable<M>): M[] {
  const best = new Map<number, M>();
  const better = (a: M, b: M) => {
    if (a.access_level !== b.access_level) return a.access_level > b.access_level;
    if (a.expires_at !== b.expires_at)
      return a.expires_at === null || (b.expires_at !== null && a.expires_at > b.expires_at);
    return a.created_at < b.created_at || (a.created_at === b.created_at && a.id < b.id);
  };
  for (const m of members) {
    const cur = best.get(m.user_id);
    if (!cur || better(m, cur)) best.set(m.user_id, m);
  }
  return [...best.values()].sort((a, b) => a.user_id - b.user_id);
}

const listParams = { query: p.str(), user_ids: p.intArray(), ...paginationParams };
const userIdParam = { user_id: p.int().required() };
const writeParams = {
  user_id: p.int().required(),
  access_level: p.int().required(),
  expires_at: p.datetime(),
};

/** `query` (the users search; in its relevance order where `rank`) and `user_ids`. */
function filterMembers<M extends Member>(
  c: Ctx,
  list: M[],
  query: string | undefined,
  userIds: number[] | undefined,
  rank: boolean,
): M[] {
  const st = state(c);
  let out = list;
  if (userIds && userIds.length > 0) {
    const ids = new Set(userIds);
    out = out.filter((m) => ids.has(m.user_id));
  }
  if (query !== undefined && query.trim() !== '') {
    const search = compileSearch(st, query);
    if (!search) return [];
    const keyed = out
      .map((m) => ({ m, k: userKey(tget(st.users, m.user_id)!) }))
      .filter((x) => search.test(x.k));
    if (rank)
      keyed.sort(
        (a, b) =>
          search.rank(a.k) - search.rank(b.k) ||
          (a.k.u.name < b.k.u.name ? -1 : a.k.u.name > b.k.u.name ? 1 : a.m.id - b.m.id),
      );
    out = keyed.map((x) => x.m);
  }
  return out;
}

/** The user id of a member route, validated as Grape does (`user_id is invalid`). */
const userIdOf = (c: Ctx) => parse(c, userIdParam).user_id;

/** Registers the members routes of one source kind. */
export function memberRoutes<S extends { id: number }, M extends Member>(
  r: ApiRouter,
  src: MembershipSource<S, M>,
): void {
  const base = `/${src.kind}s/:id/members`;
  const noDirect = (userId: number, s: S) =>
    recordNotFound(`user ${userId} is no direct member of ${src.kind} ${s.id}`);
  const mustHave = (m: M | undefined, userId: number, s: S): M => {
    if (!m) throw noDirect(userId, s);
    return m;
  };
  const today = (c: Ctx) => c.get('fx').clock.today();

  for (const [path, all] of [
    [base, false],
    [`${base}/all`, true],
  ] as const)
    r.get(path, (c) => {
      requireUser(c);
      const prm = parse(c, listParams);
      const s = src.load(c);
      const st = state(c);
      const list = all ? src.all(st, s) : src.direct(st, s);
      const filtered = filterMembers(c, list, prm.query, prm.user_ids, src.rankSearch && !all);
      return paginate(c, filtered, src.render(c));
    });

  r.get(`${base}/all/:user_id`, (c) => {
    requireUser(c);
    const userId = userIdOf(c);
    const s = src.load(c);
    const m = src.all(state(c), s).find((x) => x.user_id === userId);
    if (!m)
      throw recordNotFound(`user ${userId} is no member of ${src.kind} ${s.id} or ${src.inheritedFrom}`);
    return c.json(src.render(c)(m));
  });

  r.get(`${base}/:user_id`, (c) => {
    requireUser(c);
    const userId = userIdOf(c);
    const s = src.load(c);
    const m = mustHave(src.directMember(state(c), s, userId), userId, s);
    return c.json(src.render(c)(m));
  });

  r.post(base, (c) => {
    const user = requireUser(c);
    const prm = parse(c, writeParams);
    const s = src.load(c);
    const st = state(c);
    if (!src.canAdmin(c, user, s)) throw forbidden();
    if (src.directMember(st, s, prm.user_id)) throw conflict('Member already exists');
    if (!tget(st.users, prm.user_id)) throw notFound('User', `no user ${prm.user_id}`);
    const expiresAt = prm.expires_at ? prm.expires_at.slice(0, 10) : null;
    const errors = src.errors(st, s, prm.user_id, prm.access_level, expiresAt, today(c));
    if (Object.keys(errors).length > 0) throw validationError(errors);
    const now = c.get('fx').clock.iso();
    // `Member.add_user` takes over a pending access request of the user (`members_and_requesters`).
    const id = write(c, (d) => {
      dropRequest(d, src.kind, s.id, prm.user_id);
      return setMember(d, src.kind, s.id, prm.user_id, prm.access_level, now, expiresAt);
    });
    memberSystemEvent(c, tget(state(c).members, id)!, 'create');
    return c.json(src.render(c)(tget(state(c).members, id)!), 201);
  });

  r.put(`${base}/:user_id`, (c) => {
    const user = requireUser(c);
    const prm = parse(c, writeParams);
    const s = src.load(c);
    const st = state(c);
    if (!src.canAdmin(c, user, s)) throw forbidden();
    const m = mustHave(src.directMember(st, s, prm.user_id), prm.user_id, s);
    if (src.locked(st, s, m)) throw forbidden();
    // A blank expiry clears it; an absent one keeps it.
    const raw = c.get('params').expires_at;
    const expiresAt =
      prm.expires_at !== undefined
        ? prm.expires_at.slice(0, 10)
        : raw === '' || raw === null
          ? null
          : m.expires_at;
    const errors = src.errors(st, s, m.user_id, prm.access_level, expiresAt, today(c));
    if (Object.keys(errors).length > 0) throw validationError(errors);
    const now = c.get('fx').clock.iso();
    write(c, (d) => setMember(d, src.kind, s.id, m.user_id, prm.access_level, now, expiresAt));
    memberSystemEvent(c, tget(state(c).members, m.id)!, 'update');
    return c.json(src.render(c)(tget(state(c).members, m.id)!));
  });

  r.delete(`${base}/:user_id`, (c) => {
    const user = requireUser(c);
    const userId = userIdOf(c);
    const s = src.load(c);
    const st = state(c);
    const m = mustHave(src.directMember(st, s, userId), userId, s);
    checkUnmodifiedSince(c, m.created_at);
    // Administrators remove anyone, members themselves; nobody removes a locked membership.
    const allowed = src.canAdmin(c, user, s) || m.user_id === user.id;
    if (!allowed || src.locked(st, s, m)) throw forbidden();
    const cascade = src.cascade?.(st, s, m) ?? [];
    write(c, (d) => {
      removeMember(d, m.id);
      for (const id of cascade) removeMember(d, id);
    });
    memberSystemEvent(c, tget(st.members, m.id)!, 'destroy', st);
    return c.body(null, 204);
  });
}
