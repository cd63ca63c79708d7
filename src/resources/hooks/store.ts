/**
 * Webhooks (`WebHook` and its kinds): project hooks, group hooks (paid tiers) and system hooks. One
 * table for the three, as the platform keeps them in one `web_hooks` table with a `type` column.
 */
import { emptyIndex, emptyTable, type MultiIndex, type Table } from '../../core/table.js';

export type HookKind = 'project' | 'group' | 'system';

/** The event flags of the `web_hooks` columns. */
export type HookFlag =
  | 'push_events'
  | 'tag_push_events'
  | 'merge_requests_events'
  | 'repository_update_events'
  | 'issues_events'
  | 'confidential_issues_events'
  | 'note_events'
  | 'confidential_note_events'
  | 'pipeline_events'
  | 'wiki_page_events'
  | 'deployment_events'
  | 'job_events'
  | 'releases_events'
  /** Group hooks only (EE, 13.7 and 13.9): membership changes and subgroups of the group or below. */
  | 'member_events'
  | 'subgroup_events';

export interface HookRecord extends Record<HookFlag, boolean | null> {
  id: number;
  kind: HookKind;
  project_id: number | null;
  group_id: number | null;
  url: string;
  /** Sent as `X-Gitlab-Token`, never shown by the API. */
  token: string | null;
  push_events_branch_filter: string | null;
  enable_ssl_verification: boolean;
  created_at: string;
  updated_at: string;
}

export interface HooksState {
  records: Table<HookRecord>;
  /** Hooks on the instance: 0 makes event emission free. */
  count: number;
  idx: {
    /** `p<project>`, `g<group>` -> hook ids; `system` -> the system hooks */
    byOwner: MultiIndex;
  };
}

export const emptyHooks = (): HooksState => ({
  records: emptyTable(),
  count: 0,
  idx: { byOwner: emptyIndex() },
});

declare module '../../core/state.js' {
  interface AreaStates {
    hooks: HooksState;
  }
}
