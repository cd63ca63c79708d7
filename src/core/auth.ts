/**
 * Who is asking: token lookup in the platform's order, token validation (expiry, revocation,
 * impersonation, scopes) with its exact bodies, blocked users, and sudo.
 */
import { forbidden, insufficientScope, invalidToken, notFound, unauthorized } from './errors.js';
import type { Ctx, Fx, Viewer } from './context.js';
import { isBlocked, type PlatformState, type TokenRecord, type UserRecord } from './state.js';
import { digest } from './store.js';
import { iget, tget } from './table.js';

export interface AuthOptions {
  /** `optional`: anonymous allowed; `required`: authenticate!; `admin`: authenticated_as_admin! */
  auth: 'optional' | 'required' | 'admin';
  /**
   * Scopes a token may carry for this route (the platform's allow_access_with_scope, already per method);
   * `any`: every scope (`allow_access_with_scope(Gitlab::Auth.all_available_scopes)`).
   */
  scopes: string[] | 'any';
  /** Route accepts CI job tokens (`JOB-TOKEN`, `job_token`, and as a Bearer value). */
  jobToken: boolean;
  /**
   * Route accepts deploy tokens (`deploy_token_allowed`), as a `Deploy-Token` header or a Bearer value: a
   * Bearer value that names no token is left to the route's area, which knows deploy tokens.
   */
  deployToken?: boolean;
}

const EXPIRED = 'Token is expired. You can either do re-authorization or token refresh.';
const REVOKED = 'Token was revoked. You have to re-authorize from the user.';
const IMPERSONATION_DISABLED = 'Token is an impersonation token but impersonation was disabled.';

/** Scopes that open a route: `api` always, `read_api` on reads, plus the route's own read scopes. */
export function allowedScopes(method: string, extraReadScopes: string[] = []): string[] {
  const read = method === 'GET' || method === 'HEAD';
  return read ? ['api', 'read_api', ...extraReadScopes] : ['api'];
}

function paramString(v: unknown): string | undefined {
  if (typeof v === 'string' && v !== '') return v;
  if (Array.isArray(v)) return paramString(v[v.length - 1]);
  return undefined;
}

/** The token with this secret. */
export function findToken(state: PlatformState, secret: string): TokenRecord | undefined {
  const id = iget(state.idx.tokens, digest(secret));
  return id === undefined ? undefined : tget(state.tokens, id);
}

/**
 * A secret an instance was sent: its digest, and the token it named in the tables it was last looked up
 * in (kept while those tables stand: immutable, so the same tables give the same token).
 */
interface KnownSecret {
  readonly digest: string;
  index: unknown;
  table: unknown;
  token: TokenRecord | undefined;
}

/** The secrets each instance was sent lately: clients send the same few tokens on every request. */
const knownSecrets = new WeakMap<Fx, Map<string, KnownSecret>>();
const KNOWN_SECRETS = 256;

/** `findToken` for a request of `fx`: the digest and the lookup done once per secret and tables. */
function lookupToken(fx: Fx, st: PlatformState, secret: string): TokenRecord | undefined {
  let known = knownSecrets.get(fx);
  if (!known) knownSecrets.set(fx, (known = new Map()));
  let k = known.get(secret);
  if (k === undefined) {
    // Bounded: a client trying many tokens starts the cache over rather than growing it.
    if (known.size >= KNOWN_SECRETS) known.clear();
    k = { digest: digest(secret), index: undefined, table: undefined, token: undefined };
    known.set(secret, k);
  }
  if (k.index !== st.idx.tokens || k.table !== st.tokens) {
    const id = iget(st.idx.tokens, k.digest);
    k.token = id === undefined ? undefined : tget(st.tokens, id);
    k.index = st.idx.tokens;
    k.table = st.tokens;
  }
  return k.token;
}

/** Finds a user by numeric id or by username (case-insensitive), as the platform's `find_user` does. */
export function findUser(state: PlatformState, idOrUsername: string | number): UserRecord | undefined {
  const s = String(idOrUsername);
  if (/^\d+$/.test(s)) return tget(state.users, Number(s));
  const id = iget(state.idx.usernames, s.toLowerCase());
  return id === undefined ? undefined : tget(state.users, id);
}

function expiredAt(t: TokenRecord, now: number): boolean {
  if (!t.expires_at) return false;
  // Personal tokens carry a date and stop working when that day begins.
  return now >= Date.parse(t.expires_at.length === 10 ? `${t.expires_at}T00:00:00Z` : t.expires_at);
}

// The clock is read only for a token that expires: an answer that read it is not replayed later.
const tokenExpired = (c: Ctx, t: TokenRecord): boolean =>
  t.expires_at ? expiredAt(t, c.get('fx').clock.ms()) : false;

function validateToken(c: Ctx, t: TokenRecord, scopes: string[] | 'any'): void {
  if (tokenExpired(c, t)) throw invalidToken(EXPIRED);
  if (t.revoked) throw invalidToken(REVOKED);
  if (t.kind === 'impersonation' && !c.get('fx').impersonationEnabled)
    throw invalidToken(IMPERSONATION_DISABLED);
  if (scopes !== 'any' && !t.scopes.some((s) => scopes.includes(s))) throw insufficientScope(scopes);
}

function header(c: Ctx, name: string): string | undefined {
  const v = c.req.header(name);
  return v === undefined || v === '' ? undefined : v;
}

