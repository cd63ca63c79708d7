/**
 * Who a git client is (13.12's `Gitlab::Auth.find_for_git_client`): Basic credentials are tried as a
 * CI job token (`gitlab-ci-token`), an OAuth token (`oauth2`), a personal access token (any login),
 * a deploy token (its own username), then the user's password; what the credential may do follows
 * from its scopes (`abilities_for_scopes`).
 */
import { canReadProject, projectAccess } from '../../core/access.js';
import { findToken, findUser } from '../../core/auth.js';
import type { Clock } from '../../core/clock.js';
import type { GroupRecord, PlatformState, ProjectRecord, TokenRecord, UserRecord } from '../../core/state.js';
import { digest } from '../../core/store.js';
import { iget, tget, tvalues } from '../../core/table.js';
import type { DeployTokenRecord } from '../deploy_tokens/store.js';
import { deployTokenUsername } from '../deploy_tokens/model.js';
import { jobIdOfToken } from '../ci/job-tokens.js';
import { findJob, LiveJobs } from '../jobs/model.js';
import { canDownloadCode } from '../projects/access.js';
import type { Project } from '../projects/model.js';
import { setting } from '../settings/model.js';

export type Ability = 'read_project' | 'download_code' | 'push_code' | 'build_download_code';

export interface GitActor {
  user: UserRecord | null;
  deployToken: DeployTokenRecord | null;
  abilities: ReadonlySet<Ability>;
  kind: 'none' | 'build' | 'oauth' | 'personal_access_token' | 'deploy_token' | 'gitlab_or_ldap';
}

/** A credential the platform does not accept: 401 with the Basic challenge. */
export class GitAuthFailed extends Error {
  constructor(readonly missingToken = false) {
    super('HTTP Basic: Access denied');
  }
}

const FULL: Ability[] = ['read_project', 'download_code', 'push_code'];
const READ_ONLY: Ability[] = ['read_project', 'download_code'];

/** `abilities_for_scopes`. */
function abilitiesFor(scopes: readonly string[]): Set<Ability> {
  const out = new Set<Ability>();
  for (const s of scopes) {
    const add =
      s === 'api'
        ? FULL
        : s === 'read_api'
          ? READ_ONLY
          : s === 'read_repository'
            ? (['download_code'] as Ability[])
            : s === 'write_repository'
              ? (['download_code', 'push_code'] as Ability[])
              : [];
    for (const a of add) out.add(a);
  }
  return out;
}

/** The user and password of a `Basic` Authorization header, or undefined when there is none. */
export function basicCredentials(
  header: string | undefined,
): { login: string; password: string } | undefined {
  const m = header === undefined ? null : /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!m) return undefined;
  const text = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 0) return undefined;
  return { login: text.slice(0, colon), password: text.slice(colon + 1) };
}

const usable = (clock: Clock, t: TokenRecord) => {
  if (t.revoked) return false;
  if (!t.expires_at) return true;
  const at = Date.parse(t.expires_at.length === 10 ? `${t.expires_at}T00:00:00Z` : t.expires_at);
  return clock.ms() < at;
};

/** `Ci::Build.running.find_by_token`: a job token is good only while its job runs (on the instance clock). */
function jobRunning(st: PlatformState, clock: Clock, t: TokenRecord): boolean {
  const id = jobIdOfToken(t.name);
  const pid = id === undefined ? undefined : iget(st.ciJobs.byId, String(id));
  const pipeline = pid === undefined ? undefined : tget(st.pipelines, pid);
  const ref = pipeline && findJob(st, pipeline.project_id, id!);
  return !!ref && new LiveJobs(clock.ms()).of(ref).status === 'running';
}

