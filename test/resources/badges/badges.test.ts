import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { tvalues } from '../../../src/core/table.js';
import { BEFORE_WORLD, call, send, setupWorld } from '../metadata/world.js';

/**
 * The set-up world with a group badge on acme (id 1) and a project badge on acme/site (id 2), both with
 * placeholders.
 */
function badgeWorld() {
  return createFauxlab({
    scenario: {
      ...setupWorld,
      groups: (setupWorld.groups ?? []).map((g) => ({
        ...g,
        badges: [
          {
            name: 'Pipeline',
            link_url: 'https://ci.example.com/%{project_path}/-/commits/%{default_branch}',
            image_url: 'https://ci.example.com/%{project_path}/badges/%{default_branch}/pipeline.svg',
            created_at: '2021-01-01T00:00:00Z',
          },
        ],
      })),
      projects: (setupWorld.projects ?? []).map((p) =>
        p.path === 'acme/site'
          ? {
              ...p,
              badges: [
                {
                  link_url: 'https://example.com/p/%{project_id}',
                  image_url: 'https://img.example.com/%{commit_sha}.svg?x=%{nope}',
                },
              ],
            }
          : p,
      ),
    },
  });
}

const SITE = '/projects/acme%2Fsite';

describe('GET /projects/:id/badges', () => {
  it('GET /projects/:id/badges: the group badges and the project badges, oldest first, filled in for the project', async () => {
    const fx = badgeWorld();
    const r = await send(fx, 'GET', `${SITE}/badges`);
    expect(r.status).toBe(200);
    expect(r.res.headers.get('X-Total')).toBe('2');
    const sha = r.body[1].rendered_image_url.slice(
      'https://img.example.com/'.length,
      -'.svg?x=%{nope}'.length,
    );
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    expect(r.body).toEqual([
      {
        name: 'Pipeline',
        link_url: 'https://ci.example.com/%{project_path}/-/commits/%{default_branch}',
        image_url: 'https://ci.example.com/%{project_path}/badges/%{default_branch}/pipeline.svg',
        rendered_link_url: 'https://ci.example.com/acme/site/-/commits/master',
        rendered_image_url: 'https://ci.example.com/acme/site/badges/master/pipeline.svg',
        id: 1,
        kind: 'group',
      },
      {
        name: null,
        link_url: 'https://example.com/p/%{project_id}',
        image_url: 'https://img.example.com/%{commit_sha}.svg?x=%{nope}',
        rendered_link_url: 'https://example.com/p/2',
        rendered_image_url: `https://img.example.com/${sha}.svg?x=%{nope}`,
        id: 2,
        kind: 'project',
      },
    ]);
  });

  it('GET /projects/:id/badges: name filters; a hidden project is not found', async () => {
    const fx = badgeWorld();
    expect((await send(fx, 'GET', `${SITE}/badges?name=Pipeline`)).body.map((b: any) => b.id)).toEqual([1]);
    expect(await send(fx, 'GET', '/projects/acme%2Fapp/badges', 'outsider')).toMatchObject({
      status: 404,
      body: { message: '404 Project Not Found' },
    });
    expect((await send(fx, 'GET', '/projects/acme%2Fapp/badges', 'dev')).body).toHaveLength(1);
  });

  it("GET /projects/:id/badges/:badge_id: its own and its groups' badges; others are not found", async () => {
    const fx = badgeWorld();
    expect((await send(fx, 'GET', `${SITE}/badges/1`)).body).toMatchObject({ id: 1, kind: 'group' });
    expect((await send(fx, 'GET', `${SITE}/badges/2`)).body).toMatchObject({ id: 2, kind: 'project' });
    expect(await send(fx, 'GET', '/projects/acme%2Fapp/badges/2', 'dev')).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    });
    expect((await send(fx, 'GET', `${SITE}/badges/x`)).body).toEqual({ error: 'badge_id is invalid' });
  });
});

