/**
 * Fork relations: `GET /projects/:id/forks` (the direct forks the caller may see, with the projects
 * list's filters), `POST /projects/:id/fork/:forked_from_id` (admins mark a project as a fork) and
 * `DELETE /projects/:id/fork` (owners remove the relation; 304 when there is none).
 */
import { findProject } from '../../core/access.js';
import { requireAdmin, requireUser } from '../../core/auth.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { write } from '../../core/context.js';
import { apiError, forbidden, notModified } from '../../core/errors.js';
import type { ApiRouter } from '../../core/router.js';
import { tget } from '../../core/table.js';
import { isProjectOwner, loadProject, sendProject } from '../projects/helpers.js';
import { listRoutes } from '../projects/lists.js';
import type { Project } from '../projects/model.js';

export function forksRoutes(r: ApiRouter): void {
  r.get('/projects/:id/forks', (c) => listRoutes.listProjects(c, 'forks'));

  r.post('/projects/:id/fork/:forked_from_id', (c) => {
    requireAdmin(c);
    const project = loadProject(c);
    const source = findProject(c, c.req.param('forked_from_id') ?? '') as Project;
    // `link_existing_project`: a project that is already a fork stays as it is.
    if (project.forked_from_project_id !== null) throw apiError(409, 'Project already forked');
    const now = c.get('fx').clock.iso();
    write(c, (d) => {
      const p = tget(d.projects, project.id) as Project;
      p.forked_from_project_id = source.id;
      p.updated_at = now;
      const parent = tget(d.projects, source.id) as Project;
      parent.forks_count = (parent.forks_count ?? 0) + 1;
    });
    return sendProject(c, project.id, 201);
  });

  r.delete('/projects/:id/fork', (c) => {
    requireUser(c);
    const project = loadProject(c);
    if (!isProjectOwner(c, project)) throw forbidden();
    checkUnmodifiedSince(c, project.updated_at);
    const parentId = project.forked_from_project_id;
    if (parentId === null) throw notModified();
    const now = c.get('fx').clock.iso();
    write(c, (d) => {
      const p = tget(d.projects, project.id) as Project;
      p.forked_from_project_id = null;
      p.updated_at = now;
      const parent = tget(d.projects, parentId) as Project | undefined;
      if (parent && parent.forks_count > 0) parent.forks_count--;
    });
    return c.body(null, 204);
  });
}
