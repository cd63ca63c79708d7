/**
 * Doorkeeper's pre-authorization (the checks of `/oauth/authorize` before anything is granted), its
 * redirect URI matching, and what Authorize and Deny send the browser back with.
 */
import type { Draft } from 'immer';
import type { RawParams } from '../../core/params.js';
import type { PlatformState } from '../../core/state.js';
import { DESCRIPTIONS, OAuthError, uriWithFragment, uriWithQuery } from './doorkeeper.js';
import {
  IMPLICIT_TOKEN_TTL,
  applicationByUid,
  createGrant,
  defaultScopesFor,
  issueAccessToken,
  parseScopes,
  redirectUris,
  scopesValid,
} from './model.js';
import type { OAuthApplicationRecord } from './store.js';
import { str } from './web.js';

export interface PreAuth {
  app: OAuthApplicationRecord;
  redirectUri: string;
  responseType: 'code' | 'token';
  scopes: string[];
  state: string | undefined;
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
}

/** A pre-authorization that failed: Doorkeeper's error, and where it may send the browser. */
export class PreAuthError extends Error {
  constructor(
    readonly error: OAuthError,
    /** The redirect URI the request gave, when the error may go back to it. */
    readonly redirectUri: string | null,
    readonly fragment: boolean,
  ) {
    super(error.message);
    this.name = 'PreAuthError';
  }

  get description(): string {
    return DESCRIPTIONS[this.error.error];
  }

  /** Where Doorkeeper redirects this error, if it does. */
  location(): string | null {
    if (!this.redirectUri) return null;
    const body = this.error.body();
    return this.fragment ? uriWithFragment(this.redirectUri, body) : uriWithQuery(this.redirectUri, body);
  }
}

interface ParsedUri {
  scheme: string;
  /** Everything after `scheme:` up to the query: `//host:port/path`, or an opaque part. */
  url: URL | null;
  opaque: boolean;
  query: string | null;
  fragment: boolean;
}

function parseUri(s: string): ParsedUri | null {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/s.exec(s);
  if (!m) return null;
  const rest = m[2]!;
  const hash = rest.indexOf('#');
  const noFragment = hash < 0 ? rest : rest.slice(0, hash);
  const q = noFragment.indexOf('?');
  let url: URL | null = null;
  try {
    url = new URL(s);
  } catch {
    return null;
  }
  return {
    scheme: m[1]!.toLowerCase(),
    url,
    opaque: !rest.startsWith('/'),
    query: q < 0 ? null : noFragment.slice(q + 1),
    fragment: hash >= 0,
  };
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|\[::1\])$/;

/** `URIChecker.valid?`: absolute, not opaque, no fragment, and an http(s) URI has a host. */
function validUri(u: ParsedUri): boolean {
  if (u.scheme === 'localhost' || u.opaque || u.fragment) return false;
  if ((u.scheme === 'http' || u.scheme === 'https') && !u.url?.hostname) return false;
  return true;
}

/** `URIChecker.matches?`: the registered URI's query must match in any order; loopback ports are free. */
function uriMatches(req: ParsedUri, registered: ParsedUri): boolean {
  if (registered.query !== null) {
    if (req.query === null) return false;
    if (req.query.split('&').sort().join('&') !== registered.query.split('&').sort().join('&')) return false;
  }
  const a = req.url!;
  const b = registered.url!;
  const loopback = LOOPBACK.test(a.hostname) && LOOPBACK.test(b.hostname);
  return (
    a.protocol === b.protocol &&
    a.username === b.username &&
    a.password === b.password &&
    a.hostname.toLowerCase() === b.hostname.toLowerCase() &&
    (loopback || a.port === b.port) &&
    a.pathname === b.pathname
  );
}

/** `URIChecker.valid_for_authorization?`: the URI is a valid one and matches one of `registered`. */
export function redirectUriAllowed(uri: string, registered: readonly string[]): boolean {
  const req = parseUri(uri);
  if (!req || !validUri(req)) return false;
  return registered.some((r) => {
    const reg = parseUri(r);
    return reg !== null && reg.url !== null && uriMatches(req, reg);
  });
}

/**
 * `PreAuthorization#authorizable?`, in Doorkeeper's order: client id, client, redirect URI, response
 * type, scopes, PKCE method. Errors about the client or redirect URI never go back to the client.
 */
export function preAuthorize(st: PlatformState, params: RawParams): PreAuth {
  const clientId = str(params, 'client_id') ?? '';
  const redirectUri = str(params, 'redirect_uri') ?? '';
  const responseType = str(params, 'response_type') ?? '';
  const state = str(params, 'state') || undefined;
  const scopeParam = str(params, 'scope') ?? '';
  const codeChallenge = str(params, 'code_challenge') || null;
  const method = str(params, 'code_challenge_method') || null;
  const fragment = responseType === 'token';
  const fail = (name: ConstructorParameters<typeof OAuthError>[0], back: boolean) =>
    new PreAuthError(new OAuthError(name, state), back ? redirectUri : null, fragment);

  if (clientId.trim() === '') throw fail('invalid_request', false);
  const app = applicationByUid(st, clientId);
  if (!app) throw fail('invalid_client', false);
  if (redirectUri.trim() === '' || !redirectUriAllowed(redirectUri, redirectUris(app)))
    throw fail('invalid_redirect_uri', false);
  if (responseType.trim() === '') throw fail('invalid_request', true);
  if (responseType !== 'code' && responseType !== 'token') throw fail('unsupported_response_type', true);
  const scopeStr = scopeParam.trim() !== '' ? scopeParam : defaultScopesFor(app).join(' ');
  if (!scopesValid(scopeStr, app.scopes)) throw fail('invalid_scope', true);
  if (codeChallenge && !(method === 'plain' || method === 'S256'))
    throw fail('invalid_code_challenge_method', true);
  return {
    app,
    redirectUri,
    responseType,
    scopes: parseScopes(scopeStr),
    state,
    codeChallenge,
    codeChallengeMethod: codeChallenge ? method : null,
  };
}

/**
 * Authorize: a code in the query (code flow) or a token in the fragment (implicit flow), with `state`.
 * Returns where to send the browser.
 */
export function authorize(st: Draft<PlatformState>, p: PreAuth, userId: number, nowMs: number): string {
  if (p.responseType === 'code') {
    const code = createGrant(
      st,
      {
        application_id: p.app.id,
        user_id: userId,
        redirect_uri: p.redirectUri,
        scopes: p.scopes,
        code_challenge: p.codeChallenge,
        code_challenge_method: p.codeChallengeMethod,
      },
      nowMs,
    );
    return uriWithQuery(p.redirectUri, { code, state: p.state });
  }
  const issued = issueAccessToken(
    st,
    { application: p.app, user_id: userId, scopes: p.scopes, expires_in: IMPLICIT_TOKEN_TTL, refresh: false },
    nowMs,
  );
  return uriWithFragment(p.redirectUri, {
    access_token: issued.token,
    token_type: 'Bearer',
    expires_in: String(IMPLICIT_TOKEN_TTL),
    state: p.state,
  });
}

/** Deny: `error=access_denied` back to the client, in the query or (implicit flow) the fragment. */
export function denyLocation(p: PreAuth): string {
  const body = new OAuthError('access_denied', p.state).body();
  return p.responseType === 'token'
    ? uriWithFragment(p.redirectUri, body)
    : uriWithQuery(p.redirectUri, body);
}
