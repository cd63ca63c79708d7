import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import {
  ADMIN_KEYS,
  BASIC_KEYS,
  call,
  DETAILS_KEYS,
  json,
  PUBLIC_KEYS,
  send,
  USER_KEYS,
  usersFx,
  usersWorld,
} from './world.js';

const fx = usersFx();
const get = (path: string, token?: string, headers: Record<string, string> = {}) =>
  send(fx, 'GET', path, token, undefined, headers);

describe('GET /users/:id', () => {
  it('GET /users/:id: a regular user gets the single-user shape', async () => {
    const { res, body } = await get('/users/3', 'alice-api');
    expect(res.status).toBe(200);
    expect(body).toEqual({
      id: 3,
      name: 'Bob Builder',
      username: 'bob',
      state: 'active',
      avatar_url: 'https://www.gravatar.com/avatar/4b9bb80620f03eb3719e0a061c14283d?s=80&d=identicon',
      web_url: 'http://localhost/bob',
      created_at: '2020-03-01T00:00:00.000Z',
      bio: '',
      bio_html: '',
      location: null,
      public_email: '',
      skype: '',
      linkedin: '',
      twitter: '',
      website_url: '',
      organization: '',
      job_title: '',
      bot: false,
      work_information: null,
    });
    expect(Object.keys(body)).toEqual(USER_KEYS);
  });

  it('GET /users/:id: anonymous visitors get the single-user shape too', async () => {
    const { res, body } = await get('/users/3');
    expect(res.status).toBe(200);
    expect(Object.keys(body)).toEqual(USER_KEYS);
  });

  it('GET /users/:id: an admin gets the detailed admin shape', async () => {
    const { res, body } = await get('/users/2', 'root-api');
    expect(res.status).toBe(200);
    expect(Object.keys(body)).toEqual(DETAILS_KEYS);
    expect(body).toMatchObject({ email: 'alice@example.com', is_admin: false, sign_in_count: 0, note: null });
  });

  it('GET /users/:id: highest_role is the user\u2019s highest access level anywhere', async () => {
    const role = async (id: number) => (await get(`/users/${id}`, 'root-api')).body.highest_role;
    expect(await role(2)).toBe(50); // owner of acme
    expect(await role(6)).toBe(30); // developer in empty
    expect(await role(4)).toBe(0);
    expect(await role(3)).toBe(50); // co-owner of shared
  });

  it('GET /users/:id: private profiles hide created_at from others, not from themselves or admins', async () => {
    expect((await get('/users/6', 'alice-api')).body).not.toHaveProperty('created_at');
    expect(Object.keys((await get('/users/6')).body)).toEqual(USER_KEYS.filter((k) => k !== 'created_at'));
    expect((await get('/users/6', 'dave-api')).body.created_at).toBe('2020-06-01T00:00:00.000Z');
    expect((await get('/users/6', 'root-api')).body.created_at).toBe('2020-06-01T00:00:00.000Z');
  });

  it('GET /users/:id: blocked users are shown, with state blocked and no created_at', async () => {
    const { res, body } = await get('/users/5', 'alice-api');
    expect(res.status).toBe(200);
    expect(body.state).toBe('blocked');
    expect(body).not.toHaveProperty('created_at');
  });

  it('GET /users/:id: an unknown id is 404 User Not Found', async () => {
    const { res, body } = await get('/users/999', 'alice-api');
    expect(res.status).toBe(404);
    expect(body).toEqual({ message: '404 User Not Found' });
  });

  it('GET /users/:id: a non-numeric id matches no route', async () => {
    const { res, body } = await get('/users/alice', 'alice-api');
    expect(res.status).toBe(404);
    expect(body).toEqual({ error: '404 Not Found' });
  });

  it('GET /users/:id: anonymous visitors see no one when public visibility is restricted', async () => {
    const restricted = createFauxlab({
      scenario: { ...usersWorld, settings: { restricted_visibility_levels: [20] } },
    });
    const res = await call(restricted, 'GET', '/api/v4/users/3');
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ message: '404 User Not Found' });
    expect((await call(restricted, 'GET', '/api/v4/users/3', { token: 'alice-api' })).status).toBe(200);
  });

  it('GET /users/:id: with_custom_attributes adds them for admins only', async () => {
    const admin = await get('/users/4?with_custom_attributes=true', 'root-api');
    expect(admin.body.custom_attributes).toEqual([
      { key: 'team', value: 'red' },
      { key: 'floor', value: '3' },
    ]);
    expect((await get('/users/4', 'root-api')).body).not.toHaveProperty('custom_attributes');
    expect((await get('/users/4?with_custom_attributes=true', 'alice-api')).body).not.toHaveProperty(
      'custom_attributes',
    );
  });

  it('GET /users/:id: a read_user token may read', async () => {
    expect((await get('/users/3', 'alice-read-user')).res.status).toBe(200);
  });

  it('GET /users/:id: e-mail addresses are stored down-cased', async () => {
    expect((await get('/users/4', 'root-api')).body.email).toBe('carol@example.com');
  });
});

