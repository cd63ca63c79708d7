/** Scenario files' `approval_settings` of a project (paid tiers' merge request approval settings). */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut } from '../../core/area.js';
import type { PlatformState } from '../../core/state.js';
import { tget, tvalues } from '../../core/table.js';
import type { Project } from '../projects/model.js';
import { updateApprovalSettings } from './model.js';
import { FLAG_NAMES } from './store.js';

const settingsSchema = z.strictObject({
  approvals_before_merge: z.number().int().min(0).max(100).optional(),
  reset_approvals_on_push: z.boolean().optional().describe('default true'),
  disable_overriding_approvers_per_merge_request: z.boolean().optional(),
  merge_requests_author_approval: z.boolean().optional().describe('true lets authors approve'),
  merge_requests_disable_committers_approval: z.boolean().optional(),
  require_password_to_approve: z.boolean().optional(),
});

export const approvalFields = {
  approval_settings: settingsSchema
    .optional()
    .describe('merge request approval settings (paid tiers); unset ones keep the defaults'),
};

export interface ApprovalEntry {
  approval_settings?: z.output<typeof settingsSchema>;
}

export function buildApprovals(
  st: Draft<PlatformState>,
  id: number,
  e: ApprovalEntry,
  b: ScenarioBuild,
): void {
  if (!e.approval_settings) return;
  // Loading is not an edit: the project keeps the update time it was built with.
  const project = tget(st.projects, id) as Draft<Project>;
  const before = project.updated_at;
  updateApprovalSettings(st, id, e.approval_settings, b.now);
  project.updated_at = before;
}

/** The settings that differ from the defaults, on the projects that have any. */
export function exportApprovals(st: PlatformState, out: ScenarioOut): void {
  const byProject = new Map<number, Record<string, unknown>>();
  for (const p of tvalues(st.projects) as Project[])
    if (p.approvals_before_merge !== 0)
      byProject.set(p.id, { approvals_before_merge: p.approvals_before_merge });
  for (const rec of tvalues(st.approvals.settings)) {
    const e = byProject.get(rec.project_id) ?? {};
    for (const k of FLAG_NAMES) e[k] = rec[k];
    byProject.set(rec.project_id, e);
  }
  for (const [id, settings] of [...byProject].sort((a, b) => a[0] - b[0])) {
    const e = out.project(id);
    if (e) e.approval_settings = settings;
  }
}
