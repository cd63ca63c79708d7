/** Writes of project approval settings, as `Projects::UpdateService` saves the project's columns. */
import type { Draft } from 'immer';
import type { BranchMove } from '../../core/push.js';
import { nextId, type PlatformState } from '../../core/state.js';
import { madd, mget, mremove, tdelete, tget, tset, tvalues } from '../../core/table.js';
import type { Project } from '../projects/model.js';
import {
  DEFAULT_FLAGS,
  FLAG_NAMES,
  type ApprovalFlags,
  type ApprovalRecord,
  type ProjectRuleRecord,
} from './store.js';

type S = Draft<PlatformState>;

/** The project's approval flags (its record, else the defaults). */
export function approvalFlags(st: PlatformState, projectId: number): ApprovalFlags {
  const rec = tget(st.approvals.settings, projectId);
  if (!rec) return DEFAULT_FLAGS;
  const out = {} as ApprovalFlags;
  for (const k of FLAG_NAMES) out[k] = rec[k];
  return out;
}

export interface SettingsChange extends Partial<ApprovalFlags> {
  approvals_before_merge?: number;
}

/** Saves the given settings; the project's `updated_at` moves only when a value changed. */
export function updateApprovalSettings(st: S, projectId: number, ch: SettingsChange, now: string): void {
  const project = tget(st.projects, projectId) as Draft<Project>;
  const flags = { ...approvalFlags(st, projectId) };
  let changed = false;
  for (const k of FLAG_NAMES) {
    const v = ch[k];
    if (v !== undefined && v !== flags[k]) {
      flags[k] = v;
      changed = true;
    }
  }
  if (
    ch.approvals_before_merge !== undefined &&
    ch.approvals_before_merge !== project.approvals_before_merge
  ) {
    project.approvals_before_merge = ch.approvals_before_merge;
    changed = true;
  }
  if (!changed) return;
  project.updated_at = now;
  if (FLAG_NAMES.every((k) => flags[k] === DEFAULT_FLAGS[k])) tdelete(st.approvals.settings, projectId);
  else tset(st.approvals.settings, projectId, { project_id: projectId, ...flags });
}

export function deleteProjectApprovals(st: S, projectId: number): void {
  tdelete(st.approvals.settings, projectId);
  for (const id of mget(st.approvals.idx.rulesByProject, String(projectId))) deleteProjectRule(st, id);
  for (const id of mget(st.approvals.idx.externalByProject, String(projectId))) {
    mremove(st.approvals.idx.externalByProject, String(projectId), id);
    tdelete(st.approvals.external, id);
  }
  // Approvals of the project's merge requests, and of any merge request already gone.
  for (const a of tvalues(st.approvals.approvals)) {
    const mr = tget(st.issuables.mergeRequests, a.merge_request_id);
    if (!mr || mr.project_id === projectId) removeApproval(st, a.id);
  }
}

/** The project's rules in id order. */
export function projectRules(st: PlatformState, projectId: number): ProjectRuleRecord[] {
  return mget(st.approvals.idx.rulesByProject, String(projectId))
    .sort((a, b) => a - b)
    .map((id) => tget(st.approvals.rules, id)!);
}

export type RuleFields = Pick<
  ProjectRuleRecord,
  'name' | 'rule_type' | 'approvals_required' | 'user_ids' | 'group_ids' | 'protected_branch_ids'
>;

export function createProjectRule(st: S, projectId: number, f: RuleFields, now: string): number {
  const id = nextId(st, 'approval_project_rules');
  tset(st.approvals.rules, id, { id, project_id: projectId, ...f, created_at: now, updated_at: now });
  madd(st.approvals.idx.rulesByProject, String(projectId), id);
  return id;
}

export function updateProjectRule(st: S, id: number, ch: Partial<RuleFields>, now: string): void {
  const rec = tget(st.approvals.rules, id)!;
  Object.assign(rec, ch);
  rec.updated_at = now;
}

export function deleteProjectRule(st: S, id: number): void {
  const rec = tget(st.approvals.rules, id);
  if (!rec) return;
  mremove(st.approvals.idx.rulesByProject, String(rec.project_id), id);
  tdelete(st.approvals.rules, id);
}

/** A merge request's approvals in the order they were given. */
export function approvalsOf(st: PlatformState, mrId: number): ApprovalRecord[] {
  return mget(st.approvals.idx.approvalsByMr, String(mrId))
    .sort((a, b) => a - b)
    .map((id) => tget(st.approvals.approvals, id)!);
}

export function addApproval(st: S, mrId: number, userId: number, now: string): void {
  const id = nextId(st, 'approvals');
  tset(st.approvals.approvals, id, { id, merge_request_id: mrId, user_id: userId, created_at: now });
  madd(st.approvals.idx.approvalsByMr, String(mrId), id);
}

export function removeApproval(st: S, id: number): void {
  const rec = tget(st.approvals.approvals, id);
  if (!rec) return;
  mremove(st.approvals.idx.approvalsByMr, String(rec.merge_request_id), id);
  tdelete(st.approvals.approvals, id);
}

/**
 * `reset_approvals_on_push`: a push to an open merge request's source branch removes its approvals, when
 * the merge request's project asks for it (`MergeRequests::RefreshService#reset_approvals_for_merge_requests`).
 */
export function resetApprovalsOnPush(st: S, move: BranchMove): void {
  // CE's `RefreshService` keeps approvals; the reset is EE's.
  if (st.tier === 'free') return;
  if (move.after === undefined || move.before === undefined) return;
  for (const a of tvalues(st.approvals.approvals)) {
    const mr = tget(st.issuables.mergeRequests, a.merge_request_id);
    if (!mr || mr.state !== 'opened') continue;
    if (mr.source_project_id !== move.projectId || mr.source_branch !== move.branch) continue;
    if (approvalFlags(st, mr.project_id).reset_approvals_on_push) removeApproval(st, a.id);
  }
}

/**
 * EE's `POST .../approvals`: `MergeRequests::UpdateService` saves the merge request's
 * `approvals_before_merge` column (the merge request entity's field), which 13.12's `ApprovalState`,
 * counting rules, leaves aside; the merge request's `updated_at` moves only when the value changed.
 */
export function setMergeRequestApprovals(st: S, mrId: number, n: number, now: string): void {
  const mr = tget(st.issuables.mergeRequests, mrId)!;
  if (mr.approvals_before_merge === n) return;
  mr.approvals_before_merge = n;
  mr.updated_at = now;
}
