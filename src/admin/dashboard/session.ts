/**
 * The dashboard's sign-in for an instance with an admin token: the token, given once in a form, buys a
 * random session id kept in an HttpOnly, SameSite=Strict cookie, so that the page's script never holds
 * the token. The control plane accepts that cookie as it accepts the bearer token (see `admits`).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import type { Binding, Fauxlab } from '../../host/instance.js';

export const COOKIE = 'fauxlab_session';
/** Sessions last a working day; a browser left open longer signs in again. */
export const SESSION_SECONDS = 12 * 60 * 60;
/** Sessions an instance keeps: a new one past this evicts the oldest, so sign-ins cannot fill memory. */
const MAX_SESSIONS = 64;

const sha256 = (s: string) => createHash('sha256').update(s).digest();

/** Per instance: session id digest -> expiry (wall-clock ms). Only digests are kept. */
const sessions = new WeakMap<Fauxlab, Map<string, number>>();

function sessionsOf(instance: Fauxlab): Map<string, number> {
  let m = sessions.get(instance);
  if (!m) sessions.set(instance, (m = new Map()));
  return m;
}

const idDigest = (id: string) => sha256(id).toString('hex');

/** Starts a session; returns the id for the cookie. */
export function startSession(instance: Fauxlab): string {
  const m = sessionsOf(instance);
  const now = Date.now();
  for (const [k, exp] of m) if (exp <= now) m.delete(k);
  while (m.size >= MAX_SESSIONS) m.delete(m.keys().next().value!);
  const id = randomBytes(32).toString('base64url');
  m.set(idDigest(id), now + SESSION_SECONDS * 1000);
  return id;
}

export function endSession(instance: Fauxlab, id: string | undefined): void {
  if (id) sessionsOf(instance).delete(idDigest(id));
}

/** Whether the request carries a live session cookie of its instance. */
export function hasSession(c: Context): boolean {
  const id = getCookie(c, COOKIE);
  if (!id || id.length > 100) return false;
  const m = sessionsOf(bindingOf(c).instance);
  const key = idDigest(id);
  const exp = m.get(key);
  if (exp === undefined) return false;
  if (exp > Date.now()) return true;
  m.delete(key);
  return false;
}

export const bindingOf = (c: Context): Binding => (c.env as { fauxlab: Binding }).fauxlab;

/** The dashboard's own routes that answer without a credential: sign-in, sign-out and static assets. */
const PUBLIC = new Set([
  '/__fauxlab/login',
  '/__fauxlab/logout',
  '/__fauxlab/dashboard.js',
  '/__fauxlab/dashboard.css',
]);

const isDashboardPage = (c: Context) =>
  (c.req.path === '/__fauxlab' || c.req.path === '/__fauxlab/') &&
  (c.req.method === 'GET' || c.req.method === 'HEAD') &&
  wantsHtml(c.req.header('accept'));

/** A browser asks for HTML first; API clients (and `*\/*`) get JSON. */
export const wantsHtml = (accept: string | undefined): boolean =>
  accept !== undefined && /(^|,)\s*text\/html\s*(;|,|$)/i.test(accept);

/**
 * Whether a `/__fauxlab/` request without the bearer token may go on: it has a session (a write then
 * only as JSON from the same origin, which a cross-site form cannot send), or it is a public route, or a
 * browser opening the dashboard (which then shows the sign-in form unless signed in).
 */
export function admits(c: Context): boolean {
  const path = c.req.path;
  if (PUBLIC.has(path)) return true;
  if (isDashboardPage(c) && c.req.header('authorization') === undefined) return true;
  if (!hasSession(c)) return false;
  const m = c.req.method;
  if (m === 'GET' || m === 'HEAD') return true;
  const type = (c.req.header('content-type') ?? '').toLowerCase();
  return type.startsWith('application/json') && sameOrigin(c);
}

/** No Origin (not a browser's cross-origin call), or this server's own, as reached or as configured. */
function sameOrigin(c: Context): boolean {
  const origin = c.req.header('origin');
  if (origin === undefined || origin === new URL(c.req.url).origin) return true;
  const base = bindingOf(c).fx.baseUrl;
  return base !== undefined && origin === new URL(base).origin;
}

/** Whether a dashboard page request may see the dashboard (else it gets the sign-in form). */
export function signedIn(c: Context): boolean {
  const b = bindingOf(c);
  // With an Authorization header, the control plane's check has already passed it (see `admits`).
  return b.controlPlaneToken === undefined || c.req.header('authorization') !== undefined || hasSession(c);
}
