/** The types of project renderings: shapes, options, and what a kept rendering was made from. */
import { type PlatformState, type ProjectRecord, type UserRecord } from '../../core/state.js';
import type { Minor } from '../../core/versions.js';

export type ProjectShape = 'basic' | 'full' | 'withAccess';

/** A record with a place where the renderer may keep what it made of it (the list keys have one). */
export interface RenderSlot {
  readonly p: ProjectRecord;
  rendered?: unknown;
  view?: unknown;
}

/**
 * A rendering of a record with everything it was made from besides the record: the viewer and options
 * (`key`), the request's base URL, the tier and the tables it read. Records keep their last few; a list
 * key keeps its last one, so that a page checks one small object per entry instead of the record, its
 * cached JSON and its renderings (all cold in a large world).
 */
export interface View {
  key: string;
  base: string;
  paid: boolean;
  /** The release (its fields differ by release). */
  minor: Minor;
  viewer: UserRecord | null;
  projects: PlatformState['projects'];
  members: PlatformState['members'];
  shares: PlatformState['shares'];
  groupLinks: PlatformState['groupLinks'];
  groups: PlatformState['groups'];
  users: PlatformState['users'];
  settings: PlatformState['settings'];
  /** The refs table, when the rendering shows statistics (the repository's size). */
  refs: PlatformState['refs'] | undefined;
  json: Buffer<ArrayBuffer>;
}

export interface ProjectEntityOptions {
  shape?: ProjectShape;
  /** `statistics=true` (shown to reporters and up, and admins). */
  statistics?: boolean;
  /** `license=true`: `license_url` and `license` (both null: fauxlab models no repository content). */
  license?: boolean;
  /** `with_custom_attributes=true` from an admin. */
  customAttributes?: boolean;
  /** The endpoint's `user_can_admin_project` option (single-project endpoints only): import_error, runners_token, build_git_strategy. */
  canAdminProject?: boolean;
  /**
   * `permissions.group_access` from the direct membership on the project's own group, as lists preload
   * it; single-project endpoints look at the ancestors too (`highest_group_member`).
   */
  directGroupAccess?: boolean;
}
