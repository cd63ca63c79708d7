/**
 * A merge request's approvals (EE `merge_request_approvals.rb`): the project's rules apply to each merge
 * request; developers who may approve add their approval once, and take it back.
 */
import { canReadGroup } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { state, write, type Ctx } from '../../core/context.js';
import { conflict, notFound, unauthorized } from '../../core/errors.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import type { PlatformState, UserRecord } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import { groupRenderer } from '../groups/entities.js';
import type { Group } from '../groups/model.js';
import { abilities } from '../issuables/access.js';
import { findMergeRequest, loadProject } from '../issuables/common.js';
import { issuableRenderer } from '../issuables/entities.js';
import type { MergeRequestRecord } from '../issuables/store.js';
import type { Project } from '../projects/model.js';
import { addApproval, approvalFlags, approvalsOf, projectRules, removeApproval } from './model.js';
import type { ProjectRuleRecord } from './store.js';

/** The rule's eligible approvers: its users and the direct members of its groups. */
function ruleApprovers(st: PlatformState, rule: ProjectRuleRecord): Set<number> {
  const ids = new Set(rule.user_ids);
  for (const g of rule.group_ids)
    for (const m of mget(st.idx.membersBySource, `group:${g}`)) ids.add(tget(st.members, m)!.user_id);
  return ids;
}

/** `ApprovalState`: the project's rules as they stand for one merge request. */
export function approvalState(st: PlatformState, mr: MergeRequestRecord) {
  const approvedBy = approvalsOf(st, mr.id).map((a) => a.user_id);
  const rules = projectRules(st, mr.project_id).map((rule) => {
    const eligible = rule.rule_type === 'any_approver' ? null : ruleApprovers(st, rule);
    const count = approvedBy.filter((u) => eligible === null || eligible.has(u)).length;
    return { rule, eligible, left: Math.max(rule.approvals_required - count, 0) };
  });
  const approvalsRequired = rules.reduce((n, r) => n + r.rule.approvals_required, 0);
  const approvalsLeft = rules.reduce((n, r) => n + r.left, 0);
  return { approvedBy, rules, approvalsRequired, approvalsLeft, approved: approvalsLeft === 0 };
}

/** `ApprovalState#can_approve?`. */
function canApprove(st: PlatformState, user: UserRecord, project: Project, mr: MergeRequestRecord): boolean {
  const a = abilities(st, user, project);
  if (!a.developer || !a.mergeRequests) return false;
  const s = approvalState(st, mr);
  if (s.approvedBy.includes(user.id)) return false;
  if (mr.author_id === user.id && !approvalFlags(st, project.id).merge_requests_author_approval) return false;
  // Anyone with access may approve when no rule names approvers, or an any-approver rule exists.
  const anyApprover = s.rules.length === 0 || s.rules.some((r) => r.eligible === null);
  return anyApprover || s.rules.some((r) => r.eligible!.has(user.id));
}

/** EE's `mergeable?` asks `approved?` first: a merge request that lacks approvals does not merge. */
export function approvalsMissing(st: PlatformState, mrId: number): boolean {
  if (st.tier === 'free') return false;
  const mr = tget(st.issuables.mergeRequests, mrId);
  return mr !== undefined && !approvalState(st, mr).approved;
}

/** `EE::API::Entities::ApprovalState`. */
function approvalEntity(c: Ctx, project: Project, mr: MergeRequestRecord) {
  const st = state(c);
  const r = issuableRenderer(c);
  const s = approvalState(st, mr);
  const viewer = c.get('viewer').user;
  const suggested = new Set<number>();
  for (const x of s.rules)
    if (x.eligible)
      for (const u of x.eligible) if (!s.approvedBy.includes(u) && u !== mr.author_id) suggested.add(u);
  return {
    id: mr.id,
    iid: mr.iid,
    project_id: mr.project_id,
    title: mr.title,
    description: mr.description,
    state: mr.state,
    created_at: mr.created_at,
    updated_at: mr.updated_at,
    merge_status: mr.merge_status,
    approved: s.approved,
    approvals_required: s.approvalsRequired,
    approvals_left: s.approvalsLeft,
    require_password_to_approve: approvalFlags(st, project.id).require_password_to_approve,
    approved_by: s.approvedBy.map((u) => ({ user: r.user(u) })),
    suggested_approvers: [...suggested].sort((a, b) => a - b).map((u) => r.user(u)),
    approvers: [],
    approver_groups: [],
    user_has_approved: viewer !== null && s.approvedBy.includes(viewer.id),
    user_can_approve: viewer !== null && canApprove(st, viewer, project, mr),
    approval_rules_left: s.rules
      .filter((x) => x.left > 0)
      .map((x) => ({ id: x.rule.id, name: x.rule.name, rule_type: x.rule.rule_type })),
    has_approval_rules: s.rules.length > 0,
    merge_request_approvers_available: true,
    multiple_approval_rules_available: true,
  };
}

