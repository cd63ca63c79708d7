/**
 * A project's CI/CD job token scope (`Ci::JobToken::Scope`): its "Limit access to this project" switch
 * (`project_ci_cd_settings.inbound_job_token_scope_enabled`) and its inbound allowlist, the projects
 * (`Ci::JobToken::ProjectScopeLink`, direction `inbound`) and groups (`Ci::JobToken::GroupScopeLink`)
 * whose job tokens may reach it.
 */
import { emptyIndex, emptyTable, type MultiIndex, type Table } from '../../core/table.js';

export interface ProjectScopeLinkRecord {
  id: number;
  source_project_id: number;
  target_project_id: number;
  added_by_id: number | null;
  created_at: string;
}

export interface GroupScopeLinkRecord {
  id: number;
  source_project_id: number;
  target_group_id: number;
  added_by_id: number | null;
  created_at: string;
}

export interface JobTokenScopeState {
  /** project id -> its switch, for projects whose switch was ever set (others have the column default) */
  inbound: Table<{ inbound_enabled: boolean }>;
  projectLinks: Table<ProjectScopeLinkRecord>;
  groupLinks: Table<GroupScopeLinkRecord>;
  idx: {
    /** source project id -> its project links, oldest first */
    projectsBySource: MultiIndex;
    /** target project id -> the links that name it */
    projectsByTarget: MultiIndex;
    /** source project id -> its group links, oldest first */
    groupsBySource: MultiIndex;
    /** target group id -> the links that name it */
    groupsByTarget: MultiIndex;
  };
}

export const emptyJobTokenScope = (): JobTokenScopeState => ({
  inbound: emptyTable(),
  projectLinks: emptyTable(),
  groupLinks: emptyTable(),
  idx: {
    projectsBySource: emptyIndex(),
    projectsByTarget: emptyIndex(),
    groupsBySource: emptyIndex(),
    groupsByTarget: emptyIndex(),
  },
});

declare module '../../core/state.js' {
  interface AreaStates {
    jobTokenScope: JobTokenScopeState;
  }
}
