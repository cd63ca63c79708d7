/**
 * Who may read and write a repository (13.12's policies): reading needs `download_code` (guests of
 * public and internal projects, reporters of private ones; a disabled or private repository feature
 * closes it); pushing needs `push_code` (developers, not on an archived project), and a protected
 * branch needs the access level its push rule names.
 */
import { ACCESS, findProject, projectAccess } from '../../core/access.js';
import { state, type Ctx } from '../../core/context.js';
import { forbidden, notFound } from '../../core/errors.js';
import type { PlatformState, ProjectRecord, UserRecord } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import { RegexpError, wildcard } from '../../core/untrusted-regexp.js';
import { canDownloadCode, featureAvailable } from '../projects/access.js';
import type { Project } from '../projects/model.js';
import type { ProtectedBranchRecord } from './store.js';

export const level = (st: PlatformState, user: UserRecord | null, p: ProjectRecord) =>
  user ? projectAccess(st, user, p) : 0;

/** The project of the route, after `require_repository_enabled!` and `authorize! :download_code`. */
export function readableRepo(c: Ctx): Project {
  const p = findProject(c, c.req.param('id') ?? '') as Project;
  const st = state(c);
  const user = c.get('viewer').user;
  const access = level(st, user, p);
  if (!featureAvailable(p.repository_access_level, 'repository', access, user?.admin === true))
    throw notFound('Repository', 'the repository feature is closed to this viewer');
  if (!canDownloadCode(p, user, access)) throw forbidden();
  return p;
}

/** `push_code`: developers and up, on a project that is not archived. */
export function canPushCode(st: PlatformState, user: UserRecord | null, p: Project): boolean {
  if (!user || p.archived) return false;
  return user.admin || level(st, user, p) >= ACCESS.DEVELOPER;
}

/** `authorize_push_project`. */
export function authorizePush(c: Ctx, p: Project): void {
  if (!canPushCode(state(c), c.get('viewer').user, p)) throw forbidden();
}

/** `ProtectedBranch.matching`: exact names and `*` wildcards. */
export function protectionsOf(st: PlatformState, projectId: number, branch: string): ProtectedBranchRecord[] {
  const out: ProtectedBranchRecord[] = [];
  for (const id of mget(st.repository.idx.protectedBy, String(projectId))) {
    const pb = tget(st.repository.protected, id)!;
    if (refMatches(pb.name, branch)) out.push(pb);
  }
  return out;
}

/** `RefMatcher#matches?`: the exact name, or a `*` wildcard. */
export const refMatches = (name: string, ref: string): boolean =>
  name === ref || (name.includes('*') && wildcardMatches(name, ref));

/** `RefMatcher#matches?` for a wildcard, on RE2 (a name of many `*`s cannot make it backtrack). */
function wildcardMatches(name: string, branch: string): boolean {
  try {
    return wildcard(name).testExact(branch);
  } catch (e) {
    // A name whose program is past RE2's budget matches nothing.
    if (e instanceof RegexpError) return false;
    throw e;
  }
}

/** `ProtectedRefAccess#check_access` for one rule (branches' and tags' alike). */
export function allows(st: PlatformState, user: UserRecord, p: Project, required: number): boolean {
  if (user.admin) return true;
  if (required === 0) return false;
  return canPushCode(st, user, p) && level(st, user, p) >= required;
}

/** `Gitlab::UserAccess#can_push_to_branch?`. */
export function canPushToBranch(
  st: PlatformState,
  user: UserRecord | null,
  p: Project,
  branch: string,
): boolean {
  if (!user || !canPushCode(st, user, p)) return false;
  const rules = protectionsOf(st, p.id, branch);
  return rules.length === 0 || rules.some((r) => allows(st, user, p, r.push_access_level));
}

/** `authorize_push_to_branch!`. */
export function authorizePushToBranch(c: Ctx, p: Project, branch: string): void {
  if (!canPushToBranch(state(c), c.get('viewer').user, p, branch))
    throw forbidden('You are not allowed to push into this branch');
}

/** `authorize_admin_project`: maintainers. */
export function authorizeAdmin(c: Ctx, p: Project): void {
  const user = c.get('viewer').user;
  if (!user || !(user.admin || level(state(c), user, p) >= ACCESS.MAINTAINER)) throw forbidden();
}
