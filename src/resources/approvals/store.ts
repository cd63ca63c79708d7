/**
 * Merge request approvals (paid tiers): a project's approval settings. A project without a record has the
 * platform's column defaults; `approvals_before_merge` stays on the project record, which the project
 * entity already shows.
 */
import { emptyIndex, emptyTable, type MultiIndex, type Table } from '../../core/table.js';

export interface ApprovalSettingsRecord {
  project_id: number;
  reset_approvals_on_push: boolean;
  disable_overriding_approvers_per_merge_request: boolean;
  /** `true` lets authors approve their own merge requests. */
  merge_requests_author_approval: boolean;
  merge_requests_disable_committers_approval: boolean;
  require_password_to_approve: boolean;
}

export type ApprovalFlags = Omit<ApprovalSettingsRecord, 'project_id'>;

/** The project columns' defaults (`reset_approvals_on_push` defaults to true). */
export const DEFAULT_FLAGS: Readonly<ApprovalFlags> = Object.freeze({
  reset_approvals_on_push: true,
  disable_overriding_approvers_per_merge_request: false,
  merge_requests_author_approval: false,
  merge_requests_disable_committers_approval: false,
  require_password_to_approve: false,
});

export const FLAG_NAMES = Object.keys(DEFAULT_FLAGS) as (keyof ApprovalFlags)[];

/** `ApprovalProjectRule`: who must approve a project's merge requests, and how many of them. */
export interface ProjectRuleRecord {
  id: number;
  project_id: number;
  name: string;
  rule_type: 'regular' | 'any_approver';
  approvals_required: number;
  user_ids: number[];
  group_ids: number[];
  protected_branch_ids: number[];
  created_at: string;
  updated_at: string;
}

/** One user's approval of a merge request (`Approval`). */
export interface ApprovalRecord {
  id: number;
  merge_request_id: number;
  user_id: number;
  created_at: string;
}

/**
 * `ApprovalRules::ExternalApprovalRule` (13.10, ultimate, behind `ff_compliance_approval_gates`): an
 * outside service's approval, asked at `external_url`. Its protected branches are any project's: the
 * association's ids are found without a project scope.
 */
export interface ExternalRuleRecord {
  id: number;
  project_id: number;
  name: string;
  external_url: string;
  protected_branch_ids: number[];
  created_at: string;
  updated_at: string;
}

export interface ApprovalsState {
  /** project id -> settings, only for projects whose settings differ from the defaults */
  settings: Table<ApprovalSettingsRecord>;
  rules: Table<ProjectRuleRecord>;
  approvals: Table<ApprovalRecord>;
  external: Table<ExternalRuleRecord>;
  idx: {
    /** merge request id -> approval ids */
    approvalsByMr: MultiIndex;
    /** project id -> rule ids */
    rulesByProject: MultiIndex;
    /** project id -> external rule ids */
    externalByProject: MultiIndex;
  };
}

export const emptyApprovals = (): ApprovalsState => ({
  settings: emptyTable(),
  rules: emptyTable(),
  approvals: emptyTable(),
  external: emptyTable(),
  idx: { rulesByProject: emptyIndex(), approvalsByMr: emptyIndex(), externalByProject: emptyIndex() },
});

declare module '../../core/state.js' {
  interface AreaStates {
    approvals: ApprovalsState;
  }
}
