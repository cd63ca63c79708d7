/**
 * The OAuth 2.0 provider's web side: sign-in and sign-out, the authorize page (consent with Authorize
 * and Deny), the token endpoint, token info and revocation. These live outside `/api/v4`, on the
 * router's web app, and answer as Doorkeeper does.
 */
import type { Draft } from 'immer';
import type { Ctx } from '../../core/context.js';
import { state, write } from '../../core/context.js';
import type { RawParams } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import { isBlocked, nextId, type PlatformState, type UserRecord } from '../../core/state.js';
import { digest } from '../../core/store.js';
import { idelete, iget, iset, tdelete, tget, tset } from '../../core/table.js';
import { authorize, denyLocation, preAuthorize, PreAuthError, type PreAuth } from './authorize.js';
import {
  OAuthError,
  invalidTokenResponse,
  oauthErrorResponse,
  oauthJson,
  redirect,
  tokenSuccess,
  uriWithFragment,
  uriWithQuery,
} from './doorkeeper.js';
import {
  accessTokenBySecret,
  authenticateClient,
  expiresInSeconds,
  hasMatchingToken,
  revokeToken,
  tokenAccessible,
  tokenByRefresh,
} from './model.js';
import { consentPage, errorPage, signInPage } from './pages.js';
import type { WebSessionRecord } from './store.js';
import { clientCredentials, tokenRequest, userFromCredentials } from './token.js';
import {
  anonymousCookie,
  csrfRejected,
  currentSession,
  expiredSessionCookie,
  htmlPage,
  randomToken,
  readWebParams,
  sessionCookie,
  str,
  type AnonymousSession,
  type WebSession,
} from './web.js';

type S = Draft<PlatformState>;

const INVALID_LOGIN = 'Invalid login or password.';
const BLOCKED =
  'Your account has been blocked. Please contact your administrator if you think this is an error.';

/** A user who may use the web side: signed in, present and not blocked. */
function sessionUser(st: PlatformState, s: WebSession | undefined): UserRecord | undefined {
  const u = s?.kind === 'user' ? tget(st.users, s.record.user_id) : undefined;
  return u && !isBlocked(u) ? u : undefined;
}

/** Starts a signed-in session; returns the cookie value (only its digest is kept). */
function createSession(d: S, userId: number, now: string): string {
  const value = randomToken();
  const id = nextId(d, 'web_sessions');
  const rec: WebSessionRecord = {
    id,
    digest: digest(value),
    user_id: userId,
    csrf: randomToken(),
    created_at: now,
  };
  tset(d.identity.sessions, id, rec);
  iset(d.identity.idx.sessions, rec.digest, id);
  return value;
}

function endSession(d: S, id: number): void {
  const s = tget(d.identity.sessions, id);
  if (!s) return;
  idelete(d.identity.idx.sessions, s.digest);
  tdelete(d.identity.sessions, id);
}

const anonymousPart = (s: WebSession | undefined): AnonymousSession =>
  s?.kind === 'anonymous' ? { csrf: s.csrf, return_to: s.return_to } : { csrf: null, return_to: null };

/**
 * Where a signed-out browser goes, remembering where it came from in its (anonymous, signed) session
 * cookie: identical requests get identical answers, and nothing is written.
 */
function toSignIn(c: Ctx, session: WebSession | undefined, returnTo: string | null): Response {
  const res = redirect(c, '/users/sign_in');
  const anon = anonymousPart(session);
  res.headers.set('Set-Cookie', sessionCookie(anonymousCookie({ csrf: anon.csrf, return_to: returnTo })));
  return res;
}

/** The path and query of the request, for coming back to it after signing in. */
function fullPath(c: Ctx): string {
  const url = new URL(c.req.url);
  return url.pathname + url.search;
}

/** Rails' forgery protection: the form's `authenticity_token` (or `X-CSRF-Token`) of this session. */
function csrfValid(c: Ctx, session: WebSession | undefined, params: RawParams): boolean {
  const given = str(params, 'authenticity_token') ?? c.req.header('x-csrf-token');
  return session?.csrf != null && given !== undefined && given === session.csrf;
}

