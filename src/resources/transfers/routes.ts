/**
 * `PUT /projects/:id/transfer` (owners, into a namespace they may transfer projects to) and the admins'
 * `POST /groups/:id/projects/:project_id` (a project into the group). 13.12 has no group transfer API:
 * `POST /groups/:id/transfer` arrived later, and `PUT /groups/:id` takes no `parent_id`.
 *
 * A refusal of the service is a 400 with the model's errors as Ruby prints the hash
 * (`{:new_namespace=>["..."]}`), and changes nothing.
 */
import { requireUser } from '../../core/auth.js';
import { findGroup, findProject } from '../../core/access.js';
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, forbidden } from '../../core/errors.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import { tget } from '../../core/table.js';
import { groupRenderer } from '../groups/entities.js';
import type { Group } from '../groups/model.js';
import { projectEventData, systemEvent } from '../hooks/system.js';
import { isProjectOwner, loadProject, sendProject } from '../projects/helpers.js';
import type { Project } from '../projects/model.js';
import { findNamespace } from '../projects/namespaces.js';
import type { NamespaceRef } from '../projects/validation.js';
import { transferError, transferProject } from './model.js';

const failed = (message: string) =>
  apiError(400, `Failed to transfer project {:new_namespace=>[${JSON.stringify(message)}]}`);

/** Runs the service: refuses with its message, or moves the project and tells the system hooks. */
function transfer(c: Ctx, project: Project, ns: NamespaceRef, owns: boolean): void {
  const user = requireUser(c);
  const error = transferError(state(c), user, project, ns, owns);
  if (error) throw failed(error);
  const now = c.get('fx').clock.iso();
  write(c, (d) => transferProject(d, project.id, ns, now));
  systemEvent(
    c,
    'project_transfer',
    projectEventData(state(c), tget(state(c).projects, project.id)!, project.path_with_namespace),
  );
}

function transferRoute(c: Ctx): Response {
  const prm = parse(c, { namespace: p.str().required() });
  const project = loadProject(c);
  requireUser(c);
  // `authorize! :change_namespace`: owners and admins.
  if (!isProjectOwner(c, project)) throw forbidden();
  const ns = findNamespace(c, prm.namespace);
  transfer(c, project, ns, true);
  // Presented without `user_can_admin_project`: no runners token, import error or git strategy.
  return sendProject(c, project.id, 200);
}

function transferIntoGroupRoute(c: Ctx): Response {
  const prm = parse(c, { project_id: p.str().required() });
  const group = findGroup(c, c.req.param('id') ?? '');
  const project = findProject(c, prm.project_id) as Project;
  transfer(c, project, { kind: 'group', group }, true);
  return c.json(groupRenderer(c).detail(tget(state(c).groups, group.id) as Group), 201);
}

export function transfersRoutes(r: ApiRouter): void {
  r.put('/projects/:id/transfer', transferRoute);
  r.post('/groups/:id/projects/:project_id', { auth: 'admin' }, transferIntoGroupRoute);
}
