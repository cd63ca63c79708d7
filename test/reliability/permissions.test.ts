import { describe, expect, test } from 'vitest';
import { reliabilityFx, VISIBILITIES, type Visibility } from './world.js';

/**
 * The permission matrix: every role against every visibility and the spec's endpoints of each area,
 * each cell asserting the status and error body the platform gives, and that a refused request left the
 * state untouched (the same immer root: nothing was written at all).
 */

type Role =
  | 'anonymous'
  | 'outsider'
  | 'external'
  | 'guest'
  | 'reporter'
  | 'developer'
  | 'maintainer'
  | 'owner'
  | 'admin'
  | 'blocked';

const ROLES: Record<Role, { token?: string; level: number; external?: boolean }> = {
  anonymous: { level: -2 },
  outsider: { token: 'outsider-api', level: -1 },
  external: { token: 'ext-api', level: -1, external: true },
  guest: { token: 'guest-api', level: 10 },
  reporter: { token: 'rep-api', level: 20 },
  developer: { token: 'dev-api', level: 30 },
  maintainer: { token: 'maint-api', level: 40 },
  owner: { token: 'owner-api', level: 50 },
  admin: { token: 'root-api', level: 100 },
  blocked: { token: 'blocked-api', level: 30 },
};

const UNAUTHORIZED = { message: '401 Unauthorized' };
const FORBIDDEN = { message: '403 Forbidden' };
const BLOCKED = { message: '403 Forbidden - Your account has been blocked.' };
const PROJECT_404 = { message: '404 Project Not Found' };
const GROUP_404 = { message: '404 Group Not Found' };
const RECORD_404 = { message: '404 Not found' };

type Expect = [status: number, body?: unknown];

interface Cell {
  role: Role;
  vis: Visibility;
  level: number;
  anonymous: boolean;
  visible: boolean;
}

interface Endpoint {
  method: string;
  path: (vis: Visibility) => string;
  body?: Record<string, unknown>;
  /** Whether the route authenticates before looking anything up (`authenticate!` in a before block). */
  expect: (cell: Cell) => Expect;
}

const P = (v: Visibility) => `/api/v4/projects/g-${v}%2Fp`;
const G = (v: Visibility) => `/api/v4/groups/g-${v}`;

/** Reads of a project's resources: hidden projects are 404, visible ones readable by anyone who sees them. */
const projectRead = (c: Cell): Expect => (c.visible ? [200] : [404, PROJECT_404]);
/** Reads of APIs with `before { authenticate! }` (notes, milestones, members): anonymous is 401 first. */
const authedRead = (c: Cell): Expect => (c.anonymous ? [401, UNAUTHORIZED] : projectRead(c));
/** Writes that any user who sees the project may do (create an issue or a note, star). */
const projectParticipate =
  (ok: number) =>
  (c: Cell): Expect =>
    c.anonymous ? [401, UNAUTHORIZED] : c.visible ? [ok] : [404, PROJECT_404];
/** Writes that need a minimum level (`authorize!` after the project was found). */
const projectLevel =
  (min: number, ok: number) =>
  (c: Cell): Expect =>
    c.anonymous
      ? [401, UNAUTHORIZED]
      : !c.visible
        ? [404, PROJECT_404]
        : c.level >= min
          ? [ok]
          : [403, FORBIDDEN];