describe('GET /user', () => {
  it('GET /user: anonymous is a 401', async () => {
    const { res, body } = await get('/user');
    expect(res.status).toBe(401);
    expect(body).toEqual({ message: '401 Unauthorized' });
  });

  it('GET /user: a regular user gets the current-user shape', async () => {
    const { res, body } = await get('/user', 'alice-api');
    expect(res.status).toBe(200);
    expect(Object.keys(body)).toEqual(PUBLIC_KEYS);
    expect(body).toMatchObject({
      id: 2,
      username: 'alice',
      email: 'alice@example.com',
      commit_email: 'alice@example.com',
      can_create_project: true,
      identities: [],
      confirmed_at: '2020-02-01T00:00:00.000Z',
    });
  });

  it('GET /user: an admin gets the admin shape', async () => {
    const { body } = await get('/user', 'root-api');
    expect(Object.keys(body)).toEqual(ADMIN_KEYS);
    expect(body.is_admin).toBe(true);
  });

  it('GET /user: a read_user token may read', async () => {
    expect((await get('/user', 'alice-read-user')).res.status).toBe(200);
  });

  it('GET /user: a private profile still sees its own created_at', async () => {
    expect((await get('/user', 'dave-api')).body.created_at).toBe('2020-06-01T00:00:00.000Z');
  });

  it('GET /user: sudo (query or header, id or username) shows the impersonated user in their own view', async () => {
    for (const [path, headers] of [
      ['/user?sudo=alice', {}],
      ['/user?sudo=2', {}],
      ['/user', { Sudo: 'ALICE' }],
    ] as const) {
      const { res, body } = await get(path, 'root-sudo', headers);
      expect(res.status).toBe(200);
      expect(body.username).toBe('alice');
      expect(Object.keys(body)).toEqual(PUBLIC_KEYS);
    }
  });

  it('GET /user: sudo needs a token with the sudo scope', async () => {
    const { res, body } = await get('/user?sudo=alice', 'root-api');
    expect(res.status).toBe(403);
    expect(body).toMatchObject({ error: 'insufficient_scope', scope: 'sudo' });
  });

  it('GET /user: sudo by a non-admin is refused', async () => {
    const { res, body } = await get('/user?sudo=bob', 'alice-api');
    expect(res.status).toBe(403);
    expect(body).toEqual({ message: '403 Forbidden - Must be admin to use sudo' });
  });

  it('GET /user: sudo to an unknown user is a 404 naming it', async () => {
    const { res, body } = await get('/user?sudo=nobody', 'root-sudo');
    expect(res.status).toBe(404);
    expect(body).toEqual({ message: "404 User with ID or username 'nobody' Not Found" });
  });
});

