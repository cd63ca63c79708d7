/**
 * The project job token scope API (`lib/api/project_job_token_scope.rb`): `authenticate!` first, then
 * `user_project`; reads, the switch and additions need `admin_project` (`authorize_admin_project`),
 * removals leave that check to `Ci::JobTokenScope::Remove*Service`, which answers 403 with its message.
 * The services' other refusals (`EditScopeValidations`, the links' validations) are 400s.
 */
import { ACCESS, canReadGroup, canReadProject, findProject, projectAccess } from '../../core/access.js';
import { state, write, type Ctx } from '../../core/context.js';
import { badRequest, forbidden, notFound } from '../../core/errors.js';
import { paginate, paginationParams, requestBase } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import type { ProjectRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { projectEntity } from '../projects/entities.js';
import {
  addGroupLink,
  addProjectLink,
  groupLinkCount,
  groupLinksOf,
  inboundEnabled,
  LINK_LIMIT,
  projectLinkCount,
  projectLinksOf,
  removeGroupLink,
  removeProjectLink,
  setInboundEnabled,
} from './model.js';
import { has } from '../../core/versions.js';
import { INBOUND_SCOPE_ENFORCED, JOB_TOKEN_GROUPS_SOURCE, JOB_TOKEN_SCOPE_SOURCE } from './versions.js';

const SCOPE = { since: '16.4', source: JOB_TOKEN_SCOPE_SOURCE } as const;
const GROUPS = { since: '17.3', source: JOB_TOKEN_GROUPS_SOURCE } as const;

/** `Ci::JobTokenScope::EditScopeValidations`' messages. */
const INSUFFICIENT = 'Insufficient permissions to modify the job token scope';
const TARGET_PROJECT_UNFOUND =
  "The target_project that you are attempting to access does not exist or you don't have permission to perform this action";
const TARGET_GROUP_UNFOUND =
  "The target_group that you are attempting to access does not exist or you don't have permission to perform this action";

const canAdmin = (c: Ctx, proj: ProjectRecord): boolean => {
  const user = c.get('viewer').user;
  return !!user && (user.admin || projectAccess(state(c), user, proj) >= ACCESS.MAINTAINER);
};

/** `user_project`, then `authorize_admin_project`. */
function adminProject(c: Ctx): ProjectRecord {
  const proj = findProject(c, c.req.param('id') ?? '');
  if (!canAdmin(c, proj)) throw forbidden();
  return proj;
}

/** The source project of a removal: found, then the service's own permission check (403 with its message). */
function removingFrom(c: Ctx): ProjectRecord {
  const proj = findProject(c, c.req.param('id') ?? '');
  if (!canAdmin(c, proj)) throw forbidden(INSUFFICIENT);
  return proj;
}

/** `Entities::BasicGroupDetails`. */
const basicGroup = (c: Ctx, g: { id: number; full_path: string; name: string }) => ({
  id: g.id,
  web_url: `${requestBase(c)}/groups/${g.full_path}`,
  name: g.name,
});

export function jobTokenScopeRoutes(r: ApiRouter): void {
  const idShape = { id: p.str().required() };
  // The writes declare `requires :id, type: Integer`: a project path there is "id is invalid".
  const intId = { id: p.int().required().notBlank() };

  // `Entities::ProjectJobTokenScope`: the switch and the deprecated outbound scope (off: new projects
  // have no outbound allowlist, and it cannot be turned on any more).
  r.get('/projects/:id/job_token_scope', { auth: 'required', params: idShape, ...SCOPE }, (c) => {
    const proj = adminProject(c);
    const inbound = has(c, INBOUND_SCOPE_ENFORCED) || inboundEnabled(state(c), proj.id);
    return c.json({ inbound_enabled: inbound, outbound_enabled: false });
  });

  r.patch(
    '/projects/:id/job_token_scope',
    { params: { ...idShape, enabled: p.bool().required().notBlank() }, ...SCOPE },
    (c, prm) => {
      const proj = adminProject(c);
      write(c, (d) => setInboundEnabled(d, proj.id, prm.enabled));
      return c.body(null, 204);
    },
  );

  // `Ci::JobToken::Scope#inbound_projects`: the allowlist always holds the project itself, first.
  r.get(
    '/projects/:id/job_token_scope/allowlist',
    { auth: 'required', params: { ...idShape, ...paginationParams }, ...SCOPE },
    (c) => {
      const proj = adminProject(c);
      const st = state(c);
      const targets = [
        proj,
        ...projectLinksOf(st, proj.id).flatMap((l) => {
          const t = tget(st.projects, l.target_project_id);
          return t ? [t] : [];
        }),
      ];
      return paginate(c, targets, (t) => projectEntity(c, t, { shape: 'basic' }));
    },
  );

  r.post(
    '/projects/:id/job_token_scope/allowlist',
    { params: { ...intId, target_project_id: p.int().required().notBlank() }, ...SCOPE },
    (c, prm) => {
      const proj = adminProject(c);
      const st = state(c);
      const target = tget(st.projects, prm.target_project_id);
      if (!target) throw notFound('target_project_id not found');
      const user = c.get('viewer').user;
      if (!canReadProject(st, user, target)) throw badRequest(TARGET_PROJECT_UNFOUND);
      // `ProjectScopeLink`'s validations, then the unique index.
      if (target.id === proj.id)
        throw badRequest("Validation failed: Target project can't be the same as the source project");
      if (projectLinksOf(st, proj.id).some((l) => l.target_project_id === target.id))
        throw badRequest('Target project is already in the job token scope');
      if (projectLinkCount(st, proj.id) >= LINK_LIMIT)
        throw badRequest(
          'Validation failed: Source project exceeds the allowable number of project links in this direction',
        );
      const now = c.get('fx').clock.iso();
      const link = write(c, (d) => addProjectLink(d, proj.id, target.id, user?.id ?? null, now));
      // `Entities::ProjectScopeLink`.
      return c.json(
        { source_project_id: link.source_project_id, target_project_id: link.target_project_id },
        201,
      );
    },
  );

  r.delete(
    '/projects/:id/job_token_scope/allowlist/:target_project_id',
    { params: { ...intId, target_project_id: p.int().required().notBlank() }, ...SCOPE },
    (c, prm) => {
      // `find_project!(params[:target_project_id])` comes before the source project.
      const target = findProject(c, String(prm.target_project_id));
      const proj = removingFrom(c);
      if (target.id === proj.id)
        throw badRequest('Source project cannot be removed from the job token scope');
      const link = projectLinksOf(state(c), proj.id).find((l) => l.target_project_id === target.id);
      if (!link) throw badRequest('Target project is not in the job token scope');
      write(c, (d) => removeProjectLink(d, link));
      return c.body(null, 204);
    },
  );

  // `Ci::JobToken::Scope#groups`: the linked groups, oldest link first.
  r.get(
    '/projects/:id/job_token_scope/groups_allowlist',
    { auth: 'required', params: { ...idShape, ...paginationParams }, ...GROUPS },
    (c) => {
      const proj = adminProject(c);
      const st = state(c);
      const groups = groupLinksOf(st, proj.id).flatMap((l) => {
        const g = tget(st.groups, l.target_group_id);
        return g ? [g] : [];
      });
      return paginate(c, groups, (g) => basicGroup(c, g));
    },
  );

  r.post(
    '/projects/:id/job_token_scope/groups_allowlist',
    { params: { ...intId, target_group_id: p.int().required().notBlank() }, ...GROUPS },
    (c, prm) => {
      const proj = adminProject(c);
      const st = state(c);
      const target = tget(st.groups, prm.target_group_id);
      if (!target) throw notFound('target_group_id not found');
      const user = c.get('viewer').user;
      if (!canReadGroup(st, user, target)) throw badRequest(TARGET_GROUP_UNFOUND);
      if (groupLinksOf(st, proj.id).some((l) => l.target_group_id === target.id))
        throw badRequest('Target group is already in the job token scope');
      if (groupLinkCount(st, proj.id) >= LINK_LIMIT)
        throw badRequest('Validation failed: Source project exceeds the allowable number of group links');
      const now = c.get('fx').clock.iso();
      const link = write(c, (d) => addGroupLink(d, proj.id, target.id, user?.id ?? null, now));
      // `Entities::GroupScopeLink`.
      return c.json(
        { source_project_id: link.source_project_id, target_group_id: link.target_group_id },
        201,
      );
    },
  );

  r.delete(
    '/projects/:id/job_token_scope/groups_allowlist/:target_group_id',
    { params: { ...intId, target_group_id: p.int().required().notBlank() }, ...GROUPS },
    (c, prm) => {
      const target = tget(state(c).groups, prm.target_group_id);
      if (!target) throw notFound('target_group_id not found');
      const proj = removingFrom(c);
      const link = groupLinksOf(state(c), proj.id).find((l) => l.target_group_id === target.id);
      if (!link) throw badRequest('Target group is not in the job token scope');
      write(c, (d) => removeGroupLink(d, link));
      return c.body(null, 204);
    },
  );
}
