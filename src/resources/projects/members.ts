/**
 * The project members API: `/projects/:id/members` (list, show, add, change, remove) and `/members/all`
 * (with the memberships inherited from the project's groups).
 *
 * Every members endpoint authenticates before anything else (the API's `before { authenticate! }`). In the
 * 13.x era the owner of a personal project is its maintainer: fauxlab keeps no record for that, and shows
 * the membership as the platform does.
 */
import { ACCESS } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { conflict, forbidden, notFound, recordNotFound, validationError } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { MemberRecord, PlatformState } from '../../core/state.js';
import { iget, mget, tget } from '../../core/table.js';
import { userRenderer } from '../users/entities.js';
import { compileSearch, userKey } from '../users/finder.js';
import { groupChain } from './access.js';
import { removeMember, setMember, type Project } from './model.js';
import { canAdminProject, loadProject } from './helpers.js';

/** A membership as the entity shows it (a personal project's owner has no record). */
type Member = Pick<MemberRecord, 'user_id' | 'access_level' | 'expires_at'> & {
  id: number;
  created_at: string;
};

const listParams = { query: p.str(), user_ids: p.intArray(), ...paginationParams };
const userIdParam = { user_id: p.int().required() };
const writeParams = {
  user_id: p.int().required(),
  access_level: p.int().required(),
  expires_at: p.datetime(),
};

const PROJECT_MEMBER_LEVELS = [10, 20, 30, 40];
const HUMAN: Record<number, string> = {
  10: 'Guest',
  20: 'Reporter',
  30: 'Developer',
  40: 'Maintainer',
  50: 'Owner',
};

function ownerMember(p: Project): Member | undefined {
  if (p.namespace_kind !== 'user' || p.owner_id === null) return undefined;
  return {
    id: 0,
    user_id: p.owner_id,
    access_level: ACCESS.MAINTAINER,
    expires_at: null,
    created_at: p.created_at,
  };
}

/** The project's direct memberships, in creation order (the owner's first). */
export function directMembers(st: PlatformState, p: Project): Member[] {
  const out: Member[] = mget(st.idx.membersBySource, `project:${p.id}`).map((id) => tget(st.members, id)!);
  const owner = ownerMember(p);
  if (owner && !out.some((m) => m.user_id === owner.user_id)) out.unshift(owner);
  return out;
}

function directMember(st: PlatformState, p: Project, userId: number): Member | undefined {
  const id = iget(st.idx.members, `project:${p.id}:${userId}`);
  if (id !== undefined) return tget(st.members, id);
  const owner = ownerMember(p);
  return owner?.user_id === userId ? owner : undefined;
}

/** Direct and inherited memberships, one per user (highest level, then latest expiry), by user id. */
function allMembers(st: PlatformState, p: Project): Member[] {
  const best = new Map<number, Member>();
  const better = (a: Member, b: Member) => {
    if (a.access_level !== b.access_level) return a.access_level > b.access_level;
    if (a.expires_at !== b.expires_at)
      return a.expires_at === null || (b.expires_at !== null && a.expires_at > b.expires_at);
    return a.created_at < b.created_at;
  };
  const consider = (m: Member) => {
    const cur = best.get(m.user_id);
    if (!cur || better(m, cur)) best.set(m.user_id, m);
  };
  for (const m of directMembers(st, p)) consider(m);
  for (const g of groupChain(st, p))
    for (const id of mget(st.idx.membersBySource, `group:${g.id}`)) consider(tget(st.members, id)!);
  return [...best.values()].sort((a, b) => a.user_id - b.user_id);
}

/**
 * The users with access to the project (`team.users`): members, members of its groups, members of the
 * groups it is shared with (and of their ancestors), and a personal project's owner; by user id.
 */
export function teamUserIds(st: PlatformState, p: Project): number[] {
  const ids = new Set<number>();
  for (const m of allMembers(st, p)) if (m.access_level >= ACCESS.GUEST) ids.add(m.user_id);
  for (const sid of mget(st.idx.sharesBy, String(p.id))) {
    const sh = tget(st.shares, sid);
    for (
      let g = sh && tget(st.groups, sh.group_id);
      g;
      g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id)
    )
      for (const id of mget(st.idx.membersBySource, `group:${g.id}`)) ids.add(tget(st.members, id)!.user_id);
  }
  return [...ids].sort((a, b) => a - b);
}

function filterMembers(
  c: Ctx,
  list: Member[],
  query: string | undefined,
  userIds: number[] | undefined,
): Member[] {
  const st = state(c);
  let out = list;
  if (userIds && userIds.length > 0) {
    const ids = new Set(userIds);
    out = out.filter((m) => ids.has(m.user_id));
  }
  if (query !== undefined && query.trim() !== '') {
    const search = compileSearch(st, query);
    out = search ? out.filter((m) => search.test(userKey(tget(st.users, m.user_id)!))) : [];
  }
  return out;
}

function memberJson(c: Ctx, m: Member): Record<string, unknown> {
  const out = userRenderer(c).basic(tget(state(c).users, m.user_id)!);
  out.access_level = m.access_level;
  out.expires_at = m.expires_at;
  return out;
}