function signInForm(c: Ctx): Response {
  const st = state(c);
  const session = currentSession(c, st);
  if (sessionUser(st, session)) return redirect(c, '/');
  const anon = anonymousPart(session);
  if (anon.csrf) return htmlPage(c, 200, signInPage(anon.csrf));
  const csrf = randomToken();
  return htmlPage(c, 200, signInPage(csrf), {
    'Set-Cookie': sessionCookie(anonymousCookie({ csrf, return_to: anon.return_to })),
  });
}

/** Whether a login and password belong to a blocked user (who is told so rather than "invalid"). */
function blockedLogin(st: PlatformState, login: string, password: string): boolean {
  const key = login.toLowerCase();
  const id = iget(st.idx.usernames, key) ?? iget(st.idx.emails, key);
  const u = id === undefined ? undefined : tget(st.users, id);
  return (
    u !== undefined &&
    (u.state === 'blocked' || u.state === 'banned') &&
    u.password_digest === digest(password)
  );
}

async function signIn(c: Ctx): Promise<Response> {
  const params = await readWebParams(c);
  const st = state(c);
  const session = currentSession(c, st);
  if (!csrfValid(c, session, params)) return csrfRejected(c);
  const form = (
    typeof params.user === 'object' && params.user !== null && !Array.isArray(params.user) ? params.user : {}
  ) as RawParams;
  const login = str(form, 'login') ?? str(params, 'username') ?? '';
  const password = str(form, 'password') ?? str(params, 'password') ?? '';
  const user = userFromCredentials(st, login, password);
  if (!user) {
    const alert = blockedLogin(st, login, password) ? BLOCKED : INVALID_LOGIN;
    return htmlPage(c, 200, signInPage(session!.csrf!, { alert, login }));
  }
  const now = c.get('fx').clock.iso();
  const ip = c.req.header('x-forwarded-for')?.split(',')[0]?.trim() || '127.0.0.1';
  const returnTo = anonymousPart(session).return_to;
  const value = write(c, (d) => {
    if (session?.kind === 'user') endSession(d, session.record.id);
    const u = tget(d.users, user.id)!;
    u.last_sign_in_at = u.current_sign_in_at ?? now;
    u.last_sign_in_ip = u.current_sign_in_ip ?? ip;
    u.current_sign_in_at = now;
    u.current_sign_in_ip = ip;
    u.sign_in_count += 1;
    return createSession(d, user.id, now);
  });
  const res = redirect(c, returnTo ?? '/');
  res.headers.set('Set-Cookie', sessionCookie(value));
  return res;
}

function signOut(c: Ctx): Response {
  const session = currentSession(c, state(c));
  if (session?.kind === 'user') write(c, (d) => endSession(d, session.record.id));
  const res = redirect(c, '/users/sign_in');
  res.headers.set('Set-Cookie', expiredSessionCookie());
  return res;
}

async function authorizePage(c: Ctx): Promise<Response> {
  const params = await readWebParams(c);
  const st = state(c);
  const session = currentSession(c, st);
  const user = sessionUser(st, session);
  if (!user) return toSignIn(c, session, fullPath(c));
  let pre: PreAuth;
  try {
    pre = preAuthorize(st, params);
  } catch (e) {
    // The platform shows every pre-authorization problem on the page, never sending the browser back.
    if (e instanceof PreAuthError) return htmlPage(c, 200, errorPage(e.description));
    throw e;
  }
  if (pre.app.trusted || hasMatchingToken(st, pre.app, user.id, pre.scopes)) {
    const nowMs = c.get('fx').clock.ms();
    return redirect(
      c,
      write(c, (d) => authorize(d, pre, user.id, nowMs)),
    );
  }
  return htmlPage(c, 200, consentPage(pre, user, session!.csrf!));
}

/** Doorkeeper's `redirect_or_render` of a failed pre-authorization. */
function preAuthFailure(c: Ctx, e: PreAuthError): Response {
  const location = e.location();
  return location ? redirect(c, location) : oauthJson(c, e.error.body(), e.error.status, {});
}

