/**
 * Merge request approvals (EE `project_approvals.rb`, `project_approval_rules.rb`): every route needs a
 * user and a paid tier. Developers who may open merge requests read a project's settings and rules;
 * maintainers change them.
 */
import { canReadGroup, findProject, projectAccess } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, forbidden, recordNotFound } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { atLeastOneOf, p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import type { PlatformState } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import { groupRenderer } from '../groups/entities.js';
import type { Group } from '../groups/model.js';
import { abilities } from '../issuables/access.js';
import { issuableRenderer } from '../issuables/entities.js';
import type { Project } from '../projects/model.js';
import { protectedEntity } from '../repository/branches.js';
import {
  approvalFlags,
  createProjectRule,
  deleteProjectRule,
  projectRules,
  updateApprovalSettings,
  updateProjectRule,
  type RuleFields,
  type SettingsChange,
} from './model.js';
import type { ProjectRuleRecord } from './store.js';

/** The viewer's standing in the route's project (404 when it is hidden). */
function projectOf(c: Ctx) {
  requireUser(c);
  const project = findProject(c, c.req.param('id') ?? '') as Project;
  return { project, a: abilities(state(c), c.get('viewer').user, project) };
}

/** `authorize_read_project_approval_rule!`: maintainers, or whoever may open merge requests here. */
function canReadApprovals(a: ReturnType<typeof abilities>): boolean {
  return a.maintainer || (a.developer && a.mergeRequests);
}

/** `EE::API::Entities::ApprovalSettings`; the deprecated approver lists are always empty. */
function settingsEntity(c: Ctx, projectId: number) {
  const st = state(c);
  const project = tget(st.projects, projectId) as Project;
  const f = approvalFlags(st, projectId);
  return {
    approvers: [],
    approver_groups: [],
    approvals_before_merge: project.approvals_before_merge,
    reset_approvals_on_push: f.reset_approvals_on_push,
    disable_overriding_approvers_per_merge_request: f.disable_overriding_approvers_per_merge_request,
    merge_requests_author_approval: f.merge_requests_author_approval,
    merge_requests_disable_committers_approval: f.merge_requests_disable_committers_approval,
    require_password_to_approve: f.require_password_to_approve,
  };
}

const settingsParams = {
  approvals_before_merge: p.int(),
  reset_approvals_on_push: p.bool(),
  disable_overriding_approvers_per_merge_request: p.bool(),
  merge_requests_author_approval: p.bool(),
  merge_requests_disable_committers_approval: p.bool(),
  require_password_to_approve: p.bool(),
};

export function approvalsRoutes(r: ApiRouter): void {
  r.get('/projects/:id/approvals', { tier: 'premium' }, (c) => {
    const { project, a } = projectOf(c);
    if (!canReadApprovals(a)) throw forbidden();
    return c.json(settingsEntity(c, project.id));
  });

  r.post('/projects/:id/approvals', { tier: 'premium', params: settingsParams }, (c, prm) => {
    requireUser(c);
    atLeastOneOf(c.get('params'), ...Object.keys(settingsParams));
    const { project, a } = projectOf(c);
    if (!a.maintainer) throw forbidden();
    const ch: SettingsChange = {};
    for (const k of Object.keys(settingsParams) as (keyof typeof settingsParams)[]) {
      const v = prm[k];
      if (v !== undefined) (ch as Record<string, unknown>)[k] = v;
    }
    const now = c.get('fx').clock.iso();
    write(c, (d) => updateApprovalSettings(d, project.id, ch, now));
    return c.json(settingsEntity(c, project.id), 201);
  });
}

/** The rules' routes (EE `project_approval_rules.rb`). */
export function projectRuleRoutes(r: ApiRouter): void {
  r.get('/projects/:id/approval_rules', { tier: 'premium', params: paginationParams }, (c) => {
    const { project, a } = projectOf(c);
    if (!canReadApprovals(a)) throw forbidden();
    return paginate(c, projectRules(state(c), project.id), (rule) => ruleEntity(c, rule));
  });

  // 13.7: one rule, read as the list is (`authorize_read_project_approval_rule!`, then `find`).
  r.get(
    '/projects/:id/approval_rules/:approval_rule_id',
    { tier: 'premium', params: { approval_rule_id: p.int().required() } },
    (c, prm) => {
      const { project, a } = projectOf(c);
      if (!canReadApprovals(a)) throw forbidden();
      return c.json(ruleEntity(c, ruleOf(c, project.id, prm.approval_rule_id)));
    },
  );

  r.post(
    '/projects/:id/approval_rules',
    {
      tier: 'premium',
      params: {
        name: p.str().required(),
        approvals_required: p.int().required(),
        rule_type: p.str(),
        user_ids: p.intArray({ commaSeparated: true }),
        group_ids: p.intArray({ commaSeparated: true }),
        protected_branch_ids: p.intArray({ commaSeparated: true }),
      },
    },
    (c, prm) => {
      const { project, a } = projectOf(c);
      if (!a.maintainer) throw forbidden();
      const st = state(c);
      const f: RuleFields = {
        name: prm.name,
        rule_type: prm.rule_type === 'any_approver' ? 'any_approver' : 'regular',
        approvals_required: prm.approvals_required,
        user_ids: eligibleUsers(st, project, prm.user_ids ?? []),
        group_ids: visibleGroups(c, prm.group_ids ?? []),
        protected_branch_ids: ownBranches(st, project.id, prm.protected_branch_ids ?? []),
      };
      ruleProblems(st, project.id, f, null);
      const now = c.get('fx').clock.iso();
      const id = write(c, (d) => createProjectRule(d, project.id, f, now));
      return c.json(ruleEntity(c, tget(state(c).approvals.rules, id)!), 201);
    },
  );

  r.put(
    '/projects/:id/approval_rules/:approval_rule_id',
    {
      tier: 'premium',
      params: {
        approval_rule_id: p.int().required(),
        name: p.str(),
        approvals_required: p.int(),
        user_ids: p.intArray({ commaSeparated: true }),
        group_ids: p.intArray({ commaSeparated: true }),
        protected_branch_ids: p.intArray({ commaSeparated: true }),
        remove_hidden_groups: p.bool(),
      },
    },
    (c, prm) => {
      const { project, a } = projectOf(c);
      if (!a.maintainer) throw forbidden();
      const rule = ruleOf(c, project.id, prm.approval_rule_id);
      const st = state(c);
      const ch: Partial<RuleFields> = {};
      if (prm.name !== undefined) ch.name = prm.name;
      if (prm.approvals_required !== undefined) ch.approvals_required = prm.approvals_required;
      if (prm.user_ids !== undefined) ch.user_ids = eligibleUsers(st, project, prm.user_ids);
      if (prm.group_ids !== undefined) {
        const seen = visibleGroups(c, prm.group_ids);
        // Groups the editor cannot see stay on the rule unless the request asks to drop them.
        const hidden = prm.remove_hidden_groups ? [] : rule.group_ids.filter((g) => !groupVisible(c, g));
        ch.group_ids = [...new Set([...seen, ...hidden])];
      }
      if (prm.protected_branch_ids !== undefined)
        ch.protected_branch_ids = ownBranches(st, project.id, prm.protected_branch_ids);
      ruleProblems(st, project.id, { ...rule, ...ch }, rule.id);
      const now = c.get('fx').clock.iso();
      write(c, (d) => updateProjectRule(d, rule.id, ch, now));
      return c.json(ruleEntity(c, tget(state(c).approvals.rules, rule.id)!));
    },
  );

  r.delete(
    '/projects/:id/approval_rules/:approval_rule_id',
    { tier: 'premium', params: { approval_rule_id: p.int().required() } },
    (c, prm) => {
      const { project, a } = projectOf(c);
      if (!a.maintainer) throw forbidden();
      const rule = ruleOf(c, project.id, prm.approval_rule_id);
      checkUnmodifiedSince(c, rule.updated_at);
      write(c, (d) => deleteProjectRule(d, rule.id));
      return c.body(null, 204);
    },
  );
}

/** `user_project.approval_rules.find(id)`. */
function ruleOf(c: Ctx, projectId: number, id: number): ProjectRuleRecord {
  const rule = tget(state(c).approvals.rules, id);
  if (!rule || rule.project_id !== projectId) throw recordNotFound('no approval rule with this id here');
  return rule;
}

/** `project.members_among(users)`: ids of users who are members of the project (directly or through groups). */
function eligibleUsers(st: PlatformState, project: Project, ids: number[]): number[] {
  return [...new Set(ids)].filter((id) => {
    const u = tget(st.users, id);
    return u !== undefined && projectAccess(st, u, project) > 0;
  });
}

function groupVisible(c: Ctx, id: number): boolean {
  const g = tget(state(c).groups, id);
  return g !== undefined && canReadGroup(state(c), c.get('viewer').user, g);
}

/** `Group.id_in(ids).public_or_visible_to_user(current_user)`. */
const visibleGroups = (c: Ctx, ids: number[]) => [...new Set(ids)].filter((id) => groupVisible(c, id));

/** `project.protected_branches.id_in(ids)`. */
function ownBranches(st: PlatformState, projectId: number, ids: number[]): number[] {
  return [...new Set(ids)].filter((id) => tget(st.repository.protected, id)?.project_id === projectId);
}

/** `ApprovalProjectRule`'s validations, as the create and update services report them (400). */
function ruleProblems(st: PlatformState, projectId: number, f: RuleFields, self: number | null): void {
  const errors: Record<string, string[]> = {};
  if (f.name.trim() === '') errors.name = ["can't be blank"];
  else if (
    projectRules(st, projectId).some((r) => r.id !== self && r.rule_type === f.rule_type && r.name === f.name)
  )
    errors.name = ['has already been taken'];
  if (f.approvals_required < 0) errors.approvals_required = ['must be greater than or equal to 0'];
  else if (f.approvals_required > 100) errors.approvals_required = ['must be less than or equal to 100'];
  if (Object.keys(errors).length) throw apiError(400, errors);
}

/** Direct members of the rule's groups, as `ApprovalRuleLike#group_users`. */
function groupUserIds(st: PlatformState, groupIds: number[]): number[] {
  return groupIds.flatMap((g) =>
    mget(st.idx.membersBySource, `group:${g}`).map((m) => tget(st.members, m)!.user_id),
  );
}

/** `EE::API::Entities::ProjectApprovalRule`; groups the viewer cannot see are left out and flagged. */
function ruleEntity(c: Ctx, rule: ProjectRuleRecord) {
  const st = state(c);
  const ur = issuableRenderer(c);
  const gr = groupRenderer(c);
  const approvers = [...new Set([...rule.user_ids, ...groupUserIds(st, rule.group_ids)])].sort(
    (a, b) => a - b,
  );
  const shown = rule.group_ids.filter((g) => groupVisible(c, g)).sort((a, b) => a - b);
  return {
    id: rule.id,
    name: rule.name,
    rule_type: rule.rule_type,
    eligible_approvers: approvers.map((id) => ur.user(id)).filter((u) => u !== null),
    approvals_required: rule.approvals_required,
    users: [...rule.user_ids]
      .sort((a, b) => a - b)
      .map((id) => ur.user(id))
      .filter((u) => u !== null),
    groups: shown.map((g) => gr.group(tget(st.groups, g) as Group)),
    contains_hidden_groups: shown.length < rule.group_ids.length,
    protected_branches: rule.protected_branch_ids.flatMap((id) => {
      const b = tget(st.repository.protected, id);
      return b ? [protectedEntity(b)] : [];
    }),
  };
}
