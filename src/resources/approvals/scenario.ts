/** Scenario files' `approval_settings` of a project (paid tiers' merge request approval settings). */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut, ScenarioRefs } from '../../core/area.js';
import type { PlatformState } from '../../core/state.js';
import { iget, tget, tvalues } from '../../core/table.js';
import type { Project } from '../projects/model.js';
import { mergeRequestByIid } from '../issuables/common.js';
import {
  addApproval,
  approvalsOf,
  createProjectRule,
  projectRules,
  updateApprovalSettings,
} from './model.js';
import { createExternalRule, externalRules } from './external.js';
import { FLAG_NAMES } from './store.js';

const settingsSchema = z.strictObject({
  approvals_before_merge: z.number().int().min(0).max(100).optional(),
  reset_approvals_on_push: z.boolean().optional().describe('default true'),
  disable_overriding_approvers_per_merge_request: z.boolean().optional(),
  merge_requests_author_approval: z.boolean().optional().describe('true lets authors approve'),
  merge_requests_disable_committers_approval: z.boolean().optional(),
  require_password_to_approve: z.boolean().optional(),
});

const ruleSchema = z.strictObject({
  name: z.string().trim().min(1).max(255),
  approvals_required: z.number().int().min(0).max(100),
  rule_type: z.enum(['regular', 'any_approver']).optional(),
  users: z.array(z.string().min(1)).max(100).optional().describe('usernames of approvers'),
  groups: z.array(z.string().min(1)).max(100).optional().describe('full paths of approver groups'),
});

const externalRuleSchema = z.strictObject({
  name: z.string().trim().min(1).max(255),
  external_url: z.string().url().max(2048),
});

const mrApprovalSchema = z.strictObject({
  iid: z.number().int().min(1),
  approved_by: z.array(z.string().min(1)).min(1).max(100).describe('usernames, in the order they approved'),
});

export const approvalFields = {
  approval_settings: settingsSchema
    .optional()
    .describe('merge request approval settings (paid tiers); unset ones keep the defaults'),
  approval_rules: z.array(ruleSchema).max(100).optional().describe('project approval rules, in order'),
  external_approval_rules: z
    .array(externalRuleSchema)
    .max(100)
    .optional()
    .describe('external approval rules (ultimate, behind ff_compliance_approval_gates), in order'),
  merge_request_approvals: z
    .array(mrApprovalSchema)
    .max(10000)
    .optional()
    .describe("approvals of the project's merge requests, by iid"),
};

export interface ApprovalEntry {
  approval_settings?: z.output<typeof settingsSchema>;
  approval_rules?: z.output<typeof ruleSchema>[];
  external_approval_rules?: z.output<typeof externalRuleSchema>[];
  merge_request_approvals?: z.output<typeof mrApprovalSchema>[];
}

/** Unknown approvers and groups, and names given twice. */
export function approvalProblems(e: ApprovalEntry, at: string, refs: ScenarioRefs): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  (e.approval_rules ?? []).forEach((r, i) => {
    const key = `${r.rule_type ?? 'regular'}:${r.name}`;
    if (seen.has(key)) problems.push(`${at}.approval_rules[${i}].name: "${r.name}" is listed twice`);
    seen.add(key);
    (r.users ?? []).forEach((u, j) => {
      if (!refs.users.has(u.toLowerCase()))
        problems.push(`${at}.approval_rules[${i}].users[${j}]: no user "${u}" in this scenario`);
    });
    (r.groups ?? []).forEach((g, j) => {
      if (!refs.groups.has(g.toLowerCase()))
        problems.push(`${at}.approval_rules[${i}].groups[${j}]: no group "${g}" in this scenario`);
    });
  });
  const names = new Set<string>();
  const urls = new Set<string>();
  (e.external_approval_rules ?? []).forEach((r, i) => {
    const at2 = `${at}.external_approval_rules[${i}]`;
    if (names.has(r.name)) problems.push(`${at2}.name: "${r.name}" is listed twice`);
    if (urls.has(r.external_url)) problems.push(`${at2}.external_url: "${r.external_url}" is listed twice`);
    names.add(r.name);
    urls.add(r.external_url);
    if (!/^https?:/i.test(r.external_url)) problems.push(`${at2}.external_url: only http and https`);
  });
  (e.merge_request_approvals ?? []).forEach((m, i) => {
    m.approved_by.forEach((u, j) => {
      if (!refs.users.has(u.toLowerCase()))
        problems.push(
          `${at}.merge_request_approvals[${i}].approved_by[${j}]: no user "${u}" in this scenario`,
        );
    });
  });
  return problems;
}