/** Whether a deploy token belongs to the project: its own, or one of its group chain's. */
function deployTokenFor(
  st: PlatformState,
  t: DeployTokenRecord,
  project: ProjectRecord | undefined,
): boolean {
  if (!project) return false;
  if (t.owner === 'project') return t.owner_id === project.id;
  if (project.namespace_kind !== 'group') return false;
  for (let g: GroupRecord | undefined = tget(st.groups, project.namespace_id); g;) {
    if (g.id === t.owner_id) return true;
    g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id);
  }
  return false;
}

/** `find_for_git_client`: the actor the credentials name, or `GitAuthFailed`. */
export function gitActor(
  st: PlatformState,
  clock: Clock,
  login: string,
  password: string,
  project: ProjectRecord | undefined,
): GitActor {
  const none = { deployToken: null };
  const token = password === '' ? undefined : findToken(st, password);
  const userOf = (t: TokenRecord) => tget(st.users, t.user_id) ?? null;
  if (
    login === 'gitlab-ci-token' &&
    token?.kind === 'job' &&
    usable(clock, token) &&
    jobRunning(st, clock, token)
  ) {
    const user = userOf(token);
    if (user)
      return {
        ...none,
        user,
        kind: 'build',
        abilities: new Set<Ability>(['read_project', 'build_download_code']),
      };
  }
  if (login === 'oauth2' && token?.kind === 'oauth' && usable(clock, token)) {
    const user = userOf(token);
    if (user) return { ...none, user, kind: 'oauth', abilities: abilitiesFor(token.scopes) };
  }
  if (token && (token.kind === 'personal' || token.kind === 'impersonation') && usable(clock, token)) {
    const user = userOf(token);
    if (user) return { ...none, user, kind: 'personal_access_token', abilities: abilitiesFor(token.scopes) };
  }
  if (login !== '' && password !== '') {
    const d = digest(password);
    for (const t of tvalues(st.deployTokens.records)) {
      if (t.digest !== d || t.revoked || deployTokenUsername(t) !== login) continue;
      if (t.expires_at && clock.ms() >= Date.parse(t.expires_at)) continue;
      if (!deployTokenFor(st, t, project)) continue;
      const abilities = new Set<Ability>();
      if (t.scopes.includes('read_repository')) abilities.add('download_code');
      return { user: null, deployToken: t, kind: 'deploy_token', abilities };
    }
  }
  const user = login === '' ? undefined : (findUser(st, login) ?? byEmail(st, login));
  if (user && user.password_digest !== null && user.password_digest === digest(password)) {
    // A user with two-factor authentication must use a token for git over HTTP.
    if (user.two_factor_enabled) throw new GitAuthFailed(true);
    if (setting(st, 'password_authentication_enabled_for_git') !== false)
      return { ...none, user, kind: 'gitlab_or_ldap', abilities: new Set(FULL) };
  }
  throw new GitAuthFailed(setting(st, 'password_authentication_enabled_for_git') === false);
}

function byEmail(st: PlatformState, login: string): UserRecord | undefined {
  if (!login.includes('@')) return undefined;
  const lower = login.toLowerCase();
  for (const u of tvalues(st.users)) if (u.email.toLowerCase() === lower) return u;
  return undefined;
}

/** `Users::Anonymous.can?(:download_code)`: a public project with a public repository. */
export const anonymousCanDownload = (p: Project) => canDownloadCode(p, null, 0);

/** `GitAccess#can_read_project?` for an actor. */
export function actorCanRead(st: PlatformState, a: GitActor, p: Project): boolean {
  if (a.deployToken) return true;
  if (!a.user) return anonymousCanDownload(p);
  return canReadProject(st, a.user, p);
}

/** `user_can_download_code? || build_can_download_code? || deploy_token? || guest_can_download_code?`. */
export function actorCanDownload(st: PlatformState, a: GitActor, p: Project): boolean {
  if (a.deployToken) return a.abilities.has('download_code');
  if (!a.user) return anonymousCanDownload(p);
  const can = canDownloadCode(p, a.user, projectAccess(st, a.user, p));
  return can && (a.abilities.has('download_code') || a.abilities.has('build_download_code'));
}
