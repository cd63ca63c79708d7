/**
 * Who may use a project's feature flags (13.12 `ProjectPolicy`): developers have `read_`, `create_`,
 * `update_`, `destroy_feature_flag` and `admin_feature_flags_user_lists`; `operations_disabled` prevents
 * the feature flag abilities (not the user lists' admin, whose finder still asks `read_feature_flag`).
 */
import { ACCESS, findProject, projectAccess } from '../../core/access.js';
import { state, type Ctx } from '../../core/context.js';
import { forbidden } from '../../core/errors.js';
import type { ProjectRecord } from '../../core/state.js';
import { featureAvailable } from '../projects/access.js';
import type { Project } from '../projects/model.js';

export function canUseFlags(c: Ctx, project: ProjectRecord, withOperations = true): boolean {
  const user = c.get('viewer').user;
  const admin = user?.admin === true;
  const level = user ? projectAccess(state(c), user, project) : 0;
  if (
    withOperations &&
    !featureAvailable((project as Project).operations_access_level, 'operations', level, admin)
  )
    return false;
  return admin || level >= ACCESS.DEVELOPER;
}

/** `user_project` (404 when not visible), then `authorize! :read_feature_flag` (403). */
export function flagsProject(c: Ctx): ProjectRecord {
  const proj = findProject(c, c.req.param('id') ?? '');
  if (!canUseFlags(c, proj)) throw forbidden();
  return proj;
}

/** `user_project`, then `authorize! :admin_feature_flags_user_lists`. */
export function listsProject(c: Ctx): ProjectRecord {
  const proj = findProject(c, c.req.param('id') ?? '');
  if (!canUseFlags(c, proj, false)) throw forbidden();
  return proj;
}
