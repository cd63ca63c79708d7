import { beforeAll, describe, expect, test } from 'vitest';
import type { Fauxlab } from '../../src/index.js';
import {
  cellFor,
  ENDPOINTS,
  EXCLUDED,
  expected,
  FORBIDDEN,
  KNOWN,
  PROJECT_404,
  UNAUTHORIZED,
} from './endpoints.js';
import { matrixFx, ROLE_NAMES, ROLES, send, type Ids, type Role } from './matrix.js';
import { reliabilityFx, VISIBILITIES, type Visibility } from './world.js';

/**
 * The permission matrix: ten roles against the three visibilities of groups, projects and personal
 * snippets, and every route of the API (the exclusions below are listed with their reasons). Each cell
 * asserts the status and, for refusals, the error body the platform gives, and that a refused request
 * left the state untouched (the same immer root: nothing was written at all), an allowed write changed
 * it. Expectations come from the spec and the behaviour reference (`authenticate!`, `authorize!` and
 * the policies they name), not from the code under test.
 */

// ---- the matrix ------------------------------------------------------------------------------------

const CELLS = ENDPOINTS.flatMap((e) =>
  (e.scope === 'instance' ? (['public'] as Visibility[]) : VISIBILITIES).flatMap((vis) =>
    ROLE_NAMES.map((role) => ({ e, vis, role })),
  ),
);

describe('permission matrix: roles x visibility x every route', () => {
  let fx: Fauxlab;
  let ids: Ids;
  let start: ReturnType<Fauxlab['snapshot']>;
  beforeAll(async () => {
    ({ fx, ids } = await matrixFx());
    start = fx.snapshot();
  }, 60_000);

  for (const { e, vis, role } of CELLS) {
    const r = ROLES[role];
    const cell = cellFor(e, role, vis);
    const [status, errBody] = expected(e, cell);
    const [method] = e.route.split(' ');
    const where = e.scope === 'instance' ? '' : ` (${vis})`;
    const known = role !== 'blocked' && KNOWN.find((k) => k.route === e.route && k.cells(cell));
    const run = known ? test.fails : test;
    run(`${e.route}${where} as ${role}: ${status}${known ? ` [differs: ${known.why}]` : ''}`, async () => {
      fx.restore(start);
      if (e.setup) await e.setup(fx, vis, ids, r.token);
      const before = fx.state;
      const res = await send(fx, method!, e.path(vis, ids, role), r.token, e.body?.(vis, ids));
      expect({
        status: res.status,
        body: res.status >= 300 && errBody !== undefined ? res.body : undefined,
      }).toEqual({
        status,
        body: errBody,
      });
      if (status >= 300) expect(fx.state, 'a refused request wrote to the state').toBe(before);
      else if (method !== 'GET' && !e.readOnly)
        expect(fx.state, 'an allowed write changed nothing').not.toBe(before);
    });
  }
});

describe('permission matrix: coverage', () => {
  test('every route is in the matrix or excluded with a reason, and nothing else is listed', () => {
    const fx = reliabilityFx();
    const routes = fx.routes.map((r) => `${r.method} ${r.path}`);
    const covered = new Set(ENDPOINTS.map((e) => e.route));
    for (const k of KNOWN) expect(covered.has(k.route), k.route).toBe(true);
    const missing = routes.filter((r) => !covered.has(r) && !(r in EXCLUDED));
    expect(missing, 'routes neither in the matrix nor excluded').toEqual([]);
    const unknown = [...covered, ...Object.keys(EXCLUDED)].filter((r) => !routes.includes(r));
    expect(unknown, 'matrix entries of no route').toEqual([]);
    for (const [route, why] of Object.entries(EXCLUDED)) expect(why.length, route).toBeGreaterThan(10);
  });
});

