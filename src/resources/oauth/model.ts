/**
 * The OAuth provider's records and rules, as Doorkeeper 5.3 configured by the platform has them:
 * applications, authorization codes, access and refresh tokens, scopes and client authentication.
 */
import { createHash } from 'node:crypto';
import type { Draft } from 'immer';
import { nextId, type PlatformState, type TokenRecord } from '../../core/state.js';
import { digest } from '../../core/store.js';
import { idelete, iget, iset, madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import { addToken } from '../users/model.js';
import type { OAuthApplicationRecord, OAuthGrantRecord, OAuthTokenRecord } from './store.js';

type S = Draft<PlatformState>;

/** Every scope the server knows (`Gitlab::Auth` available scopes plus OpenID Connect's). */
export const SERVER_SCOPES = [
  'api',
  'read_user',
  'read_api',
  'read_repository',
  'write_repository',
  'read_registry',
  'write_registry',
  'sudo',
  'openid',
  'profile',
  'email',
];
/** `Gitlab::Auth::DEFAULT_SCOPES`. */
export const DEFAULT_SCOPES = ['api'];
/** Scopes personal and impersonation tokens may carry (`Gitlab::Auth.all_available_scopes`). */
export const TOKEN_SCOPES = SERVER_SCOPES.slice(0, 8);

/** Lifetime of access tokens from the code, password and refresh grants (seconds). */
export const ACCESS_TOKEN_TTL = 7200;
/** Lifetime of implicit-grant tokens, as the spec's implicit example shows it. */
export const IMPLICIT_TOKEN_TTL = 3600;
/** Doorkeeper's default `authorization_code_expires_in`. */
export const GRANT_TTL = 600;

/** Doorkeeper's `OAuth::Scopes.from_string`: whitespace-separated, duplicates dropped, order kept. */
export function parseScopes(s: string | null | undefined): string[] {
  return [...new Set((s ?? '').split(/\s+/).filter((x) => x !== ''))];
}

/**
 * Doorkeeper's `ScopeChecker.valid?`: a non-blank scope string without control whitespace, every scope of
 * which the application has (the server's scopes when the application lists none).
 */
export function scopesValid(scopeStr: string, appScopes: readonly string[]): boolean {
  if (scopeStr.trim() === '' || /[\n\r\t]/.test(scopeStr)) return false;
  const allowed = appScopes.length > 0 ? appScopes : SERVER_SCOPES;
  return parseScopes(scopeStr).every((s) => allowed.includes(s));
}

/** The scopes a request gets when it names none: the defaults the application also has. */
export function defaultScopesFor(app: OAuthApplicationRecord | undefined): string[] {
  if (!app || app.scopes.length === 0) return [...DEFAULT_SCOPES];
  return DEFAULT_SCOPES.filter((s) => app.scopes.includes(s));
}

/**
 * A token string: 64 hex digits like Doorkeeper's `:hex` generator, derived from the record id and the
 * instance clock so that a scenario replays byte for byte.
 */
export function hexSecret(kind: string, id: number, ms: number, salt = ''): string {
  return createHash('sha256').update(`fauxlab:${kind}:${id}:${ms}:${salt}`).digest('hex');
}

export const redirectUris = (app: OAuthApplicationRecord) => app.redirect_uri.split(/\s+/).filter(Boolean);

export function applicationByUid(st: PlatformState, uid: string): OAuthApplicationRecord | undefined {
  const id = iget(st.identity.idx.appUids, uid);
  return id === undefined ? undefined : tget(st.identity.applications, id);
}

/**
 * Doorkeeper's `Application.by_uid_and_secret`: a public client may leave its secret out; otherwise the
 * secret must match.
 */
export function authenticateClient(
  st: PlatformState,
  uid: string,
  secret: string | undefined,
): OAuthApplicationRecord | undefined {
  const app = applicationByUid(st, uid);
  if (!app) return undefined;
  if ((secret === undefined || secret === '') && !app.confidential) return app;
  return secret !== undefined && digest(secret) === app.secret_digest ? app : undefined;
}

export interface NewApplication {
  name: string;
  uid: string;
  secret_digest: string;
  redirect_uri: string;
  scopes: string[];
  confidential: boolean;
  trusted: boolean;
  owner_id: number | null;
}

export function createApplication(st: S, input: NewApplication, now: string): number {
  const id = nextId(st, 'oauth_applications');
  tset(st.identity.applications, id, { id, ...input, created_at: now });
  iset(st.identity.idx.appUids, input.uid, id);
  return id;
}

/** Removes a core token record with its indexes. */
function dropToken(st: S, id: number): void {
  const t = tget(st.tokens, id);
  if (!t) return;
  idelete(st.idx.tokens, t.digest);
  mremove(st.idx.tokensByUser, String(t.user_id), id);
  tdelete(st.tokens, id);
}

/** Deletes an application with its grants and tokens (Doorkeeper's `dependent: :delete_all`). */
export function deleteApplication(st: S, appId: number): void {
  const app = tget(st.identity.applications, appId);
  if (!app) return;
  const ix = st.identity.idx;
  for (const id of mget(ix.grantsBy, `a${appId}`)) {
    const g = tget(st.identity.grants, id)!;
    idelete(ix.grants, g.digest);
    tdelete(st.identity.grants, id);
  }
  idelete(ix.grantsBy, `a${appId}`);
  for (const id of mget(ix.tokensBy, `a${appId}`)) {
    const o = tget(st.identity.oauthTokens, id);
    if (o?.refresh_digest) idelete(ix.refresh, o.refresh_digest);
    if (o?.user_id != null) mremove(ix.tokensBy, `${appId}:${o.user_id}`, id);
    tdelete(st.identity.oauthTokens, id);
    dropToken(st, id);
  }
  idelete(ix.tokensBy, `a${appId}`);
  idelete(ix.appUids, app.uid);
  tdelete(st.identity.applications, appId);
}

export interface NewGrant {
  application_id: number;
  user_id: number;
  redirect_uri: string;
  scopes: string[];
  code_challenge: string | null;
  code_challenge_method: string | null;
}

/** Stores an authorization code; returns the code itself (only its digest is kept). */
export function createGrant(st: S, input: NewGrant, nowMs: number): string {
  const id = nextId(st, 'oauth_grants');
  const code = hexSecret('code', id, nowMs, `${input.application_id}:${input.user_id}`);
  const rec: OAuthGrantRecord = {
    id,
    ...input,
    digest: digest(code),
    expires_at: new Date(nowMs + GRANT_TTL * 1000).toISOString(),
    revoked: false,
    created_at: new Date(nowMs).toISOString(),
  };
  tset(st.identity.grants, id, rec);
  iset(st.identity.idx.grants, rec.digest, id);
  madd(st.identity.idx.grantsBy, `a${input.application_id}`, id);
  return code;
}

export function grantByCode(st: PlatformState, code: string): OAuthGrantRecord | undefined {
  const id = iget(st.identity.idx.grants, digest(code));
  return id === undefined ? undefined : tget(st.identity.grants, id);
}

export interface NewAccessToken {
  application: OAuthApplicationRecord | null;
  user_id: number | null;
  scopes: string[];
  expires_in: number | null;
  refresh: boolean;
}

export interface IssuedToken {
  id: number;
  token: string;
  refreshToken: string | null;
}

/** Issues an access token (and a refresh token when asked); returns the secrets, which are not kept. */
export function issueAccessToken(st: S, input: NewAccessToken, nowMs: number): IssuedToken {
  const now = new Date(nowMs).toISOString();
  // The id is known before the core record exists: token strings derive from it.
  const id = (st.seq.tokens ?? 0) + 1;
  // The owner and client are mixed in so that a token kept across a reset never matches another's.
  const salt = `${input.application?.id ?? ''}:${input.user_id ?? ''}`;
  const token = hexSecret('access', id, nowMs, salt);
  const refreshToken = input.refresh ? hexSecret('refresh', id, nowMs, salt) : null;
  const made = addToken(
    st,
    {
      // A client-credentials token has no resource owner: user 0 exists nowhere, so the API refuses it.
      user_id: input.user_id ?? 0,
      token,
      kind: 'oauth',
      name: input.application?.name ?? 'oauth',
      scopes: input.scopes,
      expires_at: input.expires_in === null ? null : new Date(nowMs + input.expires_in * 1000).toISOString(),
    },
    now,
  );
  if (made !== id) throw new Error('token id out of step');
  const appId = input.application?.id ?? null;
  tset(st.identity.oauthTokens, id, {
    id,
    application_id: appId,
    user_id: input.user_id,
    refresh_digest: refreshToken ? digest(refreshToken) : null,
    expires_in: input.expires_in,
    created_at: now,
  });
  if (refreshToken) iset(st.identity.idx.refresh, digest(refreshToken), id);
  if (appId !== null) {
    madd(st.identity.idx.tokensBy, `a${appId}`, id);
    if (input.user_id !== null) madd(st.identity.idx.tokensBy, `${appId}:${input.user_id}`, id);
  }
  return { id, token, refreshToken };
}

export interface OAuthToken {
  core: TokenRecord;
  oauth: OAuthTokenRecord;
}

function pair(st: PlatformState, id: number | undefined): OAuthToken | undefined {
  if (id === undefined) return undefined;
  const core = tget(st.tokens, id);
  const oauth = tget(st.identity.oauthTokens, id);
  return core && oauth && core.kind === 'oauth' ? { core, oauth } : undefined;
}

/** An access token by its secret. */
export function accessTokenBySecret(st: PlatformState, secret: string): OAuthToken | undefined {
  return pair(st, iget(st.idx.tokens, digest(secret)));
}

/** The access token a refresh token belongs to. */
export function tokenByRefresh(st: PlatformState, refresh: string): OAuthToken | undefined {
  return pair(st, iget(st.identity.idx.refresh, digest(refresh)));
}

export function tokenExpired(t: OAuthToken, nowMs: number): boolean {
  return t.core.expires_at !== null && nowMs >= Date.parse(t.core.expires_at);
}

/** Doorkeeper's `accessible?`: neither revoked nor expired. */
export const tokenAccessible = (t: OAuthToken, nowMs: number) => !t.core.revoked && !tokenExpired(t, nowMs);

/** Doorkeeper's `expires_in_seconds`: what is left of the lifetime, never below 0. */
export function expiresInSeconds(t: OAuthToken, nowMs: number): number | null {
  if (t.core.expires_at === null) return null;
  return Math.max(0, Math.round((Date.parse(t.core.expires_at) - nowMs) / 1000));
}

export function revokeToken(st: S, id: number): void {
  const t = tget(st.tokens, id);
  if (t) t.revoked = true;
}

/**
 * Doorkeeper's `matching_token_for`: a token not revoked that the user already gave this application,
 * with exactly these scopes. Consent is not asked again then.
 */
export function hasMatchingToken(
  st: PlatformState,
  app: OAuthApplicationRecord,
  userId: number,
  scopes: readonly string[],
): boolean {
  if (!scopesValid(scopes.join(' '), app.scopes) && scopes.length > 0) return false;
  const want = [...scopes].sort().join(' ');
  return mget(st.identity.idx.tokensBy, `${app.id}:${userId}`).some((id) => {
    const t = tget(st.tokens, id);
    return t !== undefined && !t.revoked && [...t.scopes].sort().join(' ') === want;
  });
}

/** `TokenResponse#body`: blank values are dropped. */
export function tokenResponseBody(
  t: OAuthToken,
  issued: IssuedToken,
  nowMs: number,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    access_token: issued.token,
    token_type: 'Bearer',
    expires_in: expiresInSeconds(t, nowMs),
    refresh_token: issued.refreshToken,
    scope: t.core.scopes.join(' '),
    created_at: Math.floor(Date.parse(t.oauth.created_at) / 1000),
  };
  for (const k of Object.keys(body)) if (body[k] === null || body[k] === '') delete body[k];
  return body;
}
