import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { call, json, projectsFx, projectsWorld, send } from './world.js';

const names = (body: any[]) => body.map((m) => `${m.username}:${m.access_level}`);

describe('project members', () => {
  it('GET /projects/:id/members: needs a user', async () => {
    const { res } = await send(projectsFx(), 'GET', '/projects/1/members');
    expect(res.status).toBe(401);
  });

  it('GET /projects/:id/members: direct members in the member shape', async () => {
    const { res, body } = await send(projectsFx(), 'GET', '/projects/3/members', 'bob-api');
    expect(res.status).toBe(200);
    expect(body).toEqual([
      {
        id: 3,
        name: 'Bob Builder',
        username: 'bob',
        state: 'active',
        avatar_url: expect.stringContaining('gravatar.com'),
        web_url: 'http://localhost/bob',
        access_level: 10,
        expires_at: null,
      },
    ]);
    expect(res.headers.get('x-total')).toBe('1');
  });

  it('GET /projects/:id/members: a personal project lists its owner as maintainer', async () => {
    const { body } = await send(projectsFx(), 'GET', '/projects/4/members', 'bob-api');
    expect(names(body)).toEqual(['bob:40']);
  });

  it('GET /projects/:id/members: query and user_ids filter', async () => {
    const fx = createFauxlab({
      scenario: {
        ...projectsWorld,
        projects: [
          {
            path: 'acme/p',
            visibility: 'public',
            members: [
              { username: 'frank', access_level: 'developer' },
              { username: 'erin', access_level: 'reporter' },
            ],
          },
        ],
      },
    });
    expect(names((await send(fx, 'GET', '/projects/1/members?query=zap', 'bob-api')).body)).toEqual([
      'frank:30',
    ]);
    expect(names((await send(fx, 'GET', '/projects/1/members?user_ids[]=6', 'bob-api')).body)).toEqual([
      'erin:20',
    ]);
  });

  it('GET /projects/:id/members/all: with the memberships inherited from the groups, one per user', async () => {
    const { body } = await send(projectsFx(), 'GET', '/projects/3/members/all', 'bob-api');
    expect(names(body)).toEqual(['alice:50', 'bob:10', 'dave:30', 'erin:20']);
  });

  it('GET /projects/:id/members/:user_id and /members/all/:user_id', async () => {
    const fx = projectsFx();
    expect((await send(fx, 'GET', '/projects/3/members/3', 'bob-api')).body.access_level).toBe(10);
    const missing = await send(fx, 'GET', '/projects/3/members/2', 'bob-api');
    expect(missing.res.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Not found' });
    expect((await send(fx, 'GET', '/projects/3/members/all/2', 'bob-api')).body.access_level).toBe(50);
    expect((await send(fx, 'GET', '/projects/3/members/all/7', 'bob-api')).res.status).toBe(404);
    const bad = await send(fx, 'GET', '/projects/3/members/bob', 'bob-api');
    expect(bad.res.status).toBe(400);
    expect(bad.body).toEqual({ error: 'user_id is invalid' });
  });

  it('POST /projects/:id/members: adds a member, 201', async () => {
    const fx = projectsFx();
    const { res, body } = await send(fx, 'POST', '/projects/1/members', 'alice-api', {
      user_id: 7,
      access_level: 30,
      expires_at: '2021-06-01',
    });
    expect(res.status).toBe(201);
    expect(body).toMatchObject({ id: 7, username: 'frank', access_level: 30, expires_at: '2021-06-01' });
    expect(
      (await send(fx, 'GET', '/projects?membership=true', 'frank-api')).body.map((p: any) => p.id),
    ).toEqual([1]);
  });

  it('POST /projects/:id/members: the platform checks in order', async () => {
    const fx = projectsFx();
    const before = fx.state;
    const cases: [string, unknown, number, unknown][] = [
      ['dave-api', { user_id: 7, access_level: 30 }, 403, { message: '403 Forbidden' }],
      ['alice-api', { access_level: 30 }, 400, { error: 'user_id is missing' }],
      ['bob-api', { user_id: 3, access_level: 30 }, 403, { message: '403 Forbidden' }],
      ['alice-api', { user_id: 999, access_level: 30 }, 404, { message: '404 User Not Found' }],
      [
        'alice-api',
        { user_id: 7, access_level: 50 },
        400,
        { message: { access_level: ['is not included in the list'] } },
      ],
      [
        'alice-api',
        { user_id: 7, access_level: 30, expires_at: '2020-01-01' },
        400,
        {
          message: { expires_at: ['cannot be a date in the past'] },
        },
      ],
      [
        'alice-api',
        { user_id: 5, access_level: 20 },
        400,
        {
          message: {
            access_level: [
              'should be greater than or equal to Developer inherited membership from group Acme',
            ],
          },
        },
      ],
    ];
    for (const [token, body, status, expected] of cases) {
      const r = await send(fx, 'POST', '/projects/1/members', token, body);
      expect([token, r.res.status, r.body]).toEqual([token, status, expected]);
    }
    expect(fx.state).toBe(before);
    const dup = await send(fx, 'POST', '/projects/3/members', 'alice-api', { user_id: 3, access_level: 20 });
    expect(dup.res.status).toBe(409);
    expect(dup.body).toEqual({ message: 'Member already exists' });
    const owner = await send(fx, 'POST', '/projects/4/members', 'bob-api', { user_id: 3, access_level: 20 });
    expect(owner.res.status).toBe(409);
  });

  it('PUT /projects/:id/members/:user_id: changes the level', async () => {
    const fx = projectsFx();
    const { res, body } = await send(fx, 'PUT', '/projects/3/members/3', 'alice-api', { access_level: 20 });
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ username: 'bob', access_level: 20 });
    expect(
      (await send(fx, 'PUT', '/projects/3/members/7', 'alice-api', { access_level: 20 })).res.status,
    ).toBe(404);
    expect((await send(fx, 'PUT', '/projects/3/members/3', 'bob-api', { access_level: 40 })).res.status).toBe(
      403,
    );
  });

  it('DELETE /projects/:id/members/:user_id: maintainers remove anyone, members themselves', async () => {
    const fx = projectsFx();
    expect((await send(fx, 'DELETE', '/projects/3/members/3', 'frank-api')).res.status).toBe(404);
    const res = await call(fx, 'DELETE', '/api/v4/projects/3/members/3', { token: 'bob-api' });
    expect(res.status).toBe(204);
    expect((await send(fx, 'GET', '/projects/3/members', 'alice-api')).body).toEqual([]);
    const before = fx.state;
    expect((await send(fx, 'DELETE', '/projects/4/members/3', 'bob-api')).res.status).toBe(403);
    expect(fx.state).toBe(before);
  });
});

