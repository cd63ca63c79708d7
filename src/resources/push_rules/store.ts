/** A project's push rule (`PushRule`, paid tiers): at most one per project, keyed by the project id. */
import { emptyTable, type Table } from '../../core/table.js';

export interface PushRuleFields {
  deny_delete_tag: boolean;
  member_check: boolean;
  prevent_secrets: boolean;
  commit_message_regex: string | null;
  commit_message_negative_regex: string | null;
  branch_name_regex: string | null;
  author_email_regex: string | null;
  file_name_regex: string | null;
  /** In megabytes; 0 means no limit. */
  max_file_size: number;
  commit_committer_check: boolean;
  reject_unsigned_commits: boolean;
}

export interface PushRuleRecord extends PushRuleFields {
  id: number;
  project_id: number;
  created_at: string;
}

export interface PushRulesState {
  /** project id -> its push rule */
  byProject: Table<PushRuleRecord>;
}

export const emptyPushRules = (): PushRulesState => ({ byProject: emptyTable() });

declare module '../../core/state.js' {
  interface AreaStates {
    push_rules: PushRulesState;
  }
}
