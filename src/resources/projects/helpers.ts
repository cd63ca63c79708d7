/** Helpers every project route shares: loading the route's project and the permission checks. */
import { pathParam } from '../../core/router.js';
import { ACCESS, canReadProject, lookupProject, projectAccess } from '../../core/access.js';
import { notFound } from '../../core/errors.js';
import { state, type Ctx } from '../../core/context.js';
import type { ProjectRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { projectRenderer, type ProjectEntityOptions } from './entities.js';
import { settleDeletions } from './lifecycle.js';
import type { Project } from './model.js';

/**
 * `user_project` (`find_project!`): the project of the route by id or full path, after the deletion
 * worker caught up; missing and unreadable answer the same 404.
 */
export function loadProject(c: Ctx): Project {
  settleDeletions(c);
  const st = state(c);
  const p = lookupProject(st, pathParam(c, 'id'));
  if (!p) throw notFound('Project', 'no project with this id or path');
  if (!canReadProject(st, c.get('viewer').user, p))
    throw notFound('Project', 'project hidden from this viewer');
  return p as Project;
}

const level = (c: Ctx, p: ProjectRecord) => {
  const u = c.get('viewer').user;
  return u ? projectAccess(state(c), u, p) : 0;
};

/** `admin_project`: maintainers, owners and admins. */
export const canAdminProject = (c: Ctx, p: ProjectRecord) =>
  c.get('viewer').user?.admin === true || level(c, p) >= ACCESS.MAINTAINER;

/** Owner-only abilities (`remove_project`, `archive_project`, `rename_project`, `change_visibility_level`). */
export const isProjectOwner = (c: Ctx, p: ProjectRecord) =>
  c.get('viewer').user?.admin === true || level(c, p) >= ACCESS.OWNER;

/** Sends one project entity, rendered for this request after its write. */
export function sendProject(c: Ctx, id: number, status: 200 | 201, o: ProjectEntityOptions = {}): Response {
  const p = tget(state(c).projects, id)!;
  const body = projectRenderer(c).body(p, { shape: 'full', ...o });
  return c.body(body, status, { 'Content-Type': 'application/json' });
}
