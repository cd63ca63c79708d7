/** Badge writes, validations and the placeholder rendering of `Badge#rendered_link_url`. */
import type { Draft } from 'immer';
import { nextId, type GroupRecord, type PlatformState, type ProjectRecord } from '../../core/state.js';
import { madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import { findRef } from '../ci/refs.js';
import { urlProblem } from '../environments/model.js';
import type { BadgeRecord } from './store.js';

type S = Draft<PlatformState>;

export const sourceKey = (kind: BadgeRecord['kind'], id: number) => `${kind === 'project' ? 'p' : 'g'}${id}`;

/** Oldest first, as the model's default scope orders them. */
const byCreated = (a: BadgeRecord, b: BadgeRecord) =>
  a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id - b.id;

function badgesOf(st: PlatformState, kind: BadgeRecord['kind'], id: number): BadgeRecord[] {
  return mget(st.badges.idx.bySource, sourceKey(kind, id)).map((b) => tget(st.badges.records, b)!);
}

/**
 * `Project#badges`: the project's own and those of its group and the group's ancestors; a group's are
 * its own.
 */
export function sourceBadges(st: PlatformState, kind: BadgeRecord['kind'], id: number): BadgeRecord[] {
  const out = badgesOf(st, kind, id);
  if (kind === 'project') {
    const p = tget(st.projects, id);
    if (p?.namespace_kind === 'group')
      for (
        let g: GroupRecord | undefined = tget(st.groups, p.namespace_id);
        g;
        g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id)
      )
        out.push(...badgesOf(st, 'group', g.id));
  }
  return out.sort(byCreated);
}

export interface BadgeFields {
  link_url: string;
  image_url: string;
  name: string | null;
}

/** The model's URL validations, in its order: the errors hash, empty when valid. */
export function badgeErrors(b: BadgeFields): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const field of ['link_url', 'image_url'] as const) {
    const problem = urlProblem(b[field].trim());
    if (problem) errors[field] = [problem];
  }
  return errors;
}

export function createBadge(
  st: S,
  kind: BadgeRecord['kind'],
  sourceId: number,
  f: BadgeFields,
  now: string,
): number {
  const id = nextId(st, 'badges');
  tset(st.badges.records, id, { id, kind, source_id: sourceId, ...f, created_at: now, updated_at: now });
  madd(st.badges.idx.bySource, sourceKey(kind, sourceId), id);
  return id;
}

export function updateBadge(st: S, id: number, f: Partial<BadgeFields>, now: string): void {
  const b = tget(st.badges.records, id)!;
  Object.assign(b, f);
  b.updated_at = now;
}

export function deleteBadge(st: S, id: number): void {
  const b = tget(st.badges.records, id);
  if (!b) return;
  mremove(st.badges.idx.bySource, sourceKey(b.kind, b.source_id), id);
  tdelete(st.badges.records, id);
}

/** Removes every badge of a project or group that is being deleted. */
export function deleteSourceBadges(st: S, kind: BadgeRecord['kind'], sourceId: number): void {
  for (const id of mget(st.badges.idx.bySource, sourceKey(kind, sourceId))) deleteBadge(st, id);
}

/**
 * `%{project_path}`, `%{project_id}`, `%{default_branch}` and `%{commit_sha}` filled in for a project
 * (a placeholder with no value becomes empty); without a project, or for an invalid badge, the URL as
 * it is.
 */
export function renderUrl(
  st: PlatformState,
  url: string,
  project: ProjectRecord | null,
  valid = true,
): string {
  if (!project || !valid || url === '') return url;
  return url.replace(/%\{(project_path|project_id|default_branch|commit_sha)\}/g, (_m, name: string) => {
    if (name === 'project_path') return project.path_with_namespace;
    if (name === 'project_id') return String(project.id);
    const branch = project.default_branch;
    if (name === 'default_branch') return branch ?? '';
    return branch === null ? '' : (findRef(st, project, 'branch', branch) ?? '');
  });
}