const ENDPOINTS: Endpoint[] = [
  { method: 'GET', path: P, expect: projectRead },
  { method: 'GET', path: (v) => `${P(v)}/issues`, expect: projectRead },
  { method: 'GET', path: (v) => `${P(v)}/issues/1`, expect: projectRead },
  {
    method: 'GET',
    path: (v) => `${P(v)}/issues/2`,
    // Confidential: reporters and up (and the author, here the owner) see it; others get the record's 404.
    expect: (c) => (!c.visible ? [404, PROJECT_404] : c.level >= 20 ? [200] : [404, RECORD_404]),
  },
  { method: 'GET', path: (v) => `${P(v)}/issues/1/notes`, expect: authedRead },
  { method: 'GET', path: (v) => `${P(v)}/milestones`, expect: authedRead },
  { method: 'GET', path: (v) => `${P(v)}/members`, expect: authedRead },
  { method: 'GET', path: (v) => `${P(v)}/variables`, expect: projectLevel(40, 200) },
  { method: 'GET', path: (v) => `${P(v)}/variables/SECRET_KEY`, expect: projectLevel(40, 200) },
  { method: 'GET', path: G, expect: (c) => (c.visible ? [200] : [404, GROUP_404]) },
  { method: 'GET', path: (v) => `${G(v)}/projects`, expect: (c) => (c.visible ? [200] : [404, GROUP_404]) },
  { method: 'POST', path: (v) => `${P(v)}/issues`, body: { title: 'New' }, expect: projectParticipate(201) },
  {
    method: 'POST',
    path: (v) => `${P(v)}/issues/1/notes`,
    body: { body: 'hello' },
    expect: projectParticipate(201),
  },
  { method: 'POST', path: (v) => `${P(v)}/star`, expect: projectParticipate(201) },
  { method: 'PUT', path: P, body: { description: 'changed' }, expect: projectLevel(40, 200) },
  {
    method: 'POST',
    path: (v) => `${P(v)}/variables`,
    body: { key: 'NEW_KEY', value: 'v' },
    expect: projectLevel(40, 201),
  },
  {
    method: 'PUT',
    path: (v) => `${P(v)}/variables/SECRET_KEY`,
    body: { value: 'other' },
    expect: projectLevel(40, 200),
  },
  { method: 'DELETE', path: (v) => `${P(v)}/variables/SECRET_KEY`, expect: projectLevel(40, 204) },
  { method: 'DELETE', path: (v) => `${P(v)}/issues/1`, expect: projectLevel(50, 204) },
  { method: 'DELETE', path: P, expect: projectLevel(50, 202) },
  // update_issue: reporters and up, or the author (the owner here).
  {
    method: 'PUT',
    path: (v) => `${P(v)}/issues/1`,
    body: { title: 'Renamed' },
    expect: projectLevel(20, 200),
  },
  // admin_project_member: maintainers and up. User 7 is the non-member.
  {
    method: 'POST',
    path: (v) => `${P(v)}/members`,
    body: { user_id: 7, access_level: 30 },
    expect: projectLevel(40, 201),
  },
  {
    method: 'DELETE',
    path: G,
    expect: (c) =>
      c.anonymous
        ? [401, UNAUTHORIZED]
        : !c.visible
          ? [404, GROUP_404]
          : c.level >= 50
            ? [202]
            : [403, FORBIDDEN],
  },
  {
    method: 'PUT',
    path: G,
    body: { description: 'changed' },
    expect: (c) =>
      c.anonymous
        ? [401, UNAUTHORIZED]
        : !c.visible
          ? [404, GROUP_404]
          : c.level >= 50
            ? [200]
            : [403, FORBIDDEN],
  },
  // Instance-wide: the same answer whatever the visibility.
  {
    method: 'GET',
    path: () => '/api/v4/features',
    expect: (c) => (c.anonymous ? [401, UNAUTHORIZED] : c.level >= 100 ? [200] : [403, FORBIDDEN]),
  },
  {
    method: 'PUT',
    path: () => '/api/v4/application/settings',
    body: { home_page_url: 'http://example.com' },
    expect: (c) => (c.anonymous ? [401, UNAUTHORIZED] : c.level >= 100 ? [200] : [403, FORBIDDEN]),
  },
];

function visibleTo(role: Role, vis: Visibility): boolean {
  const r = ROLES[role];
  if (r.level >= 10) return true; // members and the admin
  if (vis === 'public') return true;
  if (vis === 'internal') return r.level === -1 && !r.external;
  return false;
}