describe('GET /projects/:id/users', () => {
  it('GET /projects/:id/users: everyone with access, by id, with search and skip_users', async () => {
    const fx = projectsFx();
    const { res, body } = await send(fx, 'GET', '/projects/3/users', 'bob-api');
    expect(res.status).toBe(200);
    expect(body.map((u: any) => u.username)).toEqual(['alice', 'bob', 'dave', 'erin']);
    expect(Object.keys(body[0])).toEqual(['id', 'name', 'username', 'state', 'avatar_url', 'web_url']);
    expect(
      (await send(fx, 'GET', '/projects/3/users?search=erin', 'bob-api')).body.map((u: any) => u.username),
    ).toEqual(['erin']);
    expect(
      (await send(fx, 'GET', '/projects/3/users?skip_users=2,3', 'bob-api')).body.map((u: any) => u.username),
    ).toEqual(['dave', 'erin']);
  });
});

describe('uploads', () => {
  it('POST /projects/:id/uploads: stores the file and serves it under the project path', async () => {
    const fx = projectsFx();
    const form = new FormData();
    form.append('file', new File(['hello'], 'notes.txt', { type: 'text/plain' }));
    const res = await call(fx, 'POST', '/api/v4/projects/1/uploads', { token: 'frank-api', form });
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body).toEqual({
      alt: 'notes.txt',
      url: expect.stringMatching(/^\/uploads\/[0-9a-f]{32}\/notes\.txt$/),
      full_path: expect.stringMatching(/^\/acme\/website\/uploads\/[0-9a-f]{32}\/notes\.txt$/),
      markdown: `[notes.txt](${body.url})`,
    });
    const file = await fx.app.request(body.full_path);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/plain');
    expect(await file.text()).toBe('hello');
  });

  it('POST /projects/:id/uploads: images get an image link and their own content type', async () => {
    const fx = projectsFx();
    const form = new FormData();
    form.append('file', new File([new Uint8Array([137, 80, 78, 71])], 'shot 1.png', { type: 'image/png' }));
    const body = await json(
      await call(fx, 'POST', '/api/v4/projects/1/uploads', { token: 'frank-api', form }),
    );
    expect(body.alt).toBe('shot_1');
    expect(body.markdown).toBe(`![shot_1](${body.url})`);
    const file = await fx.app.request(body.full_path);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(new Uint8Array([137, 80, 78, 71]));
  });

  it('POST /projects/:id/uploads: a private project serves its files to members only', async () => {
    const fx = projectsFx();
    const form = new FormData();
    form.append('file', new File(['x'], 'a.txt'));
    const body = await json(await call(fx, 'POST', '/api/v4/projects/3/uploads', { token: 'bob-api', form }));
    expect((await fx.app.request(body.full_path)).status).toBe(404);
    expect((await fx.app.request(body.full_path, { headers: { 'PRIVATE-TOKEN': 'bob-api' } })).status).toBe(
      200,
    );
  });

  it('POST /projects/:id/uploads: the file is required, and limited by max_attachment_size', async () => {
    const fx = createFauxlab({ scenario: { ...projectsWorld, settings: { max_attachment_size: 1 } } });
    const before = fx.state;
    const empty = await call(fx, 'POST', '/api/v4/projects/1/uploads', {
      token: 'frank-api',
      form: new FormData(),
    });
    expect(empty.status).toBe(400);
    expect(await json(empty)).toEqual({ error: 'file is missing' });
    const form = new FormData();
    form.append('file', new File([new Uint8Array(1024 * 1024 + 1)], 'big.bin'));
    const big = await call(fx, 'POST', '/api/v4/projects/1/uploads', { token: 'frank-api', form });
    expect(big.status).toBe(413);
    expect(await json(big)).toEqual({ message: '413 Request Entity Too Large' });
    expect(fx.state).toBe(before);
  });

  it('DELETE /projects/:id: the uploads go with the project', async () => {
    const fx = projectsFx();
    const form = new FormData();
    form.append('file', new File(['x'], 'a.txt'));
    const body = await json(
      await call(fx, 'POST', '/api/v4/projects/1/uploads', { token: 'frank-api', form }),
    );
    await call(fx, 'DELETE', '/api/v4/projects/1', { token: 'alice-api' });
    expect((await fx.app.request(body.full_path)).status).toBe(404);
    expect(fx.state.uploads.size).toBe(0);
  });
});
