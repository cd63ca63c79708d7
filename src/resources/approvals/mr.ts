/**
 * A merge request's approvals. CE `merge_request_approvals.rb` (every tier): GET approvals, approve and
 * unapprove, shown with CE's `Entities::MergeRequestApprovals`; on paid tiers EE's prepend presents
 * `EE::API::Entities::ApprovalState` instead and adds approval_state and POST approvals. The project's
 * rules apply to each merge request; who may approve adds their approval once, and takes it back.
 */
import { canReadGroup } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { state, write, type Ctx } from '../../core/context.js';
import {
  conflict,
  forbidden,
  notFound,
  recordNotFound,
  unauthorized,
  unprocessable,
  validationError,
} from '../../core/errors.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import type { PlatformState, UserRecord } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import { groupRenderer } from '../groups/entities.js';
import type { Group } from '../groups/model.js';
import { abilities, canUpdateMergeRequest } from '../issuables/access.js';
import { loadProject, mergeRequestByIid } from '../issuables/common.js';
import { issuableRenderer } from '../issuables/entities.js';
import type { MergeRequestRecord } from '../issuables/store.js';
import type { Project } from '../projects/model.js';
import {
  addApproval,
  approvalFlags,
  approvalsOf,
  projectRules,
  removeApproval,
  setMergeRequestApprovals,
} from './model.js';
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

/**
 * `find_merge_request_with_access`: the project's merge request by iid without the finder (`404 Not
 * found`), then `authorize!` (403): `read_merge_request`, or `approve_merge_request`, which 13.12's
 * `MergeRequestPolicy` enables with `update_merge_request` (developers, the author and assignees).
 */
function withAccess(c: Ctx, project: Project, iid: number, ability: 'read' | 'approve' | 'update') {
  const st = state(c);
  const mr = mergeRequestByIid(st, project.id, iid);
  if (!mr) throw recordNotFound('no such merge request');
  const a = abilities(st, c.get('viewer').user, project);
  if (!a.mergeRequests) throw forbidden();
  if (ability !== 'read' && !canUpdateMergeRequest(a, mr)) throw forbidden();
  return mr;
}

/**
 * CE `Entities::MergeRequestApprovals`: `approved` is any approval at all (CE requires none);
 * `user_can_approve` is `can_be_approved_by?` (not yet approved, and `approve_merge_request`).
 */
function ceApprovalEntity(c: Ctx, project: Project, mr: MergeRequestRecord) {
  const st = state(c);
  const r = issuableRenderer(c);
  const approvedBy = approvalsOf(st, mr.id).map((x) => x.user_id);
  const viewer = c.get('viewer').user;
  const mine = viewer !== null && approvedBy.includes(viewer.id);
  const a = abilities(st, viewer, project);
  return {
    user_has_approved: mine,
    user_can_approve: viewer !== null && !mine && a.mergeRequests && canUpdateMergeRequest(a, mr),
    approved: approvedBy.length > 0,
    approved_by: approvedBy.map((u) => ({ user: r.user(u) })),
  };
}

/** `present_approval`: CE's entity on the free tier, EE's `ApprovalState` where EE's prepend runs. */
function presentApproval(c: Ctx, project: Project, mr: MergeRequestRecord, status: 200 | 201) {
  const paid = c.get('fx').tier() !== 'free';
  return c.json(paid ? approvalEntity(c, project, mr) : ceApprovalEntity(c, project, mr), status);
}

