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
import { iget, mget, tget, tvalues } from './table.js';

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

/** A user's access to a group through memberships: the highest on it or any ancestor. */
export function memberAccess(st: PlatformState, user: UserRecord | null, group: GroupRecord): number {
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

/**
 * A user's access to a group: the memberships on it or any ancestor, and the group links of those
 * (`GroupGroupLink`): a direct member of a group one of them is shared with has min(the link's access,
 * their membership there), as `Group#members_from_self_and_ancestor_group_shares` reads them (direct
 * members of the group shared with only: neither its ancestors' members nor its own links).
 */
export function groupAccess(st: PlatformState, user: UserRecord | null, group: GroupRecord): number {
  if (!user) return 0;
  let level = 0;
  for (
    let g: GroupRecord | undefined = group;
    g;
    g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id)
  ) {
    level = Math.max(level, directLevel(st, 'group', g.id, user.id));
    for (const linkId of mget(st.idx.groupLinksBy, `s${g.id}`)) {
      const link = tget(st.groupLinks, linkId)!;
      const direct = directLevel(st, 'group', link.shared_with_group_id, user.id);
      if (direct > 0) level = Math.max(level, Math.min(link.group_access, direct));
    }
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
    // `ProjectGroupLink`: the share's group's members (of it and its ancestors), not its own links.
    if (g) level = Math.max(level, Math.min(share.group_access, memberAccess(st, user, g)));
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
  if (user && groupsSeenFromInside(st, user.id).has(group.id)) return true;
  // `has_projects`: a project inside that the viewer may read makes the group readable too.
  const needed = user && !user.external ? VISIBILITY_LEVEL.internal : VISIBILITY_LEVEL.public;
  return subtreeVisibility(st, group.id) >= needed;
}

interface InsideCache {
  groups: PlatformState['groups'];
  projects: PlatformState['projects'];
  shares: PlatformState['shares'];
  groupLinks: PlatformState['groupLinks'];
  byUser: Map<number, Set<number>>;
}
const insideCaches = new WeakMap<PlatformState['members'], InsideCache>();

/**
 * The groups a user sees from inside (`authorized_groups` and their ancestors): the groups they are a
 * direct member of and the groups of the projects they are authorized for through a project membership
 * or a share, with every ancestor of those. Cached per user while the tables it reads keep their identity.
 */
export function groupsSeenFromInside(st: PlatformState, userId: number): ReadonlySet<number> {
  let cache = insideCaches.get(st.members);
  if (
    !cache ||
    cache.groups !== st.groups ||
    cache.projects !== st.projects ||
    cache.shares !== st.shares ||
    cache.groupLinks !== st.groupLinks
  ) {
    cache = {
      groups: st.groups,
      projects: st.projects,
      shares: st.shares,
      groupLinks: st.groupLinks,
      byUser: new Map(),
    };
    insideCaches.set(st.members, cache);
  }
  let seen = cache.byUser.get(userId);
  if (seen) return seen;
  const out = new Set<number>();
  const addChain = (id: number) => {
    for (
      let g = tget(st.groups, id);
      g && !out.has(g.id);
      g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id)
    )
      out.add(g.id);
  };
  const addProject = (projectId: number) => {
    const p = tget(st.projects, projectId);
    if (p?.namespace_kind === 'group') addChain(p.namespace_id);
  };
  const memberOf = new Set<number>();
  for (const id of mget(st.idx.membersByUser, String(userId))) {
    const m = tget(st.members, id)!;
    if (m.access_level < ACCESS.GUEST) continue;
    if (m.source === 'group') {
      memberOf.add(m.source_id);
      addChain(m.source_id);
    } else addProject(m.source_id);
  }
  // Shares reach the members of the share's group and of its ancestors.
  if (memberOf.size > 0)
    for (const sh of tvalues(st.shares))
      for (
        let g = tget(st.groups, sh.group_id);
        g;
        g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id)
      )
        if (memberOf.has(g.id)) {
          addProject(sh.project_id);
          break;
        }
  // So do group links: the shared group (with its ancestors) is seen from inside by the direct members
  // of the group it is shared with.
  if (memberOf.size > 0)
    for (const link of tvalues(st.groupLinks))
      if (memberOf.has(link.shared_with_group_id)) addChain(link.shared_group_id);
  seen = out;
  cache.byUser.set(userId, seen);
  return seen;
}

const subtreeCaches = new WeakMap<
  PlatformState['projects'],
  { groups: PlatformState['groups']; levels: Map<number, number> }
>();

/** The highest visibility level of the projects in a group and its subgroups (-1 when none). Memoised per tables. */
function subtreeVisibility(st: PlatformState, groupId: number): number {
  let cache = subtreeCaches.get(st.projects);
  if (!cache || cache.groups !== st.groups) {
    cache = { groups: st.groups, levels: new Map() };
    subtreeCaches.set(st.projects, cache);
  }
  const levels = cache.levels;
  const visit = (id: number): number => {
    const known = levels.get(id);
    if (known !== undefined) return known;
    let level = -1;
    for (const pid of mget(st.idx.projectsByNamespace, `group:${id}`)) {
      const p = tget(st.projects, pid);
      if (p) level = Math.max(level, VISIBILITY_LEVEL[p.visibility]);
    }
    for (const child of mget(st.idx.subgroups, String(id))) level = Math.max(level, visit(child));
    levels.set(id, level);
    return level;
  };
  return visit(groupId);
}

/** `find_project!`: numeric id or full path; missing and unreadable answer the same 404. */
export function findProject(c: Ctx, idOrPath: string): ProjectRecord {
  const st = c.get('fx').store.state;
  const p = lookupProject(st, idOrPath);
  if (!p) throw notFound('Project', 'no project with this id or path');
  if (!canReadProject(st, c.get('viewer').user, p))
    throw notFound('Project', 'project hidden from this viewer');
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
  const st = c.get('fx').store.state;
  const g = lookupGroup(st, idOrPath);
  if (!g) throw notFound('Group', 'no group with this id or path');
  if (!canReadGroup(st, c.get('viewer').user, g)) throw notFound('Group', 'group hidden from this viewer');
  return g;
}

export function lookupGroup(st: PlatformState, idOrPath: string): GroupRecord | undefined {
  if (/^\d+$/.test(idOrPath)) return tget(st.groups, Number(idOrPath));
  const id = iget(st.idx.namespaces, idOrPath.toLowerCase());
  return id === undefined || id < 0 ? undefined : tget(st.groups, id);
}