function authorizeDecision(c: Ctx, params: RawParams, deny: boolean): Response {
  const st = state(c);
  const session = currentSession(c, st);
  if (!csrfValid(c, session, params)) return csrfRejected(c);
  const user = sessionUser(st, session);
  if (!user) return toSignIn(c, session, null);
  let pre: PreAuth;
  try {
    pre = preAuthorize(st, params);
  } catch (e) {
    if (!(e instanceof PreAuthError)) throw e;
    if (!deny || !e.redirectUri) return preAuthFailure(c, e);
    // Deny sends access_denied back whatever else is wrong, once the client and redirect URI hold.
    const body = new OAuthError('access_denied', e.error.state).body();
    return redirect(c, e.fragment ? uriWithFragment(e.redirectUri, body) : uriWithQuery(e.redirectUri, body));
  }
  if (deny) return redirect(c, denyLocation(pre));
  const nowMs = c.get('fx').clock.ms();
  return redirect(
    c,
    write(c, (d) => authorize(d, pre, user.id, nowMs)),
  );
}

async function token(c: Ctx): Promise<Response> {
  const params = await readWebParams(c);
  try {
    return tokenSuccess(c, tokenRequest(c, params));
  } catch (e) {
    if (e instanceof OAuthError) return oauthErrorResponse(c, e);
    throw e;
  }
}

/** Doorkeeper's `access_token_methods` as the platform sets them: param, Bearer header, bearer_token. */
function presentedToken(c: Ctx, params: RawParams): string | undefined {
  const param = str(params, 'access_token');
  if (param) return param;
  const authz = c.req.header('authorization');
  if (authz && /^Bearer /i.test(authz)) return authz.replace(/^Bearer /i, '');
  return str(params, 'bearer_token') || undefined;
}

async function tokenInfo(c: Ctx): Promise<Response> {
  const params = await readWebParams(c);
  const st = state(c);
  const secret = presentedToken(c, params);
  const nowMs = c.get('fx').clock.ms();
  const t = secret ? accessTokenBySecret(st, secret) : undefined;
  if (!t || !tokenAccessible(t, nowMs)) return invalidTokenResponse(c);
  const app =
    t.oauth.application_id === null ? undefined : tget(st.identity.applications, t.oauth.application_id);
  const expiresIn = expiresInSeconds(t, nowMs);
  return oauthJson(
    c,
    {
      resource_owner_id: t.oauth.user_id,
      scope: t.core.scopes,
      expires_in: expiresIn,
      application: { uid: app?.uid ?? null },
      created_at: Math.floor(Date.parse(t.oauth.created_at) / 1000),
      // Deprecated aliases the platform keeps for older clients.
      scopes: t.core.scopes,
      expires_in_seconds: expiresIn,
    },
    200,
    {},
  );
}

async function revoke(c: Ctx): Promise<Response> {
  const params = await readWebParams(c);
  const st = state(c);
  const given = str(params, 'token') ?? '';
  const t = given === '' ? undefined : (accessTokenBySecret(st, given) ?? tokenByRefresh(st, given));
  const refused = () =>
    oauthJson(
      c,
      { error: 'unauthorized_client', error_description: 'You are not authorized to revoke this token' },
      403,
      {},
    );
  if (!t) return refused();
  const app =
    t.oauth.application_id === null ? undefined : tget(st.identity.applications, t.oauth.application_id);
  if (app?.confidential) {
    const creds = clientCredentials(c, params);
    const client = creds ? authenticateClient(st, creds.uid, creds.secret) : undefined;
    if (client?.id !== app.id) return refused();
  }
  if (tokenAccessible(t, c.get('fx').clock.ms())) write(c, (d) => revokeToken(d, t.core.id));
  return oauthJson(c, {}, 200, {});
}

export function oauthRoutes(r: ApiRouter): void {
  const web = r.web;
  web.get('/users/sign_in', signInForm);
  web.post('/users/sign_in', signIn);
  web.get('/users/sign_out', signOut);
  web.post('/users/sign_out', signOut);
  web.delete('/users/sign_out', signOut);
  web.get('/oauth/authorize', authorizePage);
  // Rails forms send DELETE as a POST with `_method=delete`.
  web.post('/oauth/authorize', async (c) => {
    const params = await readWebParams(c);
    return authorizeDecision(c, params, str(params, '_method')?.toLowerCase() === 'delete');
  });
  web.delete('/oauth/authorize', async (c) => authorizeDecision(c, await readWebParams(c), true));
  web.post('/oauth/token', token);
  web.get('/oauth/token/info', tokenInfo);
  web.post('/oauth/revoke', revoke);
}