export function mrApprovalRoutes(r: ApiRouter): void {
  const base = '/projects/:id/merge_requests/:merge_request_iid';

  // `authenticate_non_get!`: a public project's approvals are read anonymously.
  r.get(`${base}/approvals`, { params: iidParam }, (c, prm) => {
    const project = loadProject(c);
    if (!abilities(state(c), c.get('viewer').user, project).mergeRequests) throw notFound('Merge Request');
    const mr = withAccess(c, project, prm.merge_request_iid, 'read');
    return presentApproval(c, project, mr, 200);
  });

  r.get(`${base}/approval_state`, { tier: 'premium', params: iidParam }, (c, prm) => {
    const project = loadProject(c);
    const mr = withAccess(c, project, prm.merge_request_iid, 'read');
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
    { params: { ...iidParam, sha: p.str(), approval_password: p.str() } },
    (c, prm) => {
      const user = requireUser(c);
      const project = loadProject(c);
      const mr = withAccess(c, project, prm.merge_request_iid, 'approve');
      const st = state(c);
      const head = tget(st.issuables.diffs, mr.diff_id)?.head_commit_sha ?? '';
      if (prm.sha !== undefined && prm.sha !== head)
        throw conflict(`SHA does not match HEAD of source branch: ${head}`);
      // `MergeRequests::ApprovalService` answers nothing (401) for who may not approve now: CE asks
      // `can_be_approved_by?` (not yet approved); EE's `ApprovalState#can_approve?` and the password.
      if (c.get('fx').tier() === 'free') {
        if (approvalsOf(st, mr.id).some((x) => x.user_id === user.id)) throw unauthorized();
      } else {
        // fauxlab checks no passwords: a project that asks for one refuses every approval.
        if (approvalFlags(st, project.id).require_password_to_approve) throw unauthorized();
        if (!canApprove(st, user, project, mr)) throw unauthorized();
      }
      const now = c.get('fx').clock.iso();
      write(c, (d) => addApproval(d, mr.id, user.id, now));
      return presentApproval(c, project, mr, 201);
    },
  );

  r.post(`${base}/unapprove`, { params: iidParam }, (c, prm) => {
    const user = requireUser(c);
    const project = loadProject(c);
    const mr = withAccess(c, project, prm.merge_request_iid, 'approve');
    const mine = approvalsOf(state(c), mr.id).find((a) => a.user_id === user.id);
    if (!mine) throw notFound();
    write(c, (d) => removeApproval(d, mine.id));
    return presentApproval(c, project, mr, 201);
  });

  // 15.4's `reset_approvals`: only a bot (a project or group access token's user) that may approve
  // (`reset_merge_request_approvals`), and never once merged; everyone else is 401. Grape answers the
  // value of `status :accepted`, the number 202, as the body.
  r.put(
    `${base}/reset_approvals`,
    {
      params: iidParam,
      since: '15.4',
      source:
        'doc/api/merge_request_approvals.md (Reset approvals, 15.4); lib/api/merge_request_approvals.rb',
    },
    (c, prm) => {
      const user = requireUser(c);
      const project = loadProject(c);
      const st = state(c);
      const mr = mergeRequestByIid(st, project.id, prm.merge_request_iid);
      const a = abilities(st, user, project);
      // `find_project_merge_request`: through the finder, so an unreadable one is not found.
      if (!mr || !a.mergeRequests) throw notFound('Merge Request');
      if (!user.bot || !canUpdateMergeRequest(a, mr) || mr.state === 'merged') throw unauthorized();
      write(c, (d) => {
        for (const x of approvalsOf(d, mr.id)) removeApproval(d, x.id);
      });
      return c.body('202', 202, { 'Content-Type': 'application/json' });
    },
  );

  // EE's deprecated per-merge-request override of the project's `approvals_before_merge`.
  r.post(
    `${base}/approvals`,
    { tier: 'premium', params: { ...iidParam, approvals_required: p.int().required() } },
    (c, prm) => {
      requireUser(c);
      const project = loadProject(c);
      const mr = withAccess(c, project, prm.merge_request_iid, 'update');
      const st = state(c);
      if (approvalFlags(st, project.id).disable_overriding_approvers_per_merge_request)
        throw unprocessable('Overriding approvals is disabled');
      // `EE::MergeRequest#validate_approvals_before_merge`, rendered by `render_validation_error!`.
      if (prm.approvals_required < project.approvals_before_merge)
        throw validationError({
          validate_approvals_before_merge: [
            'Number of approvals must be at least that of approvals on the target project',
          ],
        });
      const now = c.get('fx').clock.iso();
      write(c, (d) => setMergeRequestApprovals(d, mr.id, prm.approvals_required, now));
      return presentApproval(c, project, tget(state(c).issuables.mergeRequests, mr.id)!, 201);
    },
  );
}
