/**
 * Doorkeeper's response bodies and headers: token responses, error responses (`{error,
 * error_description[, state]}`, 401 for invalid_client, 400 otherwise) and the redirect URIs it builds.
 */
import type { Ctx } from '../../core/context.js';

/** Doorkeeper's messages as the platform's locale file words them. */
export const DESCRIPTIONS = {
  invalid_request:
    'The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.',
  invalid_redirect_uri: 'The redirect URI included is not valid.',
  unauthorized_client: 'The client is not authorized to perform this request using this method.',
  access_denied: 'The resource owner or authorization server denied the request.',
  invalid_scope: 'The requested scope is invalid, unknown, or malformed.',
  invalid_code_challenge_method: 'The code challenge method must be plain or S256.',
  unsupported_response_type: 'The authorization server does not support this response type.',
  invalid_client:
    'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
  invalid_grant:
    'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
  unsupported_grant_type: 'The authorization grant type is not supported by the authorization server.',
} as const;

export type OAuthErrorName = keyof typeof DESCRIPTIONS;

/** A failed OAuth request, with Doorkeeper's error name and the request's `state` where it echoes it. */
export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorName,
    readonly state?: string,
  ) {
    super(DESCRIPTIONS[error]);
    this.name = 'OAuthError';
  }

  get status(): 400 | 401 {
    return this.error === 'invalid_client' ? 401 : 400;
  }

  /** `ErrorResponse#body`: blank values dropped. */
  body(): Record<string, string> {
    const b: Record<string, string> = { error: this.error, error_description: DESCRIPTIONS[this.error] };
    if (this.state) b.state = this.state;
    return b;
  }
}

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

/** A JSON answer of the OAuth endpoints (Doorkeeper's content type, never cached). */
export function oauthJson(
  c: Ctx,
  body: unknown,
  status: number,
  headers: Record<string, string> = NO_STORE,
): Response {
  return c.newResponse(JSON.stringify(body), status as 200, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
  });
}

function authenticateHeader(error: string, description: string): string {
  return `Bearer realm="Doorkeeper", error="${error}", error_description="${description}"`;
}

export function oauthErrorResponse(c: Ctx, e: OAuthError): Response {
  return oauthJson(c, e.body(), e.status, {
    ...NO_STORE,
    'WWW-Authenticate': authenticateHeader(e.error, DESCRIPTIONS[e.error]),
  });
}

/** `InvalidTokenResponse`: what token info answers for a token it cannot use. */
export function invalidTokenResponse(c: Ctx): Response {
  const description = 'The access token is invalid';
  return oauthJson(
    c,
    { error: 'invalid_token', error_description: description, state: 'unauthorized' },
    401,
    { ...NO_STORE, 'WWW-Authenticate': authenticateHeader('invalid_token', description) },
  );
}

export function tokenSuccess(c: Ctx, body: unknown): Response {
  return oauthJson(c, body, 200);
}

/** `URI.encode_www_form_component`, as Rack's `build_query` escapes. */
export function formEscape(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()~]/g, (ch) => '%' + ch.charCodeAt(0).toString(16).toUpperCase())
    .replace(/%20/g, '+');
}

function formUnescape(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** `Rack::Utils.build_query` of the pairs whose value is not blank. */
function buildQuery(pairs: [string, string | null | undefined][]): string {
  return pairs
    .filter((p): p is [string, string] => p[1] !== null && p[1] !== undefined && p[1] !== '')
    .map(([k, v]) => `${formEscape(k)}=${formEscape(v)}`)
    .join('&');
}

/** `URIBuilder.uri_with_query`: the URI's own query kept, the parameters merged into it. */
export function uriWithQuery(uri: string, params: Record<string, string | null | undefined>): string {
  const hash = uri.indexOf('#');
  const fragment = hash < 0 ? '' : uri.slice(hash);
  const noFragment = hash < 0 ? uri : uri.slice(0, hash);
  const q = noFragment.indexOf('?');
  const base = q < 0 ? noFragment : noFragment.slice(0, q);
  const merged = new Map<string, string>();
  if (q >= 0)
    for (const part of noFragment.slice(q + 1).split(/[&;]/)) {
      if (!part) continue;
      const eq = part.indexOf('=');
      merged.set(
        formUnescape(eq < 0 ? part : part.slice(0, eq)),
        eq < 0 ? '' : formUnescape(part.slice(eq + 1)),
      );
    }
  for (const [k, v] of Object.entries(params)) if (v !== undefined) merged.set(k, v ?? '');
  const query = buildQuery([...merged]);
  return `${base}${query ? `?${query}` : ''}${fragment}`;
}

/** `URIBuilder.uri_with_fragment`: the parameters replace the URI's fragment. */
export function uriWithFragment(uri: string, params: Record<string, string | null | undefined>): string {
  const hash = uri.indexOf('#');
  const base = hash < 0 ? uri : uri.slice(0, hash);
  return `${base}#${buildQuery(Object.entries(params))}`;
}

export const redirect = (c: Ctx, location: string) => c.newResponse(null, 302, { Location: location });
