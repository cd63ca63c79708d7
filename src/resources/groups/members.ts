/**
 * The group members API: `/groups/:id/members` (list, show, add, change, remove) and `/members/all`
 * (with the memberships inherited from ancestor groups).
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
import type { MemberRecord, PlatformState } from '../../core/state.js';
import { iget, mget, tget } from '../../core/table.js';
import { compileSearch, userKey } from '../users/finder.js';
import { removeMember, setMember } from '../projects/model.js';
import { groupRenderer } from './entities.js';
import {
  isLastOwner,
  memberValidationErrors,
  selfAndAncestors,
  subresourceMemberships,
  type Group,
} from './model.js';
import { canAdminGroup, findGroupRecord } from './access.js';

const listParams = { query: p.str(), user_ids: p.intArray(), ...paginationParams };
const userIdParam = { user_id: p.int().required() };
const createParams = {
  user_id: p.int().required(),
  access_level: p.int().required(),
  expires_at: p.datetime(),
};

const directMember = (st: PlatformState, g: Group, userId: number) => {
  const id = iget(st.idx.members, `group:${g.id}:${userId}`);
  return id === undefined ? undefined : tget(st.members, id);
};

const directMembers = (st: PlatformState, g: Group) =>
  mget(st.idx.membersBySource, `group:${g.id}`).map((id) => tget(st.members, id)!);

/**
 * The group's memberships with those of its ancestors, one per user: the highest access level, then the
 * latest expiry (none counts as latest), then the oldest; ordered by user id, as `DISTINCT ON` leaves them.
 */
function allMembers(st: PlatformState, g: Group): MemberRecord[] {
  const best = new Map<number, MemberRecord>();
  const better = (a: MemberRecord, b: MemberRecord) => {
    if (a.access_level !== b.access_level) return a.access_level > b.access_level;
    if (a.expires_at !== b.expires_at)
      return a.expires_at === null || (b.expires_at !== null && a.expires_at > b.expires_at);
    return a.created_at < b.created_at || (a.created_at === b.created_at && a.id < b.id);
  };
  for (const a of selfAndAncestors(st, g))
    for (const m of directMembers(st, a)) {
      const cur = best.get(m.user_id);
      if (!cur || better(m, cur)) best.set(m.user_id, m);
    }
  return [...best.values()].sort((a, b) => a.user_id - b.user_id);
}

/** `query` (the users search, with its relevance order) and `user_ids`. */
function filterMembers(
  c: Ctx,
  list: MemberRecord[],
  query: string | undefined,
  userIds: number[] | undefined,
  keepOrder: boolean,
) {
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
    if (!keepOrder)
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

export function groupMembersRoutes(r: ApiRouter): void {
  r.get('/groups/:id/members', (c) => {
    requireUser(c);
    const prm = parse(c, listParams);
    const g = findGroupRecord(c, c.req.param('id')!);
    const rr = groupRenderer(c);
    const list = filterMembers(c, directMembers(state(c), g), prm.query, prm.user_ids, false);
    return paginate(c, list, (m) => rr.member(m));
  });

  r.get('/groups/:id/members/all', (c) => {
    requireUser(c);
    const prm = parse(c, listParams);
    const g = findGroupRecord(c, c.req.param('id')!);
    const rr = groupRenderer(c);
    const list = filterMembers(c, allMembers(state(c), g), prm.query, prm.user_ids, true);
    return paginate(c, list, (m) => rr.member(m));
  });

  r.get('/groups/:id/members/all/:user_id', (c) => {
    requireUser(c);
    const userId = userIdOf(c);
    const g = findGroupRecord(c, c.req.param('id')!);
    const m = allMembers(state(c), g).find((x) => x.user_id === userId);
    if (!m) throw recordNotFound(`user ${userId} is no member of group ${g.id} or its ancestors`);
    return c.json(groupRenderer(c).member(m));
  });

  r.get('/groups/:id/members/:user_id', (c) => {
    requireUser(c);
    const userId = userIdOf(c);
    const g = findGroupRecord(c, c.req.param('id')!);
    const m = directMember(state(c), g, userId);
    if (!m) throw recordNotFound(`user ${userId} is no direct member of group ${g.id}`);
    return c.json(groupRenderer(c).member(m));
  });

  r.post('/groups/:id/members', (c) => {
    const user = requireUser(c);
    const prm = parse(c, createParams);
    const st = state(c);
    const g = findGroupRecord(c, c.req.param('id')!);
    if (!canAdminGroup(st, user, g)) throw forbidden();
    if (directMember(st, g, prm.user_id)) throw conflict('Member already exists');
    if (!tget(st.users, prm.user_id)) throw notFound('User', `no user ${prm.user_id}`);
    const expiresAt = prm.expires_at ? prm.expires_at.slice(0, 10) : null;
    const errors = memberValidationErrors(
      st,
      g,
      prm.user_id,
      prm.access_level,
      expiresAt,
      c.get('fx').clock.today(),
    );
    if (Object.keys(errors).length > 0) throw validationError(errors);
    const now = c.get('fx').clock.iso();
    const id = write(c, (d) => setMember(d, 'group', g.id, prm.user_id, prm.access_level, now, expiresAt));
    return c.json(groupRenderer(c).member(tget(state(c).members, id)!), 201);
  });

  r.put('/groups/:id/members/:user_id', (c) => {
    const user = requireUser(c);
    const prm = parse(c, createParams);
    const st = state(c);
    const g = findGroupRecord(c, c.req.param('id')!);
    if (!canAdminGroup(st, user, g)) throw forbidden();
    const m = directMember(st, g, prm.user_id);
    if (!m) throw recordNotFound(`user ${prm.user_id} is no direct member of group ${g.id}`);
    if (isLastOwner(st, g, m.user_id)) throw forbidden();
    // A blank expiry clears it; an absent one keeps it.
    const raw = c.get('params').expires_at;
    const expiresAt =
      prm.expires_at !== undefined
        ? prm.expires_at.slice(0, 10)
        : raw === '' || raw === null
          ? null
          : m.expires_at;
    const errors = memberValidationErrors(
      st,
      g,
      m.user_id,
      prm.access_level,
      expiresAt,
      c.get('fx').clock.today(),
    );
    if (Object.keys(errors).length > 0) throw validationError(errors);
    const now = c.get('fx').clock.iso();
    write(c, (d) => setMember(d, 'group', g.id, m.user_id, prm.access_level, now, expiresAt));
    return c.json(groupRenderer(c).member(tget(state(c).members, m.id)!));
  });

  r.delete('/groups/:id/members/:user_id', (c) => {
    const user = requireUser(c);
    const userId = userIdOf(c);
    const st = state(c);
    const g = findGroupRecord(c, c.req.param('id')!);
    const m = directMember(st, g, userId);
    if (!m) throw recordNotFound(`user ${userId} is no direct member of group ${g.id}`);
    checkUnmodifiedSince(c, m.created_at);
    // Owners remove anyone, members themselves; nobody removes the last owner.
    const allowed = canAdminGroup(st, user, g) || m.user_id === user.id;
    if (!allowed || isLastOwner(st, g, m.user_id)) throw forbidden();
    const cascade = subresourceMemberships(st, g.id, m.user_id);
    write(c, (d) => {
      removeMember(d, m.id);
      for (const id of cascade) removeMember(d, id);
    });
    return c.body(null, 204);
  });
}
