/**
 * Merge request approvals (EE `project_approvals.rb`): every route needs a user and a paid tier.
 * Developers who may open merge requests read a project's settings; maintainers change them.
 */
import { findProject } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { state, write, type Ctx } from '../../core/context.js';
import { forbidden } from '../../core/errors.js';
import { atLeastOneOf, p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import { tget } from '../../core/table.js';
import { abilities } from '../issuables/access.js';
import type { Project } from '../projects/model.js';
import { approvalFlags, updateApprovalSettings, type SettingsChange } from './model.js';

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