export function buildApprovals(
  st: Draft<PlatformState>,
  id: number,
  e: ApprovalEntry,
  b: ScenarioBuild,
): void {
  for (const r of e.approval_rules ?? [])
    createProjectRule(
      st,
      id,
      {
        name: r.name,
        rule_type: r.rule_type ?? 'regular',
        approvals_required: r.approvals_required,
        user_ids: [...new Set((r.users ?? []).map((u) => b.uid(u)))],
        group_ids: [...new Set((r.groups ?? []).flatMap((g) => groupIdByPath(st, g)))],
        protected_branch_ids: [],
      },
      b.now,
    );
  for (const r of e.external_approval_rules ?? [])
    createExternalRule(
      st,
      id,
      {
        name: r.name,
        external_url: r.external_url,
        protected_branch_ids: [],
      },
      b.now,
    );
  for (const m of e.merge_request_approvals ?? []) {
    const mr = mergeRequestByIid(st as PlatformState, id, m.iid);
    if (!mr) continue;
    for (const u of new Set(m.approved_by.map((n) => b.uid(n)))) addApproval(st, mr.id, u, b.now);
  }
  if (!e.approval_settings) return;
  // Loading is not an edit: the project keeps the update time it was built with.
  const project = tget(st.projects, id) as Draft<Project>;
  const before = project.updated_at;
  updateApprovalSettings(st, id, e.approval_settings, b.now);
  project.updated_at = before;
}

function groupIdByPath(st: PlatformState, path: string): number[] {
  const id = iget(st.idx.namespaces, path.toLowerCase());
  return id !== undefined && id > 0 ? [id] : [];
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
  const projects = new Set(tvalues(st.approvals.rules).map((r) => r.project_id));
  for (const pid of [...projects].sort((a, b) => a - b)) {
    const e = out.project(pid);
    if (!e) continue;
    // Protected branches are not part of the format: a rule keeps its users and groups.
    e.approval_rules = projectRules(st, pid).map((r) => {
      const users = r.user_ids.flatMap((u) => out.username(u) ?? []);
      const groups = r.group_ids.flatMap((g) => tget(st.groups, g)?.full_path ?? []);
      return {
        name: r.name,
        approvals_required: r.approvals_required,
        ...(r.rule_type === 'regular' ? {} : { rule_type: r.rule_type }),
        ...(users.length ? { users } : {}),
        ...(groups.length ? { groups } : {}),
      };
    });
  }
  const external = new Set(tvalues(st.approvals.external).map((r) => r.project_id));
  for (const pid of [...external].sort((a, b) => a - b)) {
    const e = out.project(pid);
    if (!e) continue;
    // As with the project rules, protected branches are not part of the format.
    e.external_approval_rules = externalRules(st, pid).map((r) => ({
      name: r.name,
      external_url: r.external_url,
    }));
  }
  const byMr = new Map<number, number[]>();
  for (const a of tvalues(st.approvals.approvals)) byMr.set(a.merge_request_id, []);
  const entries = new Map<number, { iid: number; approved_by: string[] }[]>();
  for (const mrId of [...byMr.keys()].sort((a, b) => a - b)) {
    const mr = tget(st.issuables.mergeRequests, mrId);
    if (!mr) continue;
    const users = approvalsOf(st, mrId).flatMap((a) => out.username(a.user_id) ?? []);
    if (!users.length) continue;
    const list = entries.get(mr.project_id) ?? [];
    list.push({ iid: mr.iid, approved_by: users });
    entries.set(mr.project_id, list);
  }
  for (const [pid, list] of [...entries].sort((a, b) => a[0] - b[0])) {
    const e = out.project(pid);
    if (e) e.merge_request_approvals = list.sort((a, b) => a.iid - b.iid);
  }
}
