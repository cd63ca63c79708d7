/** Writes on groups, projects and memberships, shared by the API, scenario loading and generators. */
import type { Draft } from 'immer';
import { memberKey } from '../../core/access.js';
import {
  nextId,
  type GroupRecord,
  type MemberSource,
  type PlatformState,
  type ProjectRecord,
  type Visibility,
} from '../../core/state.js';
import { idelete, iget, iset, madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';

type S = Draft<PlatformState>;

export interface NewGroup {
  path: string;
  name?: string;
  parent_id?: number | null;
  description?: string;
  visibility?: Visibility;
  [field: string]: unknown;
}

export function createGroup(st: S, input: NewGroup, now: string): number {
  const id = nextId(st, 'namespaces');
  const parent = input.parent_id ? tget(st.groups, input.parent_id) : undefined;
  const group: GroupRecord = {
    id,
    name: input.name ?? input.path,
    path: input.path,
    full_path: parent ? `${parent.full_path}/${input.path}` : input.path,
    parent_id: parent?.id ?? null,
    description: input.description ?? '',
    visibility: input.visibility ?? 'private',
    created_at: now,
    updated_at: now,
  };
  addExtraFields(group, input);
  tset(st.groups, id, group);
  iset(st.idx.namespaces, group.full_path.toLowerCase(), id);
  madd(st.idx.subgroups, group.parent_id === null ? 'root' : String(group.parent_id), id);
  return id;
}

/**
 * Copies the input's other fields after the computed ones, which win. Not `{ ...input, id, ... }`: a
 * literal that redefines keys its spread brought gives each record a hidden class of its own in V8,
 * which made creation ~10x slower and every later field access megamorphic.
 */
function addExtraFields(record: Record<string, unknown>, input: Record<string, unknown>): void {
  for (const k in input) if (!(k in record)) record[k] = input[k];
}

export interface NewProject {
  path: string;
  name?: string;
  namespace: { kind: 'group'; id: number } | { kind: 'user'; userId: number };
  creator_id: number;
  description?: string;
  visibility?: Visibility;
  archived?: boolean;
  default_branch?: string | null;
  [field: string]: unknown;
}

export function createProject(st: S, input: NewProject, now: string): number {
  const id = nextId(st, 'projects');
  const { namespace, ...rest } = input;
  let nsPath: string;
  let namespaceId: number;
  let ownerId: number | null = null;
  if (namespace.kind === 'group') {
    const g = tget(st.groups, namespace.id);
    if (!g) throw new Error(`no group ${namespace.id}`);
    nsPath = g.full_path;
    namespaceId = g.id;
  } else {
    const u = tget(st.users, namespace.userId);
    if (!u) throw new Error(`no user ${namespace.userId}`);
    nsPath = u.username;
    namespaceId = u.namespace_id;
    ownerId = u.id;
  }
  const project: ProjectRecord = {
    id,
    name: input.name ?? input.path,
    path: input.path,
    namespace_kind: namespace.kind,
    namespace_id: namespaceId,
    owner_id: ownerId,
    path_with_namespace: `${nsPath}/${input.path}`,
    description: input.description ?? '',
    visibility: input.visibility ?? 'private',
    archived: input.archived ?? false,
    default_branch: input.default_branch === undefined ? 'master' : input.default_branch,
    creator_id: input.creator_id,
    created_at: now,
    updated_at: now,
    last_activity_at: now,
  };
  addExtraFields(project, rest);
  tset(st.projects, id, project);
  iset(st.idx.projects, project.path_with_namespace.toLowerCase(), id);
  madd(st.idx.projectsByNamespace, namespaceKey(project), id);
  return id;
}

/** The key of a project's namespace in `idx.projectsByNamespace`. */
export const namespaceKey = (p: Pick<ProjectRecord, 'namespace_kind' | 'namespace_id' | 'owner_id'>) =>
  p.namespace_kind === 'group' ? `group:${p.namespace_id}` : `user:${p.owner_id}`;

/** Adds or updates a membership; returns the member id. */
export function setMember(
  st: S,
  source: MemberSource,
  sourceId: number,
  userId: number,
  accessLevel: number,
  now: string,
  expiresAt: string | null = null,
): number {
  const key = memberKey(source, sourceId, userId);
  const existing = iget(st.idx.members, key);
  if (existing !== undefined) {
    const m = tget(st.members, existing)!;
    m.access_level = accessLevel;
    m.expires_at = expiresAt;
    return existing;
  }
  const id = nextId(st, 'members');
  tset(st.members, id, {
    id,
    source,
    source_id: sourceId,
    user_id: userId,
    access_level: accessLevel,
    expires_at: expiresAt,
    created_at: now,
  });
  iset(st.idx.members, key, id);
  madd(st.idx.membersBySource, `${source}:${sourceId}`, id);
  madd(st.idx.membersByUser, String(userId), id);
  return id;
}

export function removeMember(st: S, memberId: number): void {
  const m = tget(st.members, memberId);
  if (!m) return;
  idelete(st.idx.members, memberKey(m.source, m.source_id, m.user_id));
  mremove(st.idx.membersBySource, `${m.source}:${m.source_id}`, memberId);
  mremove(st.idx.membersByUser, String(m.user_id), memberId);
  tdelete(st.members, memberId);
}

export function addStar(st: S, projectId: number, userId: number, now: string): number {
  const key = `${projectId}:${userId}`;
  const existing = iget(st.idx.stars, key);
  if (existing !== undefined) return existing;
  const id = nextId(st, 'stars');
  tset(st.stars, id, { id, project_id: projectId, user_id: userId, created_at: now });
  iset(st.idx.stars, key, id);
  madd(st.idx.starsBy, String(projectId), id);
  madd(st.idx.starsBy, `u${userId}`, id);
  return id;
}

export function removeStar(st: S, starId: number): void {
  const s = tget(st.stars, starId);
  if (!s) return;
  idelete(st.idx.stars, `${s.project_id}:${s.user_id}`);
  mremove(st.idx.starsBy, String(s.project_id), starId);
  mremove(st.idx.starsBy, `u${s.user_id}`, starId);
  tdelete(st.stars, starId);
}

export function addShare(
  st: S,
  projectId: number,
  groupId: number,
  groupAccess: number,
  now: string,
  expiresAt: string | null = null,
): number {
  const id = nextId(st, 'shares');
  tset(st.shares, id, {
    id,
    project_id: projectId,
    group_id: groupId,
    group_access: groupAccess,
    expires_at: expiresAt,
    created_at: now,
  });
  iset(st.idx.shares, `${projectId}:${groupId}`, id);
  madd(st.idx.sharesBy, String(projectId), id);
  madd(st.idx.sharesBy, `g${groupId}`, id);
  return id;
}

export function removeShare(st: S, shareId: number): void {
  const sh = tget(st.shares, shareId);
  if (!sh) return;
  idelete(st.idx.shares, `${sh.project_id}:${sh.group_id}`);
  mremove(st.idx.sharesBy, String(sh.project_id), shareId);
  mremove(st.idx.sharesBy, `g${sh.group_id}`, shareId);
  tdelete(st.shares, shareId);
}

/**
 * Deletes a project and everything that belongs to it. Areas that add project-owned records extend
 * this function, so that every delete path (API, group and user deletion) cascades the same way.
 */
export function deleteProject(st: S, projectId: number): void {
  const p = tget(st.projects, projectId);
  if (!p) return;
  for (const id of mget(st.idx.membersBySource, `project:${projectId}`)) removeMember(st, id);
  for (const id of mget(st.idx.starsBy, String(projectId))) removeStar(st, id);
  for (const id of mget(st.idx.sharesBy, String(projectId))) removeShare(st, id);
  idelete(st.idx.projects, p.path_with_namespace.toLowerCase());
  mremove(st.idx.projectsByNamespace, namespaceKey(p), projectId);
  tdelete(st.projects, projectId);
}

/** Deletes a group with its subgroups, projects, memberships and the shares made to it. */
export function deleteGroup(st: S, groupId: number): void {
  const g = tget(st.groups, groupId);
  if (!g) return;
  for (const sub of mget(st.idx.subgroups, String(groupId))) deleteGroup(st, sub);
  for (const pid of mget(st.idx.projectsByNamespace, `group:${groupId}`)) deleteProject(st, pid);
  for (const id of mget(st.idx.membersBySource, `group:${groupId}`)) removeMember(st, id);
  for (const id of mget(st.idx.sharesBy, `g${groupId}`)) removeShare(st, id);
  idelete(st.idx.namespaces, g.full_path.toLowerCase());
  mremove(st.idx.subgroups, g.parent_id === null ? 'root' : String(g.parent_id), groupId);
  tdelete(st.groups, groupId);
}
