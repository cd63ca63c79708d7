/**
 * `GET /__fauxlab/`: the dashboard for a browser (Accept: text/html), a JSON index of the control plane
 * for anything else; the sign-in form and session for an instance with an admin token; the page's script
 * and stylesheet. Mounted on the control plane, so the same protections apply (see session.ts).
 */
import type { Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Env, Fx } from '../../core/context.js';
import { ApiError } from '../../core/errors.js';
import type { JournalEntry, JournalFilter } from '../../testing/journal.js';
import { SCRIPT, STYLE } from './assets.js';
import { DESCRIPTIONS } from './endpoints.js';
import type { Html } from './html.js';
import { sameSecret } from '../guard.js';
import { CSP, loginPage, page, VIEWS, type View } from './layout.js';
import {
  bindingOf,
  COOKIE,
  endSession,
  SESSION_SECONDS,
  signedIn,
  startSession,
  wantsHtml,
} from './session.js';
import {
  clockView,
  deliveriesView,
  faultsView,
  requestRows,
  requestsView,
  snapshotsView,
  worldView,
  type RequestFilters,
  type WorldQuery,
} from './views.js';

export { admits as dashboardAdmits } from './session.js';

/** Requests the view lists at first; newer ones stream in. */
const REQUESTS_SHOWN = 200;
/** The sign-in form's body: a token and little else. */
const MAX_LOGIN_BODY = 4096;

