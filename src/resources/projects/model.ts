/** Writes on groups, projects and memberships, shared by the API, scenario loading and generators. */
import type { Draft } from 'immer';
import { memberKey } from '../../core/access.js';
import {
  nextId,
  type GroupLinkRecord,
  type GroupRecord,
  type MemberRecord,
  type MemberSource,
  type PlatformState,
  type ProjectRecord,
  type ShareRecord,
  type StarRecord,
  type Visibility,
} from '../../core/state.js';
import { indexProjectName, unindexProjectName } from '../../core/project-names.js';
import { idelete, iget, iset, madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import type { Index, MultiIndex } from '../../core/table.js';
import { newGroupRecord } from '../groups/model.js';
import type { ExpirationPolicy, Project, ProjectExtra } from './record.js';
import { setProjectTopics } from '../topics/model.js';
import { cascadeGroup, cascadeProject } from '../../core/cascade.js';

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
  const group: GroupRecord = newGroupRecord(st, id, input, parent, now);
  tset(st.groups, id, group);
  iset(st.idx.namespaces, group.full_path.toLowerCase(), id);
  madd(st.idx.subgroups, group.parent_id === null ? 'root' : String(group.parent_id), id);
  return id;
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

export type { ExpirationPolicy, FeatureAccess, Project, ProjectExtra } from './record.js';

/** Shared by every record until one is changed (records are frozen; writes replace, never mutate, these). */
const DEFAULT_POLICY: Readonly<ExpirationPolicy> = Object.freeze({
  cadence: '1d',
  enabled: false,
  keep_n: 10,
  older_than: '90d',
  name_regex: '.*',
  name_regex_keep: null,
  next_run_at: null,
});
const NO_TAGS: readonly string[] = Object.freeze([]);
const NO_ATTRIBUTES: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The defaults of a new project's settings, as the platform sets them. createProject spells them out in
 * its literal (one shape for every record); entity rendering compares against them to reuse the JSON
 * of default-valued fields.
 */
export const PROJECT_DEFAULTS = Object.freeze({
  issues_access_level: 'enabled',
  repository_access_level: 'enabled',
  merge_requests_access_level: 'enabled',
  forking_access_level: 'enabled',
  wiki_access_level: 'enabled',
  builds_access_level: 'enabled',
  snippets_access_level: 'enabled',
  pages_access_level: 'enabled',
  operations_access_level: 'enabled',
  analytics_access_level: 'enabled',
  packages_enabled: true,
  resolve_outdated_diff_discussions: false,
  container_registry_enabled: true,
  service_desk_enabled: false,
  emails_disabled: null,
  shared_runners_enabled: true,
  lfs_enabled: true,
  import_status: 'none',
  import_error: null,
  ci_default_git_depth: 50,
  public_jobs: true,
  build_git_strategy: 'fetch',
  build_timeout: 3600,
  auto_cancel_pending_pipelines: 'enabled',
  build_coverage_regex: null,
  ci_config_path: null,
  only_allow_merge_if_pipeline_succeeds: false,
  allow_merge_on_skipped_pipeline: null,
  request_access_enabled: true,
  only_allow_merge_if_all_discussions_are_resolved: false,
  remove_source_branch_after_merge: true,
  printing_merge_request_link_enabled: true,
  merge_method: 'merge',
  suggestion_commit_message: null,
  auto_devops_enabled: null,
  auto_devops_deploy_strategy: 'continuous',
  autoclose_referenced_issues: true,
  repository_storage: 'default',
  open_issues_count: 0,
  approvals_before_merge: 0,
  mirror: false,
  mirror_user_id: null,
  mirror_trigger_builds: false,
  only_mirror_protected_branches: null,
  mirror_overwrites_diverged_branches: null,
  external_authorization_classification_label: null,
  marked_for_deletion_on: null,
} satisfies Partial<ProjectExtra>);

const TOKEN_CHARS = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ123456789-_';
const TOKEN_CODES = Array.from(TOKEN_CHARS, (c) => c.charCodeAt(0));

/** A 20-character token (Devise's friendly_token shape) that depends only on the seed: cheap, no crypto. */
export function deterministicToken(seed: number, salt = 0x5bd1e995): string {
  let s = (Math.imul(seed, 0x9e3779b1) ^ salt) >>> 0;
  // Built from char codes: twenty `+=` make a rope of twenty nodes, which a world keeps one of per project.
  const codes = TOKEN_CODES.slice(0, 20);
  for (let i = 0; i < 20; i++) {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t ^= t + Math.imul(t ^ (t >>> 7), 61 | t);
    codes[i] = TOKEN_CODES[((t ^ (t >>> 14)) >>> 0) % TOKEN_CODES.length]!;
  }
  return String.fromCharCode(...codes);
}

export function createProject(st: S, input: NewProject, now: string): number {
  const id = nextId(st, 'projects');
  const namespace = input.namespace;
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
  // One literal with every field: all records share one hidden class. Not `{ ...input, id, ... }`: a
  // literal that redefines keys its spread brought gives each record a hidden class of its own in V8,
  // which made creation ~10x slower and every later field access megamorphic.
  const project: Project = {
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
    tag_list: NO_TAGS,
    forked_from_project_id: null,
    marked_for_deletion_on: null,
    avatar_url: null,
    issues_access_level: 'enabled',
    repository_access_level: 'enabled',
    merge_requests_access_level: 'enabled',
    forking_access_level: 'enabled',
    wiki_access_level: 'enabled',
    builds_access_level: 'enabled',
    snippets_access_level: 'enabled',
    pages_access_level: 'enabled',
    operations_access_level: 'enabled',
    analytics_access_level: 'enabled',
    packages_enabled: true,
    resolve_outdated_diff_discussions: false,
    container_registry_enabled: true,
    container_expiration_policy: DEFAULT_POLICY,
    service_desk_enabled: false,
    emails_disabled: null,
    shared_runners_enabled: true,
    lfs_enabled: true,
    import_status: 'none',
    import_error: null,
    import_url: null,
    runners_token: deterministicToken(id),
    ci_default_git_depth: 50,
    public_jobs: true,
    build_git_strategy: 'fetch',
    build_timeout: 3600,
    auto_cancel_pending_pipelines: 'enabled',
    build_coverage_regex: null,
    ci_config_path: null,
    only_allow_merge_if_pipeline_succeeds: false,
    allow_merge_on_skipped_pipeline: null,
    request_access_enabled: true,
    only_allow_merge_if_all_discussions_are_resolved: false,
    remove_source_branch_after_merge: true,
    printing_merge_request_link_enabled: true,
    merge_method: 'merge',
    suggestion_commit_message: null,
    auto_devops_enabled: null,
    auto_devops_deploy_strategy: 'continuous',
    autoclose_referenced_issues: true,
    repository_storage: 'default',
    star_count: 0,
    forks_count: 0,
    open_issues_count: 0,
    approvals_before_merge: 0,
    mirror: false,
    mirror_user_id: null,
    mirror_trigger_builds: false,
    only_mirror_protected_branches: null,
    mirror_overwrites_diverged_branches: null,
    external_authorization_classification_label: null,
    custom_attributes: NO_ATTRIBUTES,
  };
  // Given extras override the defaults, except the computed identity fields above.
  for (const k in input) {
    if (k === 'namespace' || COMPUTED.has(k)) continue;
    const v = input[k];
    if (v !== undefined) (project as Record<string, unknown>)[k] = v;
  }
  if (project.tag_list !== NO_TAGS) project.tag_list = sortedTags(project.tag_list);
  tset<ProjectRecord>(st.projects, id, project);
  if (project.tag_list.length > 0) setProjectTopics(st, id, NO_TAGS, project.tag_list, now);
  iset(st.idx.projects, project.path_with_namespace.toLowerCase(), id);
  madd(st.idx.projectsByNamespace, namespaceKey(project), id);
  indexProjectName(st.idx.projectNames, project);
  if (project.forked_from_project_id !== null) {
    const parent = tget(st.projects, project.forked_from_project_id) as Project | undefined;
    if (parent) parent.forks_count = (parent.forks_count ?? 0) + 1;
  }
  if (project.marked_for_deletion_on) madd(st.idx.projectsMarked, 'all', id);
  return id;
}

/** Fields createProject computes from the input, which the input's own copies may not replace. */
const COMPUTED = new Set([
  'id',
  'name',
  'path',
  'namespace_kind',
  'namespace_id',
  'owner_id',
  'path_with_namespace',
  'description',
  'visibility',
  'archived',
  'default_branch',
  'creator_id',
  'created_at',
  'star_count',
  'forks_count',
]);

/** Topic names as the platform keeps them: trimmed, unique, sorted by byte order. */
export function sortedTags(tags: readonly string[] | string): readonly string[] {
  const list = typeof tags === 'string' ? tags.split(',') : tags;
  return [...new Set(list.map((t) => t.trim()).filter((t) => t !== ''))].sort((a, b) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
}

/** The key of a project's namespace in `idx.projectsByNamespace`. */
export const namespaceKey = (p: Pick<ProjectRecord, 'namespace_kind' | 'namespace_id' | 'owner_id'>) =>
  p.namespace_kind === 'group' ? `group:${p.namespace_id}` : `user:${p.owner_id}`;

/**
 * Where a link record (membership, star, share) is indexed: its unique key and its one-to-many keys. One
 * function per kind names them, so that adding and removing cannot drift apart.
 */
interface LinkKeys {
  unique: [Index, string];
  many: [MultiIndex, string][];
}

function indexLink(k: LinkKeys, id: number): void {
  iset(k.unique[0], k.unique[1], id);
  for (let i = 0; i < k.many.length; i++) madd(k.many[i]![0], k.many[i]![1], id);
}

function unindexLink(k: LinkKeys, id: number): void {
  idelete(k.unique[0], k.unique[1]);
  for (const [ix, key] of k.many) mremove(ix, key, id);
}

const memberKeys = (st: S, m: Pick<MemberRecord, 'source' | 'source_id' | 'user_id'>): LinkKeys => ({
  unique: [st.idx.members, memberKey(m.source, m.source_id, m.user_id)],
  many: [
    [st.idx.membersBySource, `${m.source}:${m.source_id}`],
    [st.idx.membersByUser, String(m.user_id)],
  ],
});

const starKeys = (st: S, s: Pick<StarRecord, 'project_id' | 'user_id'>): LinkKeys => ({
  unique: [st.idx.stars, `${s.project_id}:${s.user_id}`],
  many: [
    [st.idx.starsBy, String(s.project_id)],
    [st.idx.starsBy, `u${s.user_id}`],
  ],
});

const shareKeys = (st: S, sh: Pick<ShareRecord, 'project_id' | 'group_id'>): LinkKeys => ({
  unique: [st.idx.shares, `${sh.project_id}:${sh.group_id}`],
  many: [
    [st.idx.sharesBy, String(sh.project_id)],
    [st.idx.sharesBy, `g${sh.group_id}`],
  ],
});

const groupLinkKeys = (
  st: S,
  l: Pick<GroupLinkRecord, 'shared_group_id' | 'shared_with_group_id'>,
): LinkKeys => ({
  unique: [st.idx.groupLinks, `${l.shared_group_id}:${l.shared_with_group_id}`],
  many: [
    [st.idx.groupLinksBy, `s${l.shared_group_id}`],
    [st.idx.groupLinksBy, `w${l.shared_with_group_id}`],
  ],
});

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
  const keys = memberKeys(st, { source, source_id: sourceId, user_id: userId });
  const existing = iget(keys.unique[0], keys.unique[1]);
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
  indexLink(keys, id);
  return id;
}

export function removeMember(st: S, memberId: number): void {
  const m = tget(st.members, memberId);
  if (!m) return;
  unindexLink(memberKeys(st, m), memberId);
  tdelete(st.members, memberId);
}

export function addStar(st: S, projectId: number, userId: number, now: string): number {
  const keys = starKeys(st, { project_id: projectId, user_id: userId });
  const existing = iget(...keys.unique);
  if (existing !== undefined) return existing;
  const id = nextId(st, 'stars');
  tset(st.stars, id, { id, project_id: projectId, user_id: userId, created_at: now });
  // The platform keeps star_count as a column; keeping it on the record also renews its cached JSON.
  const p = tget(st.projects, projectId) as Project | undefined;
  if (p) p.star_count = (p.star_count ?? 0) + 1;
  indexLink(keys, id);
  return id;
}

export function removeStar(st: S, starId: number): void {
  const s = tget(st.stars, starId);
  if (!s) return;
  const p = tget(st.projects, s.project_id) as Project | undefined;
  if (p && p.star_count > 0) p.star_count--;
  unindexLink(starKeys(st, s), starId);
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
  const rec = {
    id,
    project_id: projectId,
    group_id: groupId,
    group_access: groupAccess,
    expires_at: expiresAt,
    created_at: now,
  };
  tset(st.shares, id, rec);
  indexLink(shareKeys(st, rec), id);
  return id;
}

export function removeShare(st: S, shareId: number): void {
  const sh = tget(st.shares, shareId);
  if (!sh) return;
  unindexLink(shareKeys(st, sh), shareId);
  tdelete(st.shares, shareId);
}

/** `GroupGroupLink.create`: shares `sharedGroupId` with the members of `sharedWithGroupId`. */
export function addGroupLink(
  st: S,
  sharedGroupId: number,
  sharedWithGroupId: number,
  groupAccess: number,
  now: string,
  expiresAt: string | null = null,
): number {
  const id = nextId(st, 'groupLinks');
  const rec: GroupLinkRecord = {
    id,
    shared_group_id: sharedGroupId,
    shared_with_group_id: sharedWithGroupId,
    group_access: groupAccess,
    expires_at: expiresAt,
    created_at: now,
  };
  tset(st.groupLinks, id, rec);
  indexLink(groupLinkKeys(st, rec), id);
  return id;
}

export function removeGroupLink(st: S, linkId: number): void {
  const l = tget(st.groupLinks, linkId);
  if (!l) return;
  unindexLink(groupLinkKeys(st, l), linkId);
  tdelete(st.groupLinks, linkId);
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
  for (const id of mget(st.idx.uploadsBy, `p${projectId}`)) {
    const u = tget(st.uploads, id)!;
    idelete(st.idx.uploads, `${projectId}:${u.secret}/${u.filename}`);
    tdelete(st.uploads, id);
  }
  idelete(st.idx.uploadsBy, `p${projectId}`);
  cascadeProject(st, projectId);
  mremove(st.idx.projectsMarked, 'all', projectId);
  const parentId = (p as Project).forked_from_project_id;
  const parent = parentId ? (tget(st.projects, parentId) as Project | undefined) : undefined;
  if (parent && parent.forks_count > 0) parent.forks_count--;
  idelete(st.idx.projects, p.path_with_namespace.toLowerCase());
  mremove(st.idx.projectsByNamespace, namespaceKey(p), projectId);
  unindexProjectName(st.idx.projectNames, p);
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
  // The group's links either way: shared with others, and others shared with it.
  for (const id of mget(st.idx.groupLinksBy, `s${groupId}`)) removeGroupLink(st, id);
  for (const id of mget(st.idx.groupLinksBy, `w${groupId}`)) removeGroupLink(st, id);
  cascadeGroup(st, groupId);
  idelete(st.idx.namespaces, g.full_path.toLowerCase());
  mremove(st.idx.subgroups, g.parent_id === null ? 'root' : String(g.parent_id), groupId);
  tdelete(st.groups, groupId);
}
