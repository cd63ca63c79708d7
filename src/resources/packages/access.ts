/**
 * Who may use the package registry, and how. The generic packages API takes, besides the usual tokens, a
 * job token (`JOB-TOKEN`, `job_token`), a deploy token (`Deploy-Token`), and any of those as the password
 * of HTTP Basic auth (`gitlab-ci-token` for a job token, the deploy token's username for a deploy token,
 * any username for a personal access token). The abilities are ProjectPolicy's: `read_package` for
 * reporters and whoever the project's visibility lets in, `create_package` for developers,
 * `destroy_package` for maintainers; none while the project's packages are off. A deploy token reads with
 * `read_package_registry` and publishes with `write_package_registry`, on its project or its group's.
 */
import { ACCESS, canReadProject, lookupProject, projectAccess } from '../../core/access.js';
import { findToken } from '../../core/auth.js';
import { state, type Ctx } from '../../core/context.js';
import { forbidden, insufficientScope, notFound, unauthorized } from '../../core/errors.js';
import {
  isBlocked,
  type PlatformState,
  type ProjectRecord,
  type TokenRecord,
  type UserRecord,
} from '../../core/state.js';
import { digest } from '../../core/store.js';
import { iget, tget, tvalues } from '../../core/table.js';
import { jobIdOfToken } from '../ci/job-tokens.js';
import { deployTokenUsername } from '../deploy_tokens/model.js';
import type { DeployTokenRecord } from '../deploy_tokens/store.js';
import { findJob, LiveJobs, type JobRef } from '../jobs/model.js';
import { groupChain } from '../projects/access.js';
import type { Project } from '../projects/record.js';

export type Actor =
  { kind: 'user'; user: UserRecord; job: JobRef | null } | { kind: 'deploy'; token: DeployTokenRecord };

export type PackageAbility = 'read_package' | 'create_package' | 'destroy_package';

export const JOB_USERNAME = 'gitlab-ci-token';

function header(c: Ctx, name: string): string | undefined {
  const v = c.req.header(name);
  return v === undefined || v === '' ? undefined : v;
}

/** A job token's job, while it runs; any other state of the job makes the token worthless (401). */
function runningJob(c: Ctx, token: TokenRecord): JobRef {
  const st = state(c);
  const id = jobIdOfToken(token.name);
  const pid = id === undefined ? undefined : iget(st.ciJobs.byId, String(id));
  const pl = pid === undefined ? undefined : tget(st.pipelines, pid);
  const ref = pl && findJob(st, pl.project_id, id!);
  if (!ref || new LiveJobs(c.get('fx').clock.ms()).of(ref).status !== 'running') throw unauthorized();
  return ref;
}

function userOf(st: PlatformState, token: TokenRecord): UserRecord {
  const user = tget(st.users, token.user_id);
  if (!user) throw unauthorized();
  if (isBlocked(user)) throw forbidden('Your account has been blocked.');
  return user;
}

/** The active deploy token with this secret (and username, for Basic auth), or undefined. */
function deployToken(c: Ctx, secret: string, username?: string): DeployTokenRecord | undefined {
  const d = digest(secret);
  const now = c.get('fx').clock.ms();
  return tvalues(state(c).deployTokens.records).find(
    (t) =>
      t.digest === d &&
      !t.revoked &&
      (t.expires_at === null || Date.parse(t.expires_at) > now) &&
      (username === undefined || deployTokenUsername(t) === username),
  );
}

export function fromJobToken(c: Ctx, secret: string): Actor {
  const t = findToken(state(c), secret);
  if (!t || t.kind !== 'job') throw unauthorized();
  const job = runningJob(c, t);
  return { kind: 'user', user: userOf(state(c), t), job };
}

/** A personal access token given as a Basic password: valid, unexpired, with a scope the route takes. */
export function fromBasicPassword(c: Ctx, secret: string): Actor {
  const t = findToken(state(c), secret);
  if (!t || (t.kind !== 'personal' && t.kind !== 'impersonation') || t.revoked) throw unauthorized();
  if (t.expires_at && c.get('fx').clock.ms() >= Date.parse(`${t.expires_at.slice(0, 10)}T00:00:00Z`))
    throw unauthorized();
  const scopes = c.req.method === 'GET' ? ['api', 'read_api'] : ['api'];
  if (!t.scopes.some((s) => scopes.includes(s))) throw insufficientScope(scopes);
  return { kind: 'user', user: userOf(state(c), t), job: null };
}

/**
 * The request's actor, or null for an anonymous request. A credential that is sent but worthless is a
 * 401, as the platform's authentication finders raise. `basic: false` for the registries that take no
 * Basic auth (npm: its tokens come as Bearer values); `basic: 'personal'` where only a personal access
 * token may be the Basic password (`basic_auth_personal_access_token` alone: the Go proxy, any username);
 * `deploy: false` where the route does not set `deploy_token_allowed`.
 */
