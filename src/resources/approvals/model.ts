/** Writes of project approval settings, as `Projects::UpdateService` saves the project's columns. */
import type { Draft } from 'immer';
import type { PlatformState } from '../../core/state.js';
import { tdelete, tget, tset } from '../../core/table.js';
import type { Project } from '../projects/model.js';
import { DEFAULT_FLAGS, FLAG_NAMES, type ApprovalFlags } from './store.js';

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
}
