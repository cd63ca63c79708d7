/**
 * The container registry's reads and writes: `ContainerRepository`, its abilities (ProjectPolicy's and
 * GroupPolicy's `*_container_image`), and the tag clean-up of
 * `Projects::ContainerRepository::CleanupTagsService`.
 */
import type { Draft } from 'immer';
import { ACCESS, groupAccess, projectAccess } from '../../core/access.js';
import {
  nextId,
  type GroupRecord,
  type PlatformState,
  type ProjectRecord,
  type UserRecord,
} from '../../core/state.js';
import { idelete, iget, iset, madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import { RegexpError, UntrustedRegexp } from '../../core/untrusted-regexp.js';
import { descendantIds } from '../groups/model.js';
import { parseChronic } from '../settings/duration.js';
import type { ContainerRepositoryRecord, ContainerTagRecord } from './store.js';

type S = Draft<PlatformState>;

export type ContainerAbility = 'read' | 'destroy' | 'admin';

/**
 * ProjectPolicy: `read_container_image` for reporters, and for whoever has the project's public access
 * (anyone on a public project, signed-in non-external users on an internal one);
 * `destroy_container_image` for developers; `admin_container_image` for maintainers; admins all.
 * `container_registry_disabled` prevents every one of them, admins' included.
 */
export function canContainer(
  st: PlatformState,
  user: UserRecord | null,
  project: ProjectRecord,
  ability: ContainerAbility,
): boolean {
  if (project.container_registry_enabled !== true) return false;
  if (user?.admin) return true;
  const level = projectAccess(st, user, project);
  if (ability === 'read')
    return (
      level >= ACCESS.REPORTER ||
      project.visibility === 'public' ||
      (project.visibility === 'internal' && user !== null && !user.external)
    );
  return level >= (ability === 'destroy' ? ACCESS.DEVELOPER : ACCESS.MAINTAINER);
}

/** GroupPolicy's `read_container_image`: reporters of the group (inherited too) and admins. */
export function canReadGroupImages(st: PlatformState, user: UserRecord | null, group: GroupRecord): boolean {
  if (user?.admin) return true;
  return groupAccess(st, user, group) >= ACCESS.REPORTER;
}

/** `project.container_repositories`, in id order. */
export function repositoriesOf(st: PlatformState, projectId: number): ContainerRepositoryRecord[] {
  return mget(st.container_registry.idx.byProject, String(projectId)).map((id) =>
    tget(st.container_registry.repositories, id)!,
  );
}

/**
 * `ContainerRepository.for_group_and_its_subgroups`: the repositories of the projects of the group and
 * its subgroups that have the registry on (`Project.with_container_registry`), in id order.
 */
export function groupRepositories(st: PlatformState, groupId: number): ContainerRepositoryRecord[] {
  const out: ContainerRepositoryRecord[] = [];
  for (const gid of [groupId, ...descendantIds(st, groupId)])
    for (const pid of mget(st.idx.projectsByNamespace, `group:${gid}`)) {
      const pr = tget(st.projects, pid);
      if (!pr || pr.namespace_kind !== 'group' || pr.container_registry_enabled !== true) continue;
      out.push(...repositoriesOf(st, pid));
    }
  return out.sort((a, b) => a.id - b.id);
}

/** `ContainerRepository#path`: the project's full path and the image name, lower-cased. */
export function repositoryPath(st: PlatformState, r: ContainerRepositoryRecord): string {
  const project = tget(st.projects, r.project_id);
  const full = project?.path_with_namespace ?? '';
  return (r.name === '' ? full : `${full}/${r.name}`).toLowerCase();
}

export interface NewRepository {
  name: string;
  created_at: string;
  expiration_policy_started_at: string | null;
  tags: ContainerTagRecord[];
}

export function createRepository(d: S, projectId: number, input: NewRepository): ContainerRepositoryRecord {
  const id = nextId(d, 'container_repositories');
  const rec: ContainerRepositoryRecord = {
    id,
    project_id: projectId,
    name: input.name,
    created_at: input.created_at,
    expiration_policy_started_at: input.expiration_policy_started_at,
    tags: [...input.tags].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
  };
  tset(d.container_registry.repositories, id, rec);
  madd(d.container_registry.idx.byProject, String(projectId), id);
  return rec;
}

/** `Projects::ContainerRepository::DestroyService`: the tags, then the record. */
export function deleteRepository(d: S, id: number): void {
  const r = tget(d.container_registry.repositories, id);
  if (!r) return;
  mremove(d.container_registry.idx.byProject, String(r.project_id), id);
  idelete(d.container_registry.idx.cleanupLeases, String(id));
  tdelete(d.container_registry.repositories, id);
}

/** The project's repositories go with it. */
export function deleteProjectRepositories(d: S, projectId: number): void {
  for (const id of [...mget(d.container_registry.idx.byProject, String(projectId))]) deleteRepository(d, id);
  idelete(d.container_registry.idx.byProject, String(projectId));
}

/** `DeleteTagsService` for the named tags (the registry's tag delete by name). */
export function deleteTags(d: S, repositoryId: number, names: ReadonlySet<string>): number {
  const r = tget(d.container_registry.repositories, repositoryId);
  if (!r) return 0;
  const before = r.tags.length;
  const kept = r.tags.filter((t) => !names.has(t.name));
  if (kept.length !== before) r.tags = kept;
  return before - kept.length;
}

/** `Gitlab::ExclusiveLease` `container_repository:cleanup_tags:<id>`, an hour. */
export const CLEANUP_LEASE_MS = 3_600_000;

/** Takes the repository's clean-up lease at `now`, or answers false when it is still held. */
export function obtainCleanupLease(d: S, repositoryId: number, now: number): boolean {
  const key = String(repositoryId);
  const last = iget(d.container_registry.idx.cleanupLeases, key);
  if (last !== undefined && now - last < CLEANUP_LEASE_MS) return false;
  idelete(d.container_registry.idx.cleanupLeases, key);
  iset(d.container_registry.idx.cleanupLeases, key, now);
  return true;
}

export interface CleanupParams {
  name_regex_delete?: string;
  name_regex?: string;
  name_regex_keep?: string;
  keep_n?: number;
  older_than?: string;
}

/**
 * `CleanupTagsService#execute`'s choice of tags: never `latest`; those whose name matches the delete
 * pattern and not the keep pattern, each written between `\A` and `\z` as the service does (no group:
 * `a|b` is `\Aa|b\z`), on RE2; past the `keep_n` newest;
 * older than `older_than` before `nowMs`. Undefined where the service fails (a pattern RE2 refuses, an
 * `older_than` ChronicDuration cannot read, a negative `keep_n`): nothing is deleted then.
 */
export function tagsToClean(
  tags: readonly ContainerTagRecord[],
  prm: CleanupParams,
  nowMs: number,
): string[] | undefined {
  let regexDelete: UntrustedRegexp;
  let regexKeep: UntrustedRegexp;
  try {
    regexDelete = new UntrustedRegexp(`\\A${prm.name_regex_delete ?? prm.name_regex ?? ''}\\z`);
    regexKeep = new UntrustedRegexp(`\\A${prm.name_regex_keep ?? ''}\\z`);
  } catch (e) {
    if (e instanceof RegexpError) return undefined;
    throw e;
  }
  let list = tags.filter((t) => t.name !== 'latest');
  list = list.filter((t) => regexDelete.test(t.name) && !regexKeep.test(t.name));
  if (prm.keep_n !== undefined) {
    if (prm.keep_n < 0) return undefined;
    // `order_by_date`: newest first, a tag without a date counts as now.
    const at = (t: ContainerTagRecord) => (t.created_at === null ? nowMs : Date.parse(t.created_at));
    list = [...list].sort((a, b) => at(b) - at(a)).slice(prm.keep_n);
  }
  if (prm.older_than !== undefined) {
    const seconds = parseChronic(prm.older_than);
    if (seconds === undefined) return undefined;
    const limit = nowMs - seconds * 1000;
    list = list.filter((t) => t.created_at !== null && Date.parse(t.created_at) < limit);
  }
  return list.map((t) => t.name);
}
