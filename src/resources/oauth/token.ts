/**
 * `POST /oauth/token`: Doorkeeper 5.3's grant strategies (authorization_code with PKCE, password,
 * refresh_token, client_credentials), each validating in Doorkeeper's order so that a request with
 * several problems gets the error Doorkeeper would report first.
 */
import { createHash } from 'node:crypto';
import type { Draft } from 'immer';
import type { Ctx } from '../../core/context.js';
import { state, write } from '../../core/context.js';
import type { RawParams } from '../../core/params.js';
import { isBlocked, type PlatformState, type UserRecord } from '../../core/state.js';
import { digest } from '../../core/store.js';
import { iget, tget } from '../../core/table.js';
import { redirectUriAllowed } from './authorize.js';
import { OAuthError } from './doorkeeper.js';
import {
  ACCESS_TOKEN_TTL,
  SERVER_SCOPES,
  authenticateClient,
  defaultScopesFor,
  grantByCode,
  issueAccessToken,
  parseScopes,
  revokeToken,
  scopesValid,
  tokenByRefresh,
  tokenResponseBody,
  type IssuedToken,
} from './model.js';
import type { OAuthApplicationRecord } from './store.js';
import { str } from './web.js';

export interface Credentials {
  uid: string;
  secret: string | undefined;
}

/** Doorkeeper's client credentials: HTTP Basic first, then `client_id`/`client_secret` params. */
export function clientCredentials(c: Ctx, params: RawParams): Credentials | null {
  const authz = c.req.header('authorization');
  const basic = authz ? /^Basic (.*)$/s.exec(authz) : null;
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const uid = colon < 0 ? decoded : decoded.slice(0, colon);
    if (uid.trim() !== '') return { uid, secret: colon < 0 ? undefined : decoded.slice(colon + 1) };
  }
  const uid = str(params, 'client_id');
  if (uid !== undefined && uid.trim() !== '') return { uid, secret: str(params, 'client_secret') };
  return null;
}

const client = (st: PlatformState, creds: Credentials | null) =>
  creds ? authenticateClient(st, creds.uid, creds.secret) : undefined;

/** Base64url SHA-256 without padding: PKCE's S256 transform. */
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** Who a username (or e-mail address) and password sign in as, if anyone; 2FA users never do here. */
export function userFromCredentials(
  st: PlatformState,
  login: string,
  password: string,
): UserRecord | undefined {
  if (login === '' || password === '') return undefined;
  const key = login.toLowerCase();
  const id = iget(st.idx.usernames, key) ?? iget(st.idx.emails, key);
  const user = id === undefined ? undefined : tget(st.users, id);
  if (!user || isBlocked(user)) return undefined;
  if (user.password_digest === null || user.password_digest !== digest(password)) return undefined;
  return user;
}

/** A validated request: what its one write does. */
interface Plan {
  write: (d: Draft<PlatformState>, nowMs: number) => IssuedToken;
}

function authorizationCode(c: Ctx, st: PlatformState, params: RawParams): Plan {
  const code = str(params, 'code') ?? '';
  if (code.trim() === '') throw new OAuthError('invalid_request', str(params, 'state') || undefined);
  const grant = grantByCode(st, code);
  const app = client(st, clientCredentials(c, params));
  const redirectUri = str(params, 'redirect_uri') ?? '';
  const verifier = str(params, 'code_verifier') ?? '';
  const nowMs = c.get('fx').clock.ms();
  if (grant?.code_challenge && verifier === '') throw new OAuthError('invalid_request');
  if (redirectUri.trim() === '') throw new OAuthError('invalid_request');
  if (!app) throw new OAuthError('invalid_client');
  if (!grant || grant.application_id !== app.id || grant.revoked || nowMs >= Date.parse(grant.expires_at))
    throw new OAuthError('invalid_grant');
  if (!redirectUriAllowed(redirectUri, [grant.redirect_uri])) throw new OAuthError('invalid_grant');
  if (grant.code_challenge || verifier !== '') {
    const ok =
      grant.code_challenge_method === 'S256'
        ? grant.code_challenge === s256(verifier)
        : grant.code_challenge_method === 'plain' && grant.code_challenge === verifier;
    if (!ok) throw new OAuthError('invalid_grant');
  }
  return {
    write: (d, ms) => {
      tget(d.identity.grants, grant.id)!.revoked = true;
      return issueAccessToken(
        d,
        {
          application: app,
          user_id: grant.user_id,
          scopes: grant.scopes,
          expires_in: ACCESS_TOKEN_TTL,
          refresh: true,
        },
        ms,
      );
    },
  };
}