export function packageActor(
  c: Ctx,
  o: { basic?: boolean | 'personal'; deploy?: boolean } = {},
): Actor | null {
  const viewer = c.get('viewer');
  if (viewer.token?.kind === 'job') {
    const job = runningJob(c, viewer.token);
    return { kind: 'user', user: viewer.user!, job };
  }
  if (viewer.user) return { kind: 'user', user: viewer.user, job: null };
  const authz = header(c, 'authorization');
  if (o.deploy === false) {
    if (o.basic !== 'personal' || !authz || !/^basic\s+/i.test(authz)) return null;
    const decoded = Buffer.from(authz.replace(/^basic\s+/i, '').trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0 || decoded.slice(colon + 1) === '') throw unauthorized();
    return fromBasicPassword(c, decoded.slice(colon + 1));
  }
  const deploy = header(c, 'deploy-token');
  if (deploy !== undefined) {
    const t = deployToken(c, deploy);
    if (!t) throw unauthorized();
    return { kind: 'deploy', token: t };
  }
  // `deploy_token_from_request` reads a Bearer value too; the core passed over one it did not know.
  if (authz && /^bearer\s+/i.test(authz)) {
    const t = deployToken(c, authz.replace(/^bearer\s+/i, '').trim());
    if (!t) throw unauthorized();
    return { kind: 'deploy', token: t };
  }
  if (o.basic === false) return null;
  if (authz && /^basic\s+/i.test(authz)) {
    const decoded = Buffer.from(authz.replace(/^basic\s+/i, '').trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw unauthorized();
    const username = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    if (password === '') throw unauthorized();
    if (username === JOB_USERNAME) return fromJobToken(c, password);
    const t = deployToken(c, password, username);
    if (t) return { kind: 'deploy', token: t };
    return fromBasicPassword(c, password);
  }
  return null;
}

/** Whether a deploy token reaches a project: its own, or any in its group's tree. */
function tokenReaches(st: PlatformState, t: DeployTokenRecord, project: ProjectRecord): boolean {
  if (t.owner === 'project') return t.owner_id === project.id;
  return groupChain(st, project as Project).some((g) => g.id === t.owner_id);
}

/** `find_project!` for an actor: missing and unreadable answer the same 404. */
export function projectForActor(c: Ctx, actor: Actor | null, idOrPath: string): ProjectRecord {
  const st = state(c);
  const p = lookupProject(st, idOrPath);
  const readable =
    p !== undefined &&
    (actor?.kind === 'deploy'
      ? tokenReaches(st, actor.token, p) &&
        (actor.token.scopes.includes('read_package_registry') ||
          actor.token.scopes.includes('write_package_registry') ||
          actor.token.scopes.includes('read_repository'))
      : canReadProject(st, actor?.user ?? null, p));
  if (!readable) throw notFound('Project', 'no project with this id or path for this credential');
  return p;
}

/** ProjectPolicy's package abilities for an actor on a readable project. */
export function canPackage(
  st: PlatformState,
  actor: Actor | null,
  project: ProjectRecord,
  ability: PackageAbility,
): boolean {
  if (!(project as Project).packages_enabled) return false;
  if (actor?.kind === 'deploy') {
    if (!tokenReaches(st, actor.token, project)) return false;
    const scopes = actor.token.scopes;
    if (ability === 'read_package')
      return scopes.includes('read_package_registry') || scopes.includes('write_package_registry');
    return ability === 'create_package' && scopes.includes('write_package_registry');
  }
  const user = actor?.user ?? null;
  if (user?.admin) return true;
  const level = projectAccess(st, user, project);
  if (ability === 'read_package')
    return (
      level >= ACCESS.REPORTER ||
      project.visibility === 'public' ||
      (project.visibility === 'internal' && user !== null && !user.external)
    );
  return level >= (ability === 'create_package' ? ACCESS.DEVELOPER : ACCESS.MAINTAINER);
}

export function authorizePackage(
  c: Ctx,
  actor: Actor | null,
  project: ProjectRecord,
  ability: PackageAbility,
): void {
  if (!canPackage(state(c), actor, project, ability)) throw forbidden();
}

/**
 * A bare token in the `Authorization` header (`sent_through(:http_token)`, what `gem push` sends): a
 * personal access token, a deploy token or a job token (`token_types(:personal_access_token,
 * :deploy_token, :job_token)`); none of them is a 401.
 */
export function actorFromHttpToken(c: Ctx, secret: string): Actor {
  const t = findToken(state(c), secret);
  if (t?.kind === 'job') return fromJobToken(c, secret);
  if (t) return fromBasicPassword(c, secret);
  const deploy = deployToken(c, secret);
  if (deploy) return { kind: 'deploy', token: deploy };
  throw unauthorized();
}