describe('permission matrix: SCIM (the group SCIM token only)', () => {
  let fx: Fauxlab;
  beforeAll(async () => {
    ({ fx } = await matrixFx());
  }, 60_000);
  const scim = (vis: Visibility, bearer?: string) =>
    fx.app.request(`/api/scim/v2/groups/g-${vis}/Users`, {
      headers: bearer ? { Authorization: `Bearer ${bearer}` } : {},
    });
  for (const vis of VISIBILITIES) {
    test(`GET /api/scim/v2/groups/g-${vis}/Users: no personal token of any role, the admin's included, is accepted`, async () => {
      for (const role of ROLE_NAMES) {
        const res = await scim(vis, ROLES[role].token);
        expect({ role, status: res.status, body: await res.json() }).toEqual({
          role,
          status: 401,
          body: UNAUTHORIZED,
        });
      }
    });
    test(`GET /api/scim/v2/groups/g-${vis}/Users: the group's own SCIM token is, another group's is not`, async () => {
      expect((await scim(vis, `scim-g-${vis}`)).status).toBe(200);
      const other = VISIBILITIES.find((v) => v !== vis)!;
      expect((await scim(vis, `scim-g-${other}`)).status).toBe(401);
    });
  }
});

describe('permission matrix: token scopes and states', () => {
  const fx = reliabilityFx();
  const start = fx.snapshot();
  const PR = (v: Visibility) => `/api/v4/projects/g-${v}%2Fp`;
  const INSUFFICIENT = {
    error: 'insufficient_scope',
    error_description: 'The request requires higher privileges than provided by the access token.',
    scope: 'api',
  };
  const rows: [name: string, token: string, method: string, path: string, status: number, body?: unknown][] =
    [
      ['read_api reads', 'dev-read', 'GET', `${PR('private')}/issues`, 200],
      ['read_api cannot write', 'dev-read', 'POST', `${PR('private')}/issues`, 403, INSUFFICIENT],
      [
        'read_user cannot read projects',
        'dev-user',
        'GET',
        PR('private'),
        403,
        { ...INSUFFICIENT, scope: 'api read_api' },
      ],
      ['read_user reads users', 'dev-user', 'GET', '/api/v4/user', 200],
      ['read_user cannot write', 'dev-user', 'POST', `${PR('public')}/star`, 403, INSUFFICIENT],
      [
        'an expired token',
        'dev-expired',
        'GET',
        PR('public'),
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
        `${PR('public')}/star`,
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
        `${PR('private')}/issues`,
        401,
        {
          error: 'invalid_token',
          error_description: 'Token was revoked. You have to re-authorize from the user.',
        },
      ],
      ['an unknown token', 'no-such-token', 'GET', PR('public'), 401, UNAUTHORIZED],
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
    const asDev = await send(fx, 'PUT', PR('private'), 'root-sudo', { description: 'x' }, { Sudo: 'dev' });
    expect(asDev).toEqual({ status: 403, body: FORBIDDEN });
    const asMaint = await send(
      fx,
      'PUT',
      PR('private'),
      'root-sudo',
      { description: 'x' },
      { Sudo: 'maint' },
    );
    expect(asMaint.status).toBe(200);
    const hidden = await send(fx, 'GET', PR('private'), 'root-sudo', undefined, { Sudo: 'outsider' });
    expect(hidden).toEqual({ status: 404, body: PROJECT_404 });
  });

  test('sudo: refused without the sudo scope or without admin, and nothing is written', async () => {
    fx.restore(start);
    const before = fx.state;
    const noScope = await send(fx, 'POST', `${PR('public')}/star`, 'root-api', undefined, { Sudo: 'dev' });
    expect(noScope.status).toBe(403);
    expect(noScope.body).toMatchObject({ error: 'insufficient_scope', scope: 'sudo' });
    const notAdmin = await send(fx, 'POST', `${PR('public')}/star`, 'dev-api', undefined, { Sudo: 'maint' });
    expect(notAdmin).toEqual({ status: 403, body: { message: '403 Forbidden - Must be admin to use sudo' } });
    expect(fx.state).toBe(before);
  });
});

describe('permission matrix: confidential notes', () => {
  const fx = reliabilityFx();
  for (const role of ['outsider', 'guest', 'reporter', 'owner', 'admin'] as Role[]) {
    const sees = ROLES[role].level >= 20;
    test(`GET /projects/:id/issues/:iid/notes as ${role}: the confidential note is ${sees ? 'listed' : 'hidden'}`, async () => {
      const res = await send(fx, 'GET', `/api/v4/projects/g-public%2Fp/issues/1/notes`, ROLES[role].token);
      expect(res.status).toBe(200);
      const bodies = (res.body as { body: string }[]).map((n) => n.body).sort();
      expect(bodies).toEqual(sees ? ['A confidential note', 'A plain note'] : ['A plain note']);
    });
  }
});
