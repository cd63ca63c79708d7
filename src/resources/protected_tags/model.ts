/** The protected tags' reads and writes (`ProtectedTag`, `ProtectedTags::CreateService`). */
import type { Draft } from 'immer';
import { nextId, type PlatformState } from '../../core/state.js';
import { idelete, madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import { refMatches } from '../repository/access.js';
import type { ProtectedTagRecord } from './store.js';

/** A project's protected tags, in creation order (`project.protected_tags`). */
export function protectedTagsOf(st: PlatformState, projectId: number): ProtectedTagRecord[] {
  return mget(st.protected_tags.idx.byProject, String(projectId)).map((id) =>
    tget(st.protected_tags.records, id)!,
  );
}

/** `find_by!(name:)`: the rule of exactly this name (a wildcard is found by its own text). */
export function protectedTagByName(
  st: PlatformState,
  projectId: number,
  name: string,
): ProtectedTagRecord | undefined {
  return protectedTagsOf(st, projectId).find((r) => r.name === name);
}

/** `ProtectedTag.matching`: the rules whose name or wildcard matches the tag. */
export function tagProtections(st: PlatformState, projectId: number, tag: string): ProtectedTagRecord[] {
  if (tag === '') return [];
  return protectedTagsOf(st, projectId).filter((r) => refMatches(r.name, tag));
}

export function createProtectedTag(
  d: Draft<PlatformState>,
  projectId: number,
  name: string,
  createAccessLevel: number,
  now: string,
): ProtectedTagRecord {
  const id = nextId(d, 'protected_tags');
  const rec: ProtectedTagRecord = {
    id,
    project_id: projectId,
    name,
    create_access_level: createAccessLevel,
    created_at: now,
  };
  tset(d.protected_tags.records, id, rec);
  madd(d.protected_tags.idx.byProject, String(projectId), id);
  return rec;
}

export function deleteProtectedTag(d: Draft<PlatformState>, rec: ProtectedTagRecord): void {
  tdelete(d.protected_tags.records, rec.id);
  mremove(d.protected_tags.idx.byProject, String(rec.project_id), rec.id);
}

/** The project's rules go with it. */
export function deleteProjectProtectedTags(d: Draft<PlatformState>, projectId: number): void {
  for (const id of mget(d.protected_tags.idx.byProject, String(projectId)))
    tdelete(d.protected_tags.records, id);
  idelete(d.protected_tags.idx.byProject, String(projectId));
}