const PAGE_HEADERS = {
  'Content-Security-Policy': CSP,
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

function htmlResponse(c: Context, body: Html | string, status = 200): Response {
  return c.body(String(body), status as 200, { ...PAGE_HEADERS, 'Content-Type': 'text/html; charset=utf-8' });
}

const origin = (c: Context) => bindingOf(c).fx.baseUrl ?? new URL(c.req.url).origin;

/** A query value, trimmed and bounded. */
const param = (q: URLSearchParams, name: string, max = 500) => (q.get(name) ?? '').trim().slice(0, max);

function requestEntries(
  c: Context,
  q: URLSearchParams,
  journalFilter: (url: URL) => JournalFilter,
): { entries: JournalEntry[]; filters: RequestFilters; problem?: string } {
  const filters: RequestFilters = {
    method: param(q, 'method', 10).toUpperCase(),
    path: param(q, 'path'),
    status: param(q, 'status', 50),
    user: param(q, 'user', 255),
  };
  // Method, status, since and a path pattern as the control plane's journal filter reads them.
  const p = new URLSearchParams();
  if (filters.method) p.set('method', filters.method);
  if (filters.path.startsWith('/')) p.set('path', filters.path);
  if (filters.status) p.set('status', filters.status);
  const since = param(q, 'since', 20);
  if (since) p.set('since', since);
  let entries: JournalEntry[];
  try {
    entries = bindingOf(c).instance.requests(journalFilter(new URL(`http://x/?${p}`)));
  } catch (e) {
    const message =
      e instanceof ApiError ? ((e.body as { message?: unknown }).message ?? e.message) : (e as Error).message;
    return { entries: [], filters, problem: String(message) };
  }
  const text = filters.path && !filters.path.startsWith('/') ? filters.path.toLowerCase() : undefined;
  const user = filters.user.toLowerCase();
  entries = entries.filter(
    (e) =>
      (text === undefined || e.path.toLowerCase().includes(text)) &&
      (user === '' || (e.user ?? '').toLowerCase() === user),
  );
  return { entries: entries.reverse().slice(0, REQUESTS_SHOWN), filters };
}

function worldQuery(q: URLSearchParams): WorldQuery {
  const list = q.get('list');
  const page = Number(q.get('page'));
  const project = q.get('project');
  const api = q.get('api');
  const as = q.get('as');
  return {
    list: list === 'users' || list === 'groups' ? list : 'projects',
    page: Number.isInteger(page) && page > 0 && page < 1e6 ? page : 1,
    ...(project !== null && /^\d{1,9}$/.test(project) && { project: Number(project) }),
    ...(api !== null && api.trim() !== '' && { api: api.trim().slice(0, 2001) }),
    ...(as !== null && { as: as.trim().slice(0, 255) }),
  };
}

async function viewBody(
  c: Context,
  view: View,
  q: URLSearchParams,
  journalFilter: (url: URL) => JournalFilter,
): Promise<Html> {
  const b = bindingOf(c);
  const instance = b.instance;
  switch (view) {
    case 'requests': {
      const { entries, filters, problem } = requestEntries(c, q, journalFilter);
      const poll = new URLSearchParams({ view: 'requests', fragment: 'rows' });
      for (const [k, v] of Object.entries(filters)) if (v) poll.set(k, v);
      return requestsView(entries, filters, {
        origin: origin(c),
        pollUrl: `/__fauxlab/?${poll}`,
        lastId: instance.requests.last()?.id ?? 0,
        capacity: instance.requests.capacity,
        ...(problem !== undefined && { problem }),
      });
    }
    case 'world':
      return worldView(instance, b.fx, b.spawn, worldQuery(q), origin(c));
    case 'clock':
      return clockView(instance);
    case 'faults':
      return faultsView(instance);
    case 'snapshots':
      return snapshotsView(instance);
    case 'deliveries':
      return deliveriesView(b.fx);
  }
}

/** The instance (its GitLab version and tier) and every control-plane endpoint, from the routes it has. */
function endpointIndex(app: Hono<Env>, fx: Fx) {
  const seen = new Set<string>();
  const endpoints: { method: string; path: string; description: string | null }[] = [];
  for (const r of app.routes) {
    if (r.method === 'ALL') continue;
    const path = r.path === '/' ? '/__fauxlab' : `/__fauxlab${r.path}`;
    const key = `${r.method} ${path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    endpoints.push({ method: r.method, path, description: DESCRIPTIONS[key] ?? null });
  }
  const st = fx.store.state;
  return { gitlab: { version: st.version, tier: st.tier }, dashboard: '/__fauxlab/', endpoints };
}

export function dashboard(app: Hono<Env>, journalFilter: (url: URL) => JournalFilter): void {
  app.get('/', async (c) => {
    if (!wantsHtml(c.req.header('accept'))) return c.json(endpointIndex(app, bindingOf(c).fx));
    if (!signedIn(c)) return htmlResponse(c, loginPage(undefined), 401);
    const q = new URL(c.req.url).searchParams;
    const asked = q.get('view');
    const view: View = VIEWS.find((v) => v === asked) ?? 'requests';
    if (view === 'requests' && q.get('fragment') === 'rows') {
      // New rows for the page's script: after `since`, newest first.
      const { entries } = requestEntries(c, q, journalFilter);
      const last = bindingOf(c).instance.requests.last()?.id ?? 0;
      const res = htmlResponse(c, requestRows(entries, origin(c)));
      res.headers.set('X-Fauxlab-Last', String(last));
      return res;
    }
    const signOut = bindingOf(c).controlPlaneToken !== undefined && getCookie(c, COOKIE) !== undefined;
    return htmlResponse(c, page(view, await viewBody(c, view, q, journalFilter), { signOut }));
  });

  app.get('/dashboard.js', (c) =>
    c.body(SCRIPT, 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' }),
  );
  app.get('/dashboard.css', (c) =>
    c.body(STYLE, 200, { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'no-cache' }),
  );

  app.get('/login', (c) => {
    if (bindingOf(c).controlPlaneToken === undefined) return c.redirect('/__fauxlab/', 303);
    return htmlResponse(c, loginPage(undefined));
  });

  // A form without JavaScript (answered with a page), or JSON from the page's script (answered in JSON).
  app.post('/login', async (c) => {
    const b = bindingOf(c);
    if (b.controlPlaneToken === undefined) return c.redirect('/__fauxlab/', 303);
    const json = isJson(c);
    // This route answers without a credential: a declared length over the cap is refused unread.
    const declared = Number(c.req.header('content-length') ?? 0);
    const text = declared <= MAX_LOGIN_BODY ? await c.req.text() : undefined;
    if (text === undefined || text.length > MAX_LOGIN_BODY)
      return json
        ? c.json({ message: '413 Request Entity Too Large' }, 413)
        : htmlResponse(c, loginPage('That is not a sign-in form.'), 413);
    if (
      !sameSecret(
        json ? jsonToken(text) : (new URLSearchParams(text).get('token') ?? undefined),
        b.controlPlaneToken,
      )
    )
      return json
        ? c.json({ message: '401 Unauthorized' }, 401)
        : htmlResponse(c, loginPage('That is not the admin token.'), 401);
    setCookie(c, COOKIE, startSession(b.instance), {
      path: '/__fauxlab',
      httpOnly: true,
      sameSite: 'Strict',
      secure: new URL(c.req.url).protocol === 'https:',
      maxAge: SESSION_SECONDS,
    });
    return json ? c.json({ message: 'signed in' }) : c.redirect('/__fauxlab/', 303);
  });

  app.post('/logout', (c) => {
    endSession(bindingOf(c).instance, getCookie(c, COOKIE));
    deleteCookie(c, COOKIE, { path: '/__fauxlab' });
    return isJson(c) ? c.body(null, 204) : c.redirect('/__fauxlab/', 303);
  });
}

const isJson = (c: Context) =>
  (c.req.header('content-type') ?? '').toLowerCase().startsWith('application/json');

function jsonToken(text: string): string | undefined {
  try {
    const v = JSON.parse(text) as { token?: unknown } | null;
    return typeof v?.token === 'string' ? v.token : undefined;
  } catch {
    return undefined;
  }
}
