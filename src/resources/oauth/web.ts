/**
 * What the web side (sign-in, consent, OAuth and SCIM endpoints outside `/api/v4`) needs of a request:
 * its params as Rails merges them, the session cookie, and HTML pages.
 */
import { escapeHtml } from '../../core/html.js';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Ctx } from '../../core/context.js';
import { apiError } from '../../core/errors.js';
import {
  checkMultipartParts,
  parseJsonBody,
  parseQuery,
  placeEntries,
  type RawParams,
} from '../../core/params.js';
import type { PlatformState } from '../../core/state.js';
import { digest } from '../../core/store.js';
import { iget, tget } from '../../core/table.js';
import type { WebSessionRecord } from './store.js';

/** JSON media types the web endpoints parse (SCIM clients send `application/scim+json`). */
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json/;

/** Query, then body (form, JSON or multipart): Rails' merged `params`. Sets `c.get('params')`. */
export async function readWebParams(c: Ctx): Promise<RawParams> {
  const url = c.req.url;
  const q = url.indexOf('?');
  const params = parseQuery(q < 0 ? '' : url.slice(q + 1).replace(/#.*$/, ''));
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
    const type = (c.req.header('content-type') ?? '').toLowerCase();
    if (JSON_TYPE.test(type)) {
      Object.assign(params, parseJsonBody(await c.req.text()));
    } else if (type.startsWith('application/x-www-form-urlencoded')) {
      parseQuery(await c.req.text(), params);
    } else if (type.startsWith('multipart/form-data')) {
      checkMultipartParts(new Uint8Array(await c.req.arrayBuffer()), type);
      const form = await c.req.formData().catch(() => {
        throw apiError(400, '400 Bad request');
      });
      placeEntries(form.entries() as Iterable<[string, string | File]>, params);
    }
  }
  c.set('params', params);
  return params;
}

/** A param as a string; arrays and hashes are not strings. */
export function str(params: RawParams, name: string): string | undefined {
  const v = params[name];
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

export const SESSION_COOKIE = '_fauxlab_session';

function cookie(c: Ctx, name: string): string | undefined {
  const header = c.req.header('cookie');
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** What a browser that has not signed in carries: a form token, and where to go after signing in. */
export interface AnonymousSession {
  csrf: string | null;
  return_to: string | null;
}

export type WebSession =
  { kind: 'user'; record: WebSessionRecord; csrf: string } | ({ kind: 'anonymous' } & AnonymousSession);

/** Signs anonymous session cookies; per process, like a Rails secret_key_base. */
const SECRET = randomBytes(32);
const mac = (payload: string) => createHmac('sha256', SECRET).update(payload).digest('hex');

/** An anonymous session as a signed cookie value (Rails' cookie store): nothing is stored. */
export function anonymousCookie(s: AnonymousSession): string {
  const payload = Buffer.from(JSON.stringify({ csrf: s.csrf, return_to: s.return_to })).toString('base64url');
  return `a.${payload}.${mac(payload)}`;
}

function readAnonymous(value: string): AnonymousSession | undefined {
  const m = /^a\.([A-Za-z0-9_-]*)\.([0-9a-f]{64})$/.exec(value);
  if (!m || !timingSafeEqual(Buffer.from(mac(m[1]!)), Buffer.from(m[2]!))) return undefined;
  try {
    const s = JSON.parse(Buffer.from(m[1]!, 'base64url').toString('utf8')) as AnonymousSession;
    return {
      csrf: typeof s.csrf === 'string' ? s.csrf : null,
      return_to: typeof s.return_to === 'string' ? s.return_to : null,
    };
  } catch {
    return undefined;
  }
}

/** The request's session: a signed-in one from the state, or an anonymous one from the cookie itself. */
export function currentSession(c: Ctx, st: PlatformState): WebSession | undefined {
  const value = cookie(c, SESSION_COOKIE);
  if (!value) return undefined;
  if (value.startsWith('a.')) {
    const anon = readAnonymous(value);
    return anon && { kind: 'anonymous', ...anon };
  }
  const id = iget(st.identity.idx.sessions, digest(value));
  const record = id === undefined ? undefined : tget(st.identity.sessions, id);
  return record && { kind: 'user', record, csrf: record.csrf };
}

/** Signed-in session cookies and form tokens are random: they never appear in API bodies. */
export const randomToken = () => randomBytes(32).toString('hex');

export const sessionCookie = (value: string) => `${SESSION_COOKIE}=${value}; path=/; HttpOnly; SameSite=Lax`;
export const expiredSessionCookie = () =>
  `${SESSION_COOKIE}=; path=/; expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax`;

export { escapeHtml };

/** An HTML page of the web side; never cached, since it carries a form token. */
export function htmlPage(
  c: Ctx,
  status: number,
  html: string,
  headers: Record<string, string> = {},
): Response {
  return c.newResponse(html, status as 200, {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    ...headers,
  });
}

/** Rails' answer to a form without a valid authenticity token (`InvalidAuthenticityToken`). */
export const csrfRejected = (c: Ctx) =>
  htmlPage(
    c,
    422,
    layout(
      'The change you requested was rejected (422)',
      "<h1>The change you requested was rejected.</h1><p>Maybe you tried to change something you didn't have access to.</p>",
    ),
  );

export function layout(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;background:#fafafa;color:#303030;margin:0}
main{max-width:32rem;margin:4rem auto;background:#fff;border:1px solid #dbdbdb;border-radius:4px;padding:1.5rem 2rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=text],input[type=password]{width:100%;box-sizing:border-box;padding:.5rem;border:1px solid #dbdbdb;border-radius:4px}
.actions{margin-top:1.25rem;display:flex;gap:.75rem;justify-content:flex-end}
.actions form{display:inline}
button{padding:.5rem 1rem;border-radius:4px;border:1px solid #dbdbdb;cursor:pointer}
.btn-success{background:#108548;border-color:#108548;color:#fff}
.btn-danger{background:#dd2b0e;border-color:#dd2b0e;color:#fff}
.flash-alert{background:#fdd4cd;border-radius:4px;padding:.5rem .75rem;margin-bottom:1rem}
.scope-description{color:#666;font-size:.9em}
</style>
</head>
<body>
<main role="main">
${body}
</main>
</body>
</html>
`;
}