describe('POST /projects/:id/badges', () => {
  it('POST /projects/:id/badges: maintainers add one; 201 with the rendered URLs', async () => {
    const fx = badgeWorld();
    const r = await send(fx, 'POST', `${SITE}/badges`, 'maint', {
      link_url: 'https://example.com/%{project_path}',
      image_url: 'https://example.com/b.svg',
      name: 'Docs',
    });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      name: 'Docs',
      link_url: 'https://example.com/%{project_path}',
      image_url: 'https://example.com/b.svg',
      rendered_link_url: 'https://example.com/acme/site',
      rendered_image_url: 'https://example.com/b.svg',
      id: 3,
      kind: 'project',
    });
    expect((await send(fx, 'GET', `${SITE}/badges`)).body.map((b: any) => b.id)).toEqual([1, 2, 3]);
  });

  it('POST /projects/:id/badges: 401, then the params, then 403 below maintainer', async () => {
    const fx = badgeWorld();
    expect((await send(fx, 'POST', `${SITE}/badges`, undefined, {})).status).toBe(401);
    expect((await send(fx, 'POST', `${SITE}/badges`, 'dev', {})).body).toEqual({
      error: 'link_url is missing, image_url is missing',
    });
    const body = { link_url: 'https://a.example', image_url: 'https://b.example' };
    expect(await send(fx, 'POST', `${SITE}/badges`, 'dev', body)).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden' },
    });
  });

  it('POST /projects/:id/badges: URLs must be http(s); nothing is stored on a failure', async () => {
    const fx = badgeWorld();
    const r = await send(fx, 'POST', `${SITE}/badges`, 'maint', {
      link_url: 'ftp://example.com',
      image_url: 'not a url',
    });
    expect(r).toMatchObject({
      status: 400,
      body: {
        message: {
          link_url: ['is blocked: Only allowed schemes are http, https'],
          image_url: ['is blocked: URI is invalid'],
        },
      },
    });
    expect((await send(fx, 'GET', `${SITE}/badges`)).body).toHaveLength(2);
  });
});

describe('PUT /projects/:id/badges/:badge_id', () => {
  it('PUT /projects/:id/badges/:badge_id: changes the given fields', async () => {
    const fx = badgeWorld();
    const r = await send(fx, 'PUT', `${SITE}/badges/2`, 'maint', {
      name: 'Site',
      image_url: 'https://x.example/i',
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      name: 'Site',
      link_url: 'https://example.com/p/%{project_id}',
      image_url: 'https://x.example/i',
      rendered_image_url: 'https://x.example/i',
    });
    expect((await send(fx, 'PUT', `${SITE}/badges/2`, 'maint', { link_url: 'mailto:x' })).body).toEqual({
      message: { link_url: ['is blocked: Only allowed schemes are http, https'] },
    });
    expect((await send(fx, 'PUT', `${SITE}/badges/99`, 'maint', { name: 'x' })).status).toBe(404);
    expect((await send(fx, 'PUT', `${SITE}/badges/2`, 'dev', { name: 'x' })).status).toBe(403);
  });
});

describe('DELETE /projects/:id/badges/:badge_id', () => {
  it('DELETE /projects/:id/badges/:badge_id: 204; If-Unmodified-Since is honoured', async () => {
    const fx = badgeWorld();
    expect((await call(fx, 'DELETE', `${SITE}/badges/2`, 'maint', undefined, BEFORE_WORLD)).status).toBe(412);
    expect((await send(fx, 'DELETE', `${SITE}/badges/2`, 'dev')).status).toBe(403);
    expect((await send(fx, 'DELETE', `${SITE}/badges/2`, 'maint')).status).toBe(204);
    expect((await send(fx, 'GET', `${SITE}/badges/2`)).status).toBe(404);
  });
});