/** The highest membership the user inherits from the project's groups. */
function inherited(st: PlatformState, p: Project, userId: number): { level: number; group: string } | null {
  let best: { level: number; group: string } | null = null;
  for (const g of groupChain(st, p)) {
    const id = iget(st.idx.members, `group:${g.id}:${userId}`);
    const m = id === undefined ? undefined : tget(st.members, id);
    if (m && (!best || m.access_level > best.level)) best = { level: m.access_level, group: g.name };
  }
  return best;
}

function memberErrors(
  st: PlatformState,
  p: Project,
  userId: number,
  level: number,
  expiresAt: string | null,
  today: string,
): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (k: string, msg: string) => (errors[k] ??= []).push(msg);
  if (expiresAt && expiresAt < today) add('expires_at', 'cannot be a date in the past');
  const from = inherited(st, p, userId);
  if (from && from.level > level)
    add(
      'access_level',
      `should be greater than or equal to ${HUMAN[from.level] ?? from.level} inherited membership from group ${from.group}`,
    );
  if (!PROJECT_MEMBER_LEVELS.includes(level)) add('access_level', 'is not included in the list');
  return errors;
}

const userIdOf = (c: Ctx) => parse(c, userIdParam).user_id;

export function projectMembersRoutes(r: ApiRouter): void {
  r.get('/projects/:id/members', (c) => {
    requireUser(c);
    const prm = parse(c, listParams);
    const project = loadProject(c);
    const list = filterMembers(c, directMembers(state(c), project), prm.query, prm.user_ids);
    return paginate(c, list, (m) => memberJson(c, m));
  });

  r.get('/projects/:id/members/all', (c) => {
    requireUser(c);
    const prm = parse(c, listParams);
    const project = loadProject(c);
    const list = filterMembers(c, allMembers(state(c), project), prm.query, prm.user_ids);
    return paginate(c, list, (m) => memberJson(c, m));
  });

  r.get('/projects/:id/members/all/:user_id', (c) => {
    requireUser(c);
    const userId = userIdOf(c);
    const project = loadProject(c);
    const m = allMembers(state(c), project).find((x) => x.user_id === userId);
    if (!m) throw recordNotFound(`user ${userId} is no member of project ${project.id} or its groups`);
    return c.json(memberJson(c, m));
  });

  r.get('/projects/:id/members/:user_id', (c) => {
    requireUser(c);
    const userId = userIdOf(c);
    const project = loadProject(c);
    const m = directMember(state(c), project, userId);
    if (!m) throw recordNotFound(`user ${userId} is no direct member of project ${project.id}`);
    return c.json(memberJson(c, m));
  });

  r.post('/projects/:id/members', (c) => {
    requireUser(c);
    const prm = parse(c, writeParams);
    const project = loadProject(c);
    const st = state(c);
    if (!canAdminProject(c, project)) throw forbidden();
    if (directMember(st, project, prm.user_id)) throw conflict('Member already exists');
    if (!tget(st.users, prm.user_id)) throw notFound('User', `no user ${prm.user_id}`);
    const expiresAt = prm.expires_at ? prm.expires_at.slice(0, 10) : null;
    const errors = memberErrors(
      st,
      project,
      prm.user_id,
      prm.access_level,
      expiresAt,
      c.get('fx').clock.today(),
    );
    if (Object.keys(errors).length > 0) throw validationError(errors);
    const now = c.get('fx').clock.iso();
    const id = write(c, (d) =>
      setMember(d, 'project', project.id, prm.user_id, prm.access_level, now, expiresAt),
    );
    return c.json(memberJson(c, tget(state(c).members, id)!), 201);
  });

  r.put('/projects/:id/members/:user_id', (c) => {
    requireUser(c);
    const prm = parse(c, writeParams);
    const project = loadProject(c);
    const st = state(c);
    if (!canAdminProject(c, project)) throw forbidden();
    const m = directMember(st, project, prm.user_id);
    if (!m) throw recordNotFound(`user ${prm.user_id} is no direct member of project ${project.id}`);
    // The personal project's owner keeps their membership.
    if (m.id === 0) throw forbidden();
    const raw = c.get('params').expires_at;
    const expiresAt =
      prm.expires_at !== undefined
        ? prm.expires_at.slice(0, 10)
        : raw === '' || raw === null
          ? null
          : m.expires_at;
    const errors = memberErrors(
      st,
      project,
      m.user_id,
      prm.access_level,
      expiresAt,
      c.get('fx').clock.today(),
    );
    if (Object.keys(errors).length > 0) throw validationError(errors);
    const now = c.get('fx').clock.iso();
    write(c, (d) => setMember(d, 'project', project.id, m.user_id, prm.access_level, now, expiresAt));
    return c.json(memberJson(c, tget(state(c).members, m.id)!));
  });

  r.delete('/projects/:id/members/:user_id', (c) => {
    const user = requireUser(c);
    const userId = userIdOf(c);
    const project = loadProject(c);
    const st = state(c);
    const m = directMember(st, project, userId);
    if (!m) throw recordNotFound(`user ${userId} is no direct member of project ${project.id}`);
    checkUnmodifiedSince(c, m.created_at);
    // Maintainers remove anyone, members themselves; nobody removes a personal project's owner.
    if (m.id === 0 || !(canAdminProject(c, project) || m.user_id === user.id)) throw forbidden();
    write(c, (d) => removeMember(d, m.id));
    return c.body(null, 204);
  });
}
