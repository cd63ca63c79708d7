/** The job token scope's records: the switch, the links, and their removal with a project or group. */
import type { Draft } from 'immer';
import { nextId, type PlatformState } from '../../core/state.js';
import { idelete, madd, mcount, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import type { GroupScopeLinkRecord, ProjectScopeLinkRecord } from './store.js';

type S = Draft<PlatformState>;

/**
 * `Ci::JobToken::ProjectScopeLink::PROJECT_LINK_DIRECTIONAL_LIMIT` and
 * `Ci::JobToken::GroupScopeLink::GROUP_LINK_LIMIT`: a project's allowlist holds at most 200 of each.
 */
export const LINK_LIMIT = 200;

/**
 * `ci_inbound_job_token_scope_enabled`: the project's switch, the column's default (`true`, new
 * projects limit access to themselves) until it is set.
 */
export function inboundEnabled(st: PlatformState, projectId: number): boolean {
  return tget(st.jobTokenScope.inbound, projectId)?.inbound_enabled ?? true;
}

export function setInboundEnabled(d: S, projectId: number, enabled: boolean): void {
  tset(d.jobTokenScope.inbound, projectId, { inbound_enabled: enabled });
}

export const projectLinksOf = (st: PlatformState, source: number): ProjectScopeLinkRecord[] =>
  mget(st.jobTokenScope.idx.projectsBySource, String(source)).map((id) =>
    tget(st.jobTokenScope.projectLinks, id)!,
  );

export const groupLinksOf = (st: PlatformState, source: number): GroupScopeLinkRecord[] =>
  mget(st.jobTokenScope.idx.groupsBySource, String(source)).map((id) =>
    tget(st.jobTokenScope.groupLinks, id)!,
  );

export const projectLinkCount = (st: PlatformState, source: number): number =>
  mcount(st.jobTokenScope.idx.projectsBySource, String(source));

export const groupLinkCount = (st: PlatformState, source: number): number =>
  mcount(st.jobTokenScope.idx.groupsBySource, String(source));

export function addProjectLink(
  d: S,
  source: number,
  target: number,
  userId: number | null,
  now: string,
): ProjectScopeLinkRecord {
  const id = nextId(d, 'ci_job_token_project_scope_links');
  const rec: ProjectScopeLinkRecord = {
    id,
    source_project_id: source,
    target_project_id: target,
    added_by_id: userId,
    created_at: now,
  };
  tset(d.jobTokenScope.projectLinks, id, rec);
  madd(d.jobTokenScope.idx.projectsBySource, String(source), id);
  madd(d.jobTokenScope.idx.projectsByTarget, String(target), id);
  return rec;
}

export function addGroupLink(
  d: S,
  source: number,
  target: number,
  userId: number | null,
  now: string,
): GroupScopeLinkRecord {
  const id = nextId(d, 'ci_job_token_group_scope_links');
  const rec: GroupScopeLinkRecord = {
    id,
    source_project_id: source,
    target_group_id: target,
    added_by_id: userId,
    created_at: now,
  };
  tset(d.jobTokenScope.groupLinks, id, rec);
  madd(d.jobTokenScope.idx.groupsBySource, String(source), id);
  madd(d.jobTokenScope.idx.groupsByTarget, String(target), id);
  return rec;
}

export function removeProjectLink(d: S, rec: ProjectScopeLinkRecord): void {
  tdelete(d.jobTokenScope.projectLinks, rec.id);
  mremove(d.jobTokenScope.idx.projectsBySource, String(rec.source_project_id), rec.id);
  mremove(d.jobTokenScope.idx.projectsByTarget, String(rec.target_project_id), rec.id);
}

export function removeGroupLink(d: S, rec: GroupScopeLinkRecord): void {
  tdelete(d.jobTokenScope.groupLinks, rec.id);
  mremove(d.jobTokenScope.idx.groupsBySource, String(rec.source_project_id), rec.id);
  mremove(d.jobTokenScope.idx.groupsByTarget, String(rec.target_group_id), rec.id);
}

/** A deleted project's switch and links go, both those it holds and those naming it (foreign keys, on delete cascade). */
export function deleteProjectScope(d: S, projectId: number): void {
  const s = d.jobTokenScope;
  if (tget(s.inbound, projectId)) tdelete(s.inbound, projectId);
  const key = String(projectId);
  for (const id of [...mget(s.idx.projectsBySource, key), ...mget(s.idx.projectsByTarget, key)]) {
    const rec = tget(s.projectLinks, id);
    if (rec) removeProjectLink(d, rec);
  }
  for (const id of mget(s.idx.groupsBySource, key)) {
    const rec = tget(s.groupLinks, id);
    if (rec) removeGroupLink(d, rec);
  }
  idelete(s.idx.projectsBySource, key);
  idelete(s.idx.projectsByTarget, key);
  idelete(s.idx.groupsBySource, key);
}

/** A deleted group leaves the allowlists that named it. */
export function deleteGroupScope(d: S, groupId: number): void {
  const s = d.jobTokenScope;
  const key = String(groupId);
  for (const id of mget(s.idx.groupsByTarget, key)) {
    const rec = tget(s.groupLinks, id);
    if (rec) removeGroupLink(d, rec);
  }
  idelete(s.idx.groupsByTarget, key);
}