describe('GET /projects/:id/badges/render', () => {
  it('GET /projects/:id/badges/render: a preview filled in for the project, stored nowhere', async () => {
    const fx = badgeWorld();
    const q = `link_url=${encodeURIComponent('https://e.example/%{project_path}/%{project_id}')}&image_url=${encodeURIComponent('https://e.example/%{default_branch}')}`;
    const r = await send(fx, 'GET', `${SITE}/badges/render?${q}`, 'maint');
    expect(r.body).toEqual({
      name: null,
      link_url: 'https://e.example/%{project_path}/%{project_id}',
      image_url: 'https://e.example/%{default_branch}',
      rendered_link_url: 'https://e.example/acme/site/2',
      rendered_image_url: 'https://e.example/master',
    });
    expect((await send(fx, 'GET', `${SITE}/badges`)).body).toHaveLength(2);
  });

  it('GET /projects/:id/badges/render: params first, then 401, then 403; invalid URLs are a 400', async () => {
    const fx = badgeWorld();
    expect((await send(fx, 'GET', `${SITE}/badges/render`)).body).toEqual({
      error: 'link_url is missing, image_url is missing',
    });
    const q = 'link_url=https://a.example&image_url=https://b.example';
    expect((await send(fx, 'GET', `${SITE}/badges/render?${q}`)).status).toBe(401);
    expect((await send(fx, 'GET', `${SITE}/badges/render?${q}`, 'dev')).status).toBe(403);
    expect(
      (await send(fx, 'GET', `${SITE}/badges/render?link_url=x&image_url=https://b.example`, 'maint')).body,
    ).toEqual({
      message: { link_url: ['is blocked: URI is invalid'] },
    });
  });
});

describe('group badges', () => {
  it("GET /groups/:id/badges: the group's own badges, not filled in", async () => {
    const fx = badgeWorld();
    const r = await send(fx, 'GET', '/groups/acme/badges');
    expect(r.body).toEqual([
      expect.objectContaining({
        id: 1,
        kind: 'group',
        rendered_link_url: 'https://ci.example.com/%{project_path}/-/commits/%{default_branch}',
      }),
    ]);
    expect((await send(fx, 'GET', '/groups/acme/badges/1')).body.id).toBe(1);
    expect((await send(fx, 'GET', '/groups/acme/badges/2')).status).toBe(404);
  });

  it("POST /groups/:id/badges: owners only; the group's projects list it", async () => {
    const fx = badgeWorld();
    const body = { link_url: 'https://a.example/%{project_id}', image_url: 'https://b.example' };
    expect((await send(fx, 'POST', '/groups/acme/badges', 'maint', body)).status).toBe(403);
    const r = await send(fx, 'POST', '/groups/acme/badges', 'owner', body);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      id: 3,
      kind: 'group',
      rendered_link_url: 'https://a.example/%{project_id}',
    });
    const site = await send(fx, 'GET', `${SITE}/badges/3`);
    expect(site.body.rendered_link_url).toBe('https://a.example/2');
    expect((await send(fx, 'PUT', '/groups/acme/badges/3', 'owner', { name: 'G' })).body.name).toBe('G');
    expect(
      (
        await send(
          fx,
          'GET',
          '/groups/acme/badges/render?link_url=https://a.example&image_url=https://b.example',
          'owner',
        )
      ).body,
    ).toMatchObject({
      rendered_link_url: 'https://a.example',
    });
    expect((await send(fx, 'DELETE', '/groups/acme/badges/3', 'owner')).status).toBe(204);
  });

  it("DELETE /projects/:id: the project's badges go with it", async () => {
    const fx = badgeWorld();
    expect((await send(fx, 'DELETE', SITE, 'root')).status).toBe(202);
    expect((await send(fx, 'GET', `${SITE}/badges`)).status).toBe(404);
    expect(tvalues(fx.state.badges.records).map((b) => [b.kind, b.source_id])).toEqual([['group', 6]]);
  });
});

describe('badges in scenarios', () => {
  it('scenario: a badge with an invalid URL is a problem of the file', () => {
    expect(() =>
      createFauxlab({
        scenario: {
          ...setupWorld,
          projects: [{ path: 'dev/x', badges: [{ link_url: 'ftp://x', image_url: 'https://y.example' }] }],
        },
      }),
    ).toThrow(/projects\[0\]\.badges\[0\]\.link_url: is blocked: Only allowed schemes are http, https/);
  });
});
