/**
 * The CI abilities of the platform's ProjectPolicy and Ci::PipelinePolicy that these endpoints check:
 * reading pipelines and jobs, creating and updating pipelines, reading pipeline variables, deleting
 * pipelines, and administering CI variables (`admin_build`).
 */
import { ACCESS, projectAccess } from '../../core/access.js';
import { state, type Ctx } from '../../core/context.js';
import { forbidden } from '../../core/errors.js';
import type { PipelineRecord, PlatformState, ProjectRecord, UserRecord } from '../../core/state.js';
import { featureAvailable } from '../projects/access.js';
import type { Project } from '../projects/model.js';

export type CiAbility =
  'read_pipeline' | 'create_pipeline' | 'update_pipeline' | 'destroy_pipeline' | 'admin_build';

const MIN_LEVEL: Record<Exclude<CiAbility, 'read_pipeline'>, number> = {
  create_pipeline: ACCESS.DEVELOPER,
  update_pipeline: ACCESS.DEVELOPER,
  destroy_pipeline: ACCESS.OWNER,
  admin_build: ACCESS.MAINTAINER,
};

/**
 * Whether the viewer has a CI ability on a readable project. Jobs off for the project deny everyone;
 * reading needs reporter access, or public jobs; an archived project is read-only.
 */
export const canCi = (c: Ctx, project: ProjectRecord, ability: CiAbility): boolean =>
  userCanCi(state(c), c.get('viewer').user, project, ability);

/** `canCi` for any user (a trigger's owner, a job's user), not only the request's viewer. */
export function userCanCi(
  st: PlatformState,
  user: UserRecord | null,
  project: ProjectRecord,
  ability: CiAbility,
): boolean {
  const p = project as Project;
  const admin = user?.admin === true;
  const level = user ? projectAccess(st, user, project) : 0;
  if (!featureAvailable(p.builds_access_level, 'builds', level, admin)) return false;
  if (ability === 'read_pipeline') return admin || level >= ACCESS.REPORTER || p.public_jobs;
  // `ReadonlyAbilities`: builds and pipelines are among the features an archived project freezes.
  if (p.archived) return false;
  return admin || level >= MIN_LEVEL[ability];
}

/** `authorize!`: 403 without the ability. */
export function authorizeCi(c: Ctx, project: ProjectRecord, ability: CiAbility): void {
  if (!canCi(c, project, ability)) throw forbidden();
}

/** `read_pipeline_variable`: maintainers, and developers for the pipelines they triggered. */
export function canReadPipelineVariables(c: Ctx, project: ProjectRecord, pipeline: PipelineRecord): boolean {
  if (canCi(c, project, 'admin_build')) return true;
  const user = c.get('viewer').user;
  return canCi(c, project, 'update_pipeline') && user !== null && pipeline.user_id === user.id;
}
