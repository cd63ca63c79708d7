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
import { iget, iset, tget, tset } from '../../core/table.js';

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
  return id;
}

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
  return id;
}
