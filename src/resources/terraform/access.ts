/**
 * Who may use a project's Terraform states. The routes take the API's usual credentials, a personal
 * access token as the password of HTTP Basic auth (`basic_auth_personal_access_token: true`, any
 * username) and a job token only that way (`job_token_allowed: :basic_auth`, username
 * `gitlab-ci-token`): no `JOB-TOKEN` header, no deploy tokens. The abilities are ProjectPolicy's:
 * `read_terraform_state` for developers, `admin_terraform_state` for maintainers, neither while the
 * project's operations are disabled (`operations_disabled` prevents `*_terraform_state`).
 */
import { ACCESS, projectAccess } from '../../core/access.js';
import { state, type Ctx } from '../../core/context.js';
import { forbidden, unauthorized } from '../../core/errors.js';
import type { ProjectRecord } from '../../core/state.js';
import type { JobRef } from '../jobs/model.js';
import { fromBasicPassword, fromJobToken, JOB_USERNAME, projectForActor } from '../packages/access.js';
import type { Project } from '../projects/record.js';
import type { UserRecord } from '../../core/state.js';

export interface StateActor {
  user: UserRecord;
  job: JobRef | null;
}

/** `authenticate!` with the routes' credentials: a sent but worthless credential is a 401 as well. */
export function stateActor(c: Ctx): StateActor {
  const viewer = c.get('viewer');
  if (viewer.user) return { user: viewer.user, job: null };
  const authz = c.req.header('authorization');
  if (authz && /^basic\s+/i.test(authz)) {
    const decoded = Buffer.from(authz.replace(/^basic\s+/i, '').trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const username = colon < 0 ? '' : decoded.slice(0, colon);
    const password = colon < 0 ? '' : decoded.slice(colon + 1);
    if (username === '' || password === '') throw unauthorized();
    const actor = username === JOB_USERNAME ? fromJobToken(c, password) : fromBasicPassword(c, password);
    if (actor.kind === 'user') return { user: actor.user, job: actor.job };
  }
  throw unauthorized();
}

export type StateAbility = 'read_terraform_state' | 'admin_terraform_state';

export function canState(c: Ctx, user: UserRecord, project: ProjectRecord, ability: StateAbility): boolean {
  if ((project as Project).operations_access_level === 'disabled') return false;
  if (user.admin) return true;
  const level = projectAccess(state(c), user, project);
  return level >= (ability === 'read_terraform_state' ? ACCESS.DEVELOPER : ACCESS.MAINTAINER);
}

export function authorizeState(
  c: Ctx,
  user: UserRecord,
  project: ProjectRecord,
  ability: StateAbility,
): void {
  if (!canState(c, user, project, ability)) throw forbidden();
}

/** The `before` block: `authenticate!`, `user_project` (404), `authorize! :read_terraform_state` (403). */
export function stateProject(c: Ctx): { actor: StateActor; project: ProjectRecord } {
  const actor = stateActor(c);
  const project = projectForActor(
    c,
    { kind: 'user', user: actor.user, job: actor.job },
    c.req.param('id') ?? '',
  );
  authorizeState(c, actor.user, project, 'read_terraform_state');
  return { actor, project };
}
