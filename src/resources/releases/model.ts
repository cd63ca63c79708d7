/** Release rules (`Release`, `Releases::Link` validations) and writes. */
import type { Draft } from 'immer';
import { nextId, type PlatformState } from '../../core/state.js';
import { idelete, iset, madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import { tagKey, type ReleaseLinkRecord, type ReleaseRecord } from './store.js';
import { addressableUrlProblem } from '../../core/url.js';

type S = Draft<PlatformState>;

/** `Releases::Link::FILEPATH_REGEX`: a path from `/`, appended to the release's `/downloads`. */
const FILEPATH = /^\/(?:[-.\w]+\/?)*[\da-zA-Z]+$/;

export interface LinkInput {
  name?: string;
  url?: string;
  filepath?: string | null;
  link_type?: string;
}

/**
 * A link's errors as Rails keys them (url, name, filepath; uniqueness within the release), `self` being
 * the link an update edits.
 */
export function linkErrors(
  l: Required<Pick<LinkInput, 'name' | 'url'>> & { filepath: string | null },
  siblings: readonly ReleaseLinkRecord[],
  self?: number,
): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (f: string, m: string) => (errors[f] ??= []).push(m);
  const others = siblings.filter((o) => o.id !== self);
  if (l.url.trim() === '') add('url', "can't be blank");
  else {
    const problem = addressableUrlProblem(l.url, ['http', 'https', 'ftp']);
    if (problem) add('url', problem);
  }
  if (others.some((o) => o.url === l.url)) add('url', 'has already been taken');
  if (l.name.trim() === '') add('name', "can't be blank");
  if (others.some((o) => o.name === l.name)) add('name', 'has already been taken');
  if (l.filepath) {
    if (others.some((o) => o.filepath === l.filepath)) add('filepath', 'has already been taken');
    if (!FILEPATH.test(l.filepath)) add('filepath', 'is invalid');
  }
  return errors;
}

/** Rails' full messages of nested link errors, as `save!` raises them (`Links url can't be blank`). */
export const nestedMessages = (errors: Record<string, string[]>) =>
  Object.entries(errors).flatMap(([field, msgs]) => msgs.map((m) => `Links ${field} ${m}`));

export function projectReleases(st: PlatformState, projectId: number): ReleaseRecord[] {
  return mget(st.releases.idx.byProject, `p${projectId}`).map((id) => tget(st.releases.records, id)!);
}

/** What a new release is made of: a record's own fields, its links without their ids and times. */
export type ReleaseInput = Omit<
  ReleaseRecord,
  'id' | 'project_id' | 'created_at' | 'updated_at' | 'links'
> & {
  links: Omit<ReleaseLinkRecord, 'id' | 'created_at' | 'updated_at'>[];
};

export function createRelease(st: S, projectId: number, r: ReleaseInput, now: string): number {
  const id = nextId(st, 'releases');
  const links = r.links.map((l) => ({
    id: nextId(st, 'release_links'),
    ...l,
    created_at: now,
    updated_at: now,
  }));
  const rec: ReleaseRecord = { id, project_id: projectId, ...r, links, created_at: now, updated_at: now };
  tset(st.releases.records, id, rec);
  iset(st.releases.idx.byTag, tagKey(projectId, r.tag), id);
  madd(st.releases.idx.byProject, `p${projectId}`, id);
  return id;
}

export function deleteRelease(st: S, id: number): void {
  const r = tget(st.releases.records, id)!;
  idelete(st.releases.idx.byTag, tagKey(r.project_id, r.tag));
  mremove(st.releases.idx.byProject, `p${r.project_id}`, id);
  tdelete(st.releases.records, id);
}

export function deleteProjectReleases(st: S, projectId: number): void {
  for (const id of mget(st.releases.idx.byProject, `p${projectId}`)) deleteRelease(st, id);
}

/** Milestones a release of the project may name: the project's own (and, on paid tiers, its group's). */
export function releaseMilestones(st: PlatformState, projectId: number, groupId: number | null) {
  const ids = mget(st.issuables.idx.owned, `p${projectId}`);
  if (groupId !== null) ids.push(...mget(st.issuables.idx.owned, `g${groupId}`));
  return ids.map((id) => tget(st.issuables.milestones, id)!);
}
