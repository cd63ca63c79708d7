/**
 * The project members API: `/projects/:id/members` (list, show, add, change, remove) and `/members/all`
 * (with the memberships inherited from the project's groups). The routes themselves are the shared members
 * API.
 *
 * In the 13.x era the owner of a personal project is its maintainer: fauxlab keeps no record for that, and
 * shows the membership as the platform does.
 */
import { ACCESS } from '../../core/access.js';
import { state, type Ctx } from '../../core/context.js';
import type { ApiRouter } from '../../core/router.js';
import type { PlatformState } from '../../core/state.js';
import { iget, mget, tget } from '../../core/table.js';
import { bestPerUser, memberRoutes, type Member } from '../members/routes.js';
import { userRenderer } from '../users/entities.js';
import { groupChain } from './access.js';
import type { Project } from './model.js';
import { canAdminProject, loadProject } from './helpers.js';

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
  const inherited = groupChain(st, p).flatMap((g) =>
    mget(st.idx.membersBySource, `group:${g.id}`).map((id) => tget(st.members, id)!),
  );
  return bestPerUser([...directMembers(st, p), ...inherited]);
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

/** The entity: the user's basic shape, then the membership. */
function memberRenderer(c: Ctx): (m: Member) => Record<string, unknown> {
  const users = userRenderer(c);
  return (m) => {
    const out = users.basic(tget(state(c).users, m.user_id)!);
    out.access_level = m.access_level;
    out.expires_at = m.expires_at;
    return out;
  };
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

export function memberErrors(
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

export function projectMembersRoutes(r: ApiRouter): void {
  memberRoutes(r, {
    kind: 'project',
    inheritedFrom: 'its groups',
    load: loadProject,
    direct: directMembers,
    directMember,
    all: allMembers,
    rankSearch: false,
    render: memberRenderer,
    canAdmin: (c, _user, project) => canAdminProject(c, project),
    errors: memberErrors,
    // The personal project's owner keeps their membership.
    locked: (_st, _project, m) => m.id === 0,
  });
}