async function send(
  fx: ReturnType<typeof reliabilityFx>,
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
  extra: Record<string, string> = {},
) {
  const headers: Record<string, string> = { ...extra };
  if (token) headers['PRIVATE-TOKEN'] = token;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fx.app.request(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

describe('permission matrix: roles x visibility x endpoints', () => {
  const fx = reliabilityFx();
  const start = fx.snapshot();
  for (const ep of ENDPOINTS) {
    for (const vis of VISIBILITIES) {
      for (const role of Object.keys(ROLES) as Role[]) {
        const r = ROLES[role];
        const cell: Cell = { role, vis, level: r.level, anonymous: !r.token, visible: visibleTo(role, vis) };
        const [status, errBody] = role === 'blocked' ? [403, BLOCKED] : ep.expect(cell);
        const path = ep.path(vis);
        test(`${ep.method} ${path.replace('/api/v4', '')} as ${role}: ${status}`, async () => {
          fx.restore(start);
          const before = fx.state;
          const res = await send(fx, ep.method, path, r.token, ep.body);
          expect(res.status).toBe(status);
          if (errBody !== undefined) expect(res.body).toEqual(errBody);
          if (status >= 400) expect(fx.state, 'a refused request wrote to the state').toBe(before);
          else if (ep.method !== 'GET') expect(fx.state).not.toBe(before);
        });
      }
    }
  }
});

describe('permission matrix: token scopes and states', () => {
  const fx = reliabilityFx();
  const start = fx.snapshot();
  const INSUFFICIENT = {
    error: 'insufficient_scope',
    error_description: 'The request requires higher privileges than provided by the access token.',
    scope: 'api',
  };
  const rows: [name: string, token: string, method: string, path: string, status: number, body?: unknown][] =
    [
      ['read_api reads', 'dev-read', 'GET', `${P('private')}/issues`, 200],
      ['read_api cannot write', 'dev-read', 'POST', `${P('private')}/issues`, 403, INSUFFICIENT],
      [
        'read_user cannot read projects',
        'dev-user',
        'GET',
        P('private'),
        403,
        { ...INSUFFICIENT, scope: 'api read_api' },
      ],
      ['read_user reads users', 'dev-user', 'GET', '/api/v4/user', 200],
      ['read_user cannot write', 'dev-user', 'POST', `${P('public')}/star`, 403, INSUFFICIENT],
      [
        'an expired token',
        'dev-expired',
        'GET',
        P('public'),
        401,
        {
          error: 'invalid_token',
          error_description: 'Token is expired. You can either do re-authorization or token refresh.',
        },
      ],
      [
        'an expired token cannot write',
        'dev-expired',
        'POST',
        `${P('public')}/star`,
        401,
        {
          error: 'invalid_token',
          error_description: 'Token is expired. You can either do re-authorization or token refresh.',
        },
      ],
      [
        'a revoked token',
        'dev-revoked',
        'POST',
        `${P('private')}/issues`,
        401,
        {
          error: 'invalid_token',
          error_description: 'Token was revoked. You have to re-authorize from the user.',
        },
      ],
      ['an unknown token', 'no-such-token', 'GET', P('public'), 401, UNAUTHORIZED],
    ];
  for (const [name, token, method, path, status, body] of rows) {
    test(`${name}: ${method} ${path.replace('/api/v4', '')} is ${status}`, async () => {
      fx.restore(start);
      const before = fx.state;
      const res = await send(fx, method, path, token, method === 'GET' ? undefined : { title: 't' });
      expect(res.status).toBe(status);
      if (body !== undefined) expect(res.body).toEqual(body);
      if (status >= 400) expect(fx.state).toBe(before);
    });
  }

  test('sudo: an admin token with the sudo scope acts as the user, with the user’s rights', async () => {
    fx.restore(start);
    const asDev = await send(fx, 'PUT', P('private'), 'root-sudo', { description: 'x' }, { Sudo: 'dev' });
    expect(asDev).toEqual({ status: 403, body: FORBIDDEN });
    const asMaint = await send(fx, 'PUT', P('private'), 'root-sudo', { description: 'x' }, { Sudo: 'maint' });
    expect(asMaint.status).toBe(200);
    const hidden = await send(fx, 'GET', P('private'), 'root-sudo', undefined, { Sudo: 'outsider' });
    expect(hidden).toEqual({ status: 404, body: PROJECT_404 });
  });

  test('sudo: refused without the sudo scope or without admin, and nothing is written', async () => {
    fx.restore(start);
    const before = fx.state;
    const noScope = await send(fx, 'POST', `${P('public')}/star`, 'root-api', undefined, { Sudo: 'dev' });
    expect(noScope.status).toBe(403);
    expect(noScope.body).toMatchObject({ error: 'insufficient_scope', scope: 'sudo' });
    const notAdmin = await send(fx, 'POST', `${P('public')}/star`, 'dev-api', undefined, { Sudo: 'maint' });
    expect(notAdmin).toEqual({ status: 403, body: { message: '403 Forbidden - Must be admin to use sudo' } });
    expect(fx.state).toBe(before);
  });
});

describe('permission matrix: confidential notes', () => {
  const fx = reliabilityFx();
  for (const role of ['outsider', 'guest', 'reporter', 'owner', 'admin'] as Role[]) {
    const sees = ROLES[role].level >= 20;
    test(`GET /projects/:id/issues/:iid/notes as ${role}: the confidential note is ${sees ? 'listed' : 'hidden'}`, async () => {
      const res = await send(fx, 'GET', `${P('public')}/issues/1/notes`, ROLES[role].token);
      expect(res.status).toBe(200);
      const bodies = (res.body as { body: string }[]).map((n) => n.body).sort();
      expect(bodies).toEqual(sees ? ['A confidential note', 'A plain note'] : ['A plain note']);
    });
  }
});