const iidParam = { merge_request_iid: p.int().required() };

export function mrApprovalRoutes(r: ApiRouter): void {
  const base = '/projects/:id/merge_requests/:merge_request_iid';

  r.get(`${base}/approvals`, { tier: 'premium', params: iidParam }, (c, prm) => {
    requireUser(c);
    const project = loadProject(c);
    const mr = findMergeRequest(c, project, prm.merge_request_iid);
    return c.json(approvalEntity(c, project, mr));
  });

  r.get(`${base}/approval_state`, { tier: 'premium', params: iidParam }, (c, prm) => {
    requireUser(c);
    const project = loadProject(c);
    const mr = findMergeRequest(c, project, prm.merge_request_iid);
    const st = state(c);
    const r = issuableRenderer(c);
    const s = approvalState(st, mr);
    const gr = groupRenderer(c);
    const viewer = c.get('viewer').user;
    return c.json({
      approval_rules_overwritten: false,
      rules: s.rules.map((x) => {
        const shown = x.rule.group_ids.filter((g) => {
          const grp = tget(st.groups, g);
          return grp !== undefined && canReadGroup(st, viewer, grp);
        });
        const approvedBy = s.approvedBy.filter((u) => x.eligible === null || x.eligible.has(u));
        return {
          id: x.rule.id,
          name: x.rule.name,
          rule_type: x.rule.rule_type,
          eligible_approvers: [...(x.eligible ?? [])].sort((a, b) => a - b).map((u) => r.user(u)),
          approvals_required: x.rule.approvals_required,
          users: [...x.rule.user_ids].sort((a, b) => a - b).map((u) => r.user(u)),
          groups: shown.map((g) => gr.group(tget(st.groups, g) as Group)),
          contains_hidden_groups: shown.length < x.rule.group_ids.length,
          section: null,
          source_rule: null,
          overridden: false,
          code_owner: false,
          approved_by: approvedBy.map((u) => r.user(u)),
          approved: x.left === 0,
        };
      }),
    });
  });

  r.post(
    `${base}/approve`,
    { tier: 'premium', params: { ...iidParam, sha: p.str(), approval_password: p.str() } },
    (c, prm) => {
      const user = requireUser(c);
      const project = loadProject(c);
      const mr = findMergeRequest(c, project, prm.merge_request_iid);
      const st = state(c);
      const head = tget(st.issuables.diffs, mr.diff_id)?.head_commit_sha ?? '';
      if (prm.sha !== undefined && prm.sha !== head)
        throw conflict(`SHA does not match HEAD of source branch: ${head}`);
      // fauxlab checks no passwords: a project that asks for one refuses every approval.
      if (approvalFlags(st, project.id).require_password_to_approve) throw unauthorized();
      if (!canApprove(st, user, project, mr)) throw unauthorized();
      const now = c.get('fx').clock.iso();
      write(c, (d) => addApproval(d, mr.id, user.id, now));
      return c.json(approvalEntity(c, project, mr), 201);
    },
  );

  r.post(`${base}/unapprove`, { tier: 'premium', params: iidParam }, (c, prm) => {
    const user = requireUser(c);
    const project = loadProject(c);
    const mr = findMergeRequest(c, project, prm.merge_request_iid);
    const mine = approvalsOf(state(c), mr.id).find((a) => a.user_id === user.id);
    if (!mine) throw notFound();
    write(c, (d) => removeApproval(d, mine.id));
    return c.json(approvalEntity(c, project, mr), 201);
  });
}