function password(c: Ctx, st: PlatformState, params: RawParams): Plan {
  const app = client(st, clientCredentials(c, params));
  if (params.client_id !== undefined && params.client_id !== null && !app)
    throw new OAuthError('invalid_client');
  const user = userFromCredentials(st, str(params, 'username') ?? '', str(params, 'password') ?? '');
  if (!user || user.two_factor_enabled) throw new OAuthError('invalid_grant');
  const original = str(params, 'scope') ?? '';
  const scopes = original.trim() !== '' ? parseScopes(original) : defaultScopesFor(app);
  if (scopes.length > 0 && !scopesValid(scopes.join(' '), app?.scopes ?? []))
    throw new OAuthError('invalid_scope');
  return {
    write: (d, ms) =>
      issueAccessToken(
        d,
        { application: app ?? null, user_id: user.id, scopes, expires_in: ACCESS_TOKEN_TTL, refresh: true },
        ms,
      ),
  };
}

function refreshToken(c: Ctx, st: PlatformState, params: RawParams): Plan {
  const given = str(params, 'refresh_token') ?? '';
  const old = given === '' ? undefined : tokenByRefresh(st, given);
  const creds = clientCredentials(c, params);
  const app = client(st, creds);
  if (!old && given.trim() === '') throw new OAuthError('invalid_request');
  if (!old || old.core.revoked) throw new OAuthError('invalid_grant');
  if (creds && !app) throw new OAuthError('invalid_client');
  if (old.oauth.application_id !== null && (!app || app.id !== old.oauth.application_id))
    throw new OAuthError('invalid_grant');
  const original = str(params, 'scope') ?? str(params, 'scopes') ?? '';
  if (original.trim() !== '' && !scopesValid(original, old.core.scopes))
    throw new OAuthError('invalid_scope');
  const scopes = original.trim() !== '' ? parseScopes(original) : old.core.scopes;
  const owner: OAuthApplicationRecord | null =
    old.oauth.application_id === null
      ? null
      : (tget(st.identity.applications, old.oauth.application_id) ?? null);
  return {
    write: (d, ms) => {
      // The refresh token and its access token are one record: both stop working.
      revokeToken(d, old.core.id);
      return issueAccessToken(
        d,
        {
          application: owner,
          user_id: old.oauth.user_id,
          scopes,
          expires_in: ACCESS_TOKEN_TTL,
          refresh: true,
        },
        ms,
      );
    },
  };
}

function clientCredentialsGrant(c: Ctx, st: PlatformState, params: RawParams): Plan {
  const app = client(st, clientCredentials(c, params));
  if (!app) throw new OAuthError('invalid_client');
  const original = str(params, 'scope') ?? '';
  const scopes = original.trim() !== '' ? parseScopes(original) : defaultScopesFor(app);
  if (scopes.length > 0 && !scopesValid(scopes.join(' '), app.scopes.length ? app.scopes : SERVER_SCOPES))
    throw new OAuthError('invalid_scope');
  return {
    write: (d, ms) =>
      issueAccessToken(
        d,
        { application: app, user_id: null, scopes, expires_in: ACCESS_TOKEN_TTL, refresh: false },
        ms,
      ),
  };
}

const STRATEGIES: Record<string, (c: Ctx, st: PlatformState, params: RawParams) => Plan> = {
  authorization_code: authorizationCode,
  password,
  refresh_token: refreshToken,
  client_credentials: clientCredentialsGrant,
};

/** Runs a token request; returns the token response body, or throws an OAuthError. */
export function tokenRequest(c: Ctx, params: RawParams): Record<string, unknown> {
  const grantType = str(params, 'grant_type') ?? '';
  const stateParam = str(params, 'state') || undefined;
  if (grantType.trim() === '') throw new OAuthError('invalid_request', stateParam);
  const strategy = Object.hasOwn(STRATEGIES, grantType) ? STRATEGIES[grantType] : undefined;
  if (!strategy) throw new OAuthError('unsupported_grant_type', stateParam);
  const plan = strategy(c, state(c), params);
  const nowMs = c.get('fx').clock.ms();
  const issued = write(c, (d) => plan.write(d, nowMs));
  const st = state(c);
  const token = { core: tget(st.tokens, issued.id)!, oauth: tget(st.identity.oauthTokens, issued.id)! };
  return tokenResponseBody(token, issued, nowMs);
}
