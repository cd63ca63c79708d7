/**
 * Badges (`ProjectBadge`, `GroupBadge`): a link and an image URL, either of which may hold placeholders
 * that a project fills in when the badge is shown for it.
 */
import { emptyIndex, emptyTable, type MultiIndex, type Table } from '../../core/table.js';

export interface BadgeRecord {
  id: number;
  kind: 'project' | 'group';
  /** The project's or group's id. */
  source_id: number;
  name: string | null;
  link_url: string;
  image_url: string;
  created_at: string;
  updated_at: string;
}

export interface BadgesState {
  records: Table<BadgeRecord>;
  idx: {
    /** `p<project id>` / `g<group id>` -> badge ids */
    bySource: MultiIndex;
  };
}

export const emptyBadges = (): BadgesState => ({ records: emptyTable(), idx: { bySource: emptyIndex() } });

declare module '../../core/state.js' {
  interface AreaStates {
    badges: BadgesState;
  }
}
