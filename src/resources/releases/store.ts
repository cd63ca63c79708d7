/** A project's releases (`Release`), one per tag, with their asset links (`Releases::Link`). */
import {
  emptyIndex,
  emptyTable,
  iget,
  tget,
  type Index,
  type MultiIndex,
  type Table,
} from '../../core/table.js';
import type { PlatformState } from '../../core/state.js';

export const LINK_TYPES = ['other', 'runbook', 'image', 'package'] as const;
export type LinkType = (typeof LINK_TYPES)[number];

export interface ReleaseLinkRecord {
  id: number;
  name: string;
  url: string;
  filepath: string | null;
  link_type: LinkType;
  created_at: string;
  updated_at: string;
}

export interface ReleaseRecord {
  id: number;
  project_id: number;
  tag: string;
  name: string | null;
  description: string;
  /** The commit the tag named when the release was made. */
  sha: string;
  author_id: number | null;
  released_at: string;
  created_at: string;
  updated_at: string;
  milestone_ids: number[];
  links: ReleaseLinkRecord[];
}

export interface ReleasesState {
  records: Table<ReleaseRecord>;
  idx: {
    /** `<project id>:<tag>` -> release id */
    byTag: Index;
    /** project id -> release ids */
    byProject: MultiIndex;
  };
}

export const emptyReleases = (): ReleasesState => ({
  records: emptyTable(),
  idx: { byTag: emptyIndex(), byProject: emptyIndex() },
});

export const tagKey = (projectId: number, tag: string) => `${projectId}:${tag}`;

/** The release of a project's tag, if any (the tags API shows it as the tag's `release`). */
export function releaseOfTag(st: PlatformState, projectId: number, tag: string): ReleaseRecord | undefined {
  const id = iget(st.releases.idx.byTag, tagKey(projectId, tag));
  return id === undefined ? undefined : tget(st.releases.records, id);
}

declare module '../../core/state.js' {
  interface AreaStates {
    releases: ReleasesState;
  }
}