describe('user shapes', () => {
  it('user shapes: paid tiers add the pipeline-minute limits, and plan and trial to the admin details', async () => {
    const paid = usersFx({ tier: 'premium' });
    const me = await json(await call(paid, 'GET', '/api/v4/user', { token: 'alice-api' }));
    expect(Object.keys(me)).toEqual([
      ...PUBLIC_KEYS,
      'shared_runners_minutes_limit',
      'extra_shared_runners_minutes_limit',
    ]);
    const list = await json(await call(paid, 'GET', '/api/v4/users', { token: 'root-api' }));
    expect(Object.keys(list[0])).toEqual([
      ...PUBLIC_KEYS,
      'shared_runners_minutes_limit',
      'extra_shared_runners_minutes_limit',
      'is_admin',
      'note',
      'current_sign_in_ip',
      'last_sign_in_ip',
    ]);
    const details = await json(await call(paid, 'GET', '/api/v4/users/2', { token: 'root-api' }));
    expect(details).toMatchObject({ plan: null, trial: false, shared_runners_minutes_limit: null });
    expect(Object.keys(details).slice(-4)).toEqual(['last_sign_in_ip', 'plan', 'trial', 'sign_in_count']);
    const basic = await json(await call(paid, 'GET', '/api/v4/users', { token: 'alice-api' }));
    expect(Object.keys(basic[0])).toEqual(BASIC_KEYS);
  });

  it('user shapes: the free tier has no tier-only fields', async () => {
    const me = (await get('/user', 'alice-api')).body;
    expect(me).not.toHaveProperty('shared_runners_minutes_limit');
    expect((await get('/users/2', 'root-api')).body).not.toHaveProperty('plan');
  });

  it('user shapes: avatar_url is null when Gravatar is off, and an uploaded avatar wins', async () => {
    const off = createFauxlab({
      scenario: {
        settings: { gravatar_enabled: false },
        users: [
          { username: 'a', tokens: [{ token: 'a' }] },
          { username: 'b', avatar_url: 'https://cdn.example.com/b.png' },
        ],
      },
    });
    const list = await json(await call(off, 'GET', '/api/v4/users', { token: 'a' }));
    expect(list.map((u: any) => u.avatar_url)).toEqual(['https://cdn.example.com/b.png', null]);
  });

  it('user shapes: profile text fields render as the platform does', async () => {
    const profiled = createFauxlab({
      scenario: {
        users: [
          {
            username: 'p',
            tokens: [{ token: 'p' }],
            bio: 'Tom & <Jerry>',
            job_title: 'Engineer',
            organization: 'ACME',
            location: 'Berlin',
          },
          { username: 'q', job_title: 'Writer' },
        ],
      },
    });
    const p = await json(await call(profiled, 'GET', '/api/v4/user', { token: 'p' }));
    expect(p).toMatchObject({
      bio: 'Tom & <Jerry>',
      bio_html: 'Tom &amp; &lt;Jerry&gt;',
      location: 'Berlin',
      work_information: 'Engineer at ACME',
    });
    const q = await json(await call(profiled, 'GET', '/api/v4/users/2', { token: 'p' }));
    expect(q.work_information).toBe('Writer');
  });

  it('user shapes: times are ISO 8601 with milliseconds', async () => {
    const odd = createFauxlab({
      scenario: { users: [{ username: 'a', created_at: '2020-05-05T05:05:05Z', tokens: [{ token: 'a' }] }] },
    });
    const me = await json(await call(odd, 'GET', '/api/v4/user', { token: 'a' }));
    expect(me.created_at).toBe('2020-05-05T05:05:05.000Z');
  });

  it('user shapes: can_create_project counts personal projects against projects_limit', async () => {
    const limited = createFauxlab({
      scenario: {
        users: [{ username: 'a', projects_limit: 1, tokens: [{ token: 'a' }] }],
        projects: [{ path: 'a/one' }],
      },
    });
    expect((await json(await call(limited, 'GET', '/api/v4/user', { token: 'a' }))).can_create_project).toBe(
      false,
    );
  });

  it('user shapes: group_saml identities carry saml_provider_id', async () => {
    const saml = createFauxlab({
      scenario: {
        users: [
          {
            username: 'a',
            tokens: [{ token: 'a' }],
            identities: [
              { provider: 'group_saml', extern_uid: 'x', saml_provider_id: 7 },
              { provider: 'ldapmain', extern_uid: 'cn=a' },
            ],
          },
        ],
      },
    });
    const me = await json(await call(saml, 'GET', '/api/v4/user', { token: 'a' }));
    expect(me.identities).toEqual([
      { provider: 'group_saml', extern_uid: 'x', saml_provider_id: 7 },
      { provider: 'ldapmain', extern_uid: 'cn=a' },
    ]);
  });
});