/** Reads the credential a request carries, in the platform's order. */
function locateToken(c: Ctx, opts: AuthOptions): TokenRecord | null {
  const fx = c.get('fx');
  const st = fx.store.state;
  const params = c.get('params');
  const authz = header(c, 'authorization');
  const bearer = authz && /^bearer\s+/i.test(authz) ? authz.replace(/^bearer\s+/i, '').trim() : undefined;
  const oauth = bearer ?? paramString(params.access_token) ?? paramString(params.bearer_token);
  const pat = paramString(params.private_token) ?? header(c, 'private-token');

  if (oauth !== undefined) {
    const t = lookupToken(fx, st, oauth);
    if (t?.kind === 'oauth') return t;
    // A personal token sent as a Bearer value is a personal token, unless a private token is also sent.
    if (t && (t.kind === 'personal' || t.kind === 'impersonation') && pat === undefined) return t;
    // `find_user_from_job_bearer_token`: a route that takes job tokens takes one as a Bearer value.
    if (t?.kind === 'job' && opts.jobToken && bearer !== undefined && pat === undefined) return t;
    // `deploy_token_from_request` reads the Bearer value too: the area looks it up.
    if (pat === undefined && !(opts.deployToken && bearer !== undefined && !t)) throw unauthorized();
  }
  if (pat !== undefined) {
    const t = lookupToken(fx, st, pat);
    if (!t || (t.kind !== 'personal' && t.kind !== 'impersonation')) throw unauthorized();
    return t;
  }
  if (opts.jobToken) {
    const job = header(c, 'job-token') ?? paramString(params.job_token);
    if (job !== undefined) {
      const t = lookupToken(fx, st, job);
      if (!t || t.kind !== 'job') throw unauthorized();
      return t;
    }
  }
  return null;
}

/**
 * The message the platform gives a user who may not use the API (`Gitlab::Auth::UserAccessDeniedReason`):
 * a deactivated user is sent to the web sign-in, which is the one way back to active.
 */
function accessDeniedReason(c: Ctx, user: UserRecord): string | null {
  // `rejection_type` asks for the pending approval before the plain block.
  if (user.state === 'blocked_pending_approval')
    return 'Your account is pending approval from your administrator and hence blocked.';
  if (isBlocked(user)) return 'Your account has been blocked.';
  if (user.state === 'deactivated')
    return `Your account has been deactivated by your administrator. Please log back in from a web browser to reactivate your account at ${c.get('fx').baseUrl ?? new URL(c.req.url).origin}`;
  return null;
}

/** Resolves the viewer of a request; throws the platform's error for any bad credential. */
export function resolveViewer(c: Ctx, opts: AuthOptions): Viewer {
  const st = c.get('fx').store.state;
  const token = locateToken(c, opts);
  let user: UserRecord | null = null;
  if (token) {
    if (token.kind !== 'job') validateToken(c, token, opts.scopes);
    else if (tokenExpired(c, token) || token.revoked) throw unauthorized();
    user = tget(st.users, token.user_id) ?? null;
    if (!user) throw unauthorized();
    const reason = accessDeniedReason(c, user);
    if (reason) throw forbidden(reason);
  }

  const sudo = paramString(c.get('params').sudo) ?? header(c, 'sudo');
  if (sudo === undefined) return { user, token, sudoFrom: null };
  if (!user) throw unauthorized();
  if (!user.admin) throw forbidden('Must be admin to use sudo');
  if (!token || token.kind === 'job')
    throw forbidden('Must be authenticated using an OAuth or Personal Access Token to use sudo');
  if (!token.scopes.includes('sudo')) throw insufficientScope(['sudo']);
  const target = findUser(st, sudo);
  if (!target) throw notFound(`User with ID or username '${sudo}'`, `sudo: no user ${sudo}`);
  return { user: target, token, sudoFrom: user };
}

/** `authenticate!` */
export function requireUser(c: Ctx): UserRecord {
  const u = c.get('viewer').user;
  if (!u) throw unauthorized();
  return u;
}

/** `authenticated_as_admin!` */
export function requireAdmin(c: Ctx): UserRecord {
  const u = requireUser(c);
  if (!u.admin) throw forbidden();
  return u;
}

export const isAdmin = (c: Ctx) => c.get('viewer').user?.admin === true;

/**
 * The user a request's API credential names, found without failing, as Rack::Attack's
 * `authenticated_user_id([:api])` does before the request reaches the API (`Gitlab::RackAttack::Request`):
 * a personal, impersonation or OAuth token in the `Private-Token` or `Authorization: Bearer` header or
 * the `private_token` / `access_token` query param, or a CI job token. A credential that would fail
 * authentication (unknown, expired, revoked, a blocked user) names nobody: the request is throttled as
 * unauthenticated.
 */
export function credentialUserId(fx: Fx, request: Request): number | null {
  const st = fx.store.state;
  const h = request.headers;
  const q = request.url.includes('?') ? new URL(request.url).searchParams : undefined;
  const authz = h.get('authorization') ?? '';
  const bearer = /^bearer\s+/i.test(authz) ? authz.replace(/^bearer\s+/i, '').trim() : '';
  const secrets = [
    h.get('private-token'),
    bearer,
    q?.get('private_token'),
    q?.get('access_token'),
    h.get('job-token'),
    q?.get('job_token'),
  ];
  const now = fx.clock.ms();
  for (const s of secrets) {
    if (!s) continue;
    const t = lookupToken(fx, st, s);
    if (!t || t.revoked || expiredAt(t, now)) continue;
    const user = tget(st.users, t.user_id);
    if (user && user.state !== 'blocked' && user.state !== 'ldap_blocked') return user.id;
  }
  return null;
}
