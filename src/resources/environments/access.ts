/**
 * Who may do what with a project's environments and deployments (`ProjectPolicy`): reporters read,
 * developers write; the builds, repository and operations features closed to the caller, or an
 * archived project, take the abilities away.
 */
import { ACCESS, projectAccess } from '../../core/access.js';
import { state, type Ctx } from '../../core/context.js';
import { forbidden } from '../../core/errors.js';
import type { ProjectRecord } from '../../core/state.js';
import { featureAvailable } from '../projects/access.js';
import type { Project } from '../projects/model.js';

export type Ability = 'read' | 'write';

/**
 * `read_environment` (reporters) and `create`/`update`/`destroy_environment` (developers), with the
 * project policy's prevents: builds, repository or operations disabled, and an archived project.
 */
export function can(c: Ctx, project: ProjectRecord, ability: Ability): boolean {
  const proj = project as Project;
  const user = c.get('viewer').user;
  const admin = user?.admin === true;
  const level = user ? projectAccess(state(c), user, project) : 0;
  for (const [access, feature] of [
    [proj.builds_access_level, 'builds'],
    [proj.repository_access_level, 'repository'],
    [proj.operations_access_level, 'operations'],
  ] as const)
    if (!featureAvailable(access, feature, level, admin)) return false;
  if (ability === 'read') return admin || level >= ACCESS.REPORTER;
  if (proj.archived) return false;
  return admin || level >= ACCESS.DEVELOPER;
}

export function authorize(c: Ctx, project: ProjectRecord, ability: Ability): void {
  if (!can(c, project, ability)) throw forbidden();
}
