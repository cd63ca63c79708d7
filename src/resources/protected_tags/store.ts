/**
 * Protected tags (`ProtectedTag`, `lib/api/protected_tags.rb`): a tag name or wildcard of a project and
 * the one access level that may create tags it matches (`ProtectedTag::CreateAccessLevel`).
 */
import { emptyIndex, emptyTable, type MultiIndex, type Table } from '../../core/table.js';

export interface ProtectedTagRecord {
  id: number;
  project_id: number;
  /** A tag name or a wildcard (`v*`). */
  name: string;
  /** `Gitlab::Access`: 0 (no one), 30 (developers and maintainers) or 40 (maintainers). */
  create_access_level: number;
  created_at: string;
}

export interface ProtectedTagsState {
  records: Table<ProtectedTagRecord>;
  idx: {
    /** project id -> protected tag ids, in creation order */
    byProject: MultiIndex;
  };
}

export const emptyProtectedTags = (): ProtectedTagsState => ({
  records: emptyTable(),
  idx: { byProject: emptyIndex() },
});

declare module '../../core/state.js' {
  interface AreaStates {
    protected_tags: ProtectedTagsState;
  }
}
