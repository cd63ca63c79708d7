import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { BEFORE_WORLD, call, send, world } from '../metadata/world.js';
import { tvalues } from '../../../src/core/table.js';

/**
 * In the world: docs (1, listed), Ruby (2: acme/app), web (3: acme/app, acme/site; tag lists are sorted
 * before their topics are made), notes (4: dev/notes).
 */
/** The Topics API is 14.5's, its DELETE 14.9's (topics/versions.ts): these run at 14.9, before `title` (15.0). */
const AT = { version: '14.9' } as const;

const topic = (id: number, name: string, count: number, description: string | null = null) => ({
  id,
  name,
  description,
  total_projects_count: count,
  avatar_url: null,
});

const tagsOf = async (fx: ReturnType<typeof world>, path: string) =>
  (await send(fx, 'GET', `/projects/${encodeURIComponent(path)}`, 'root')).body.tag_list;

describe('GET /topics', () => {
  it('GET /topics: by project count, then id; anonymous callers too; paginated', async () => {
    const fx = world(AT);
    const r = await send(fx, 'GET', '/topics');
    expect(r.status).toBe(200);
    expect(r.body).toEqual([
      topic(3, 'web', 2),
      topic(2, 'Ruby', 1),
      topic(4, 'notes', 1),
      topic(1, 'docs', 0, 'Documentation'),
    ]);
    expect(r.res.headers.get('X-Total')).toBe('4');
    const page = await send(fx, 'GET', '/topics?per_page=1&page=2');
    expect(page.body).toEqual([topic(2, 'Ruby', 1)]);
    expect(page.res.headers.get('X-Next-Page')).toBe('3');
  });

  it('GET /topics: search matches anywhere from three characters, the whole name below that', async () => {
    const fx = world(AT);
    expect((await send(fx, 'GET', '/topics?search=OTE')).body.map((t: any) => t.name)).toEqual(['notes']);
    expect((await send(fx, 'GET', '/topics?search=we')).body).toEqual([]);
    expect((await send(fx, 'GET', '/topics?search=WEB')).body.map((t: any) => t.name)).toEqual(['web']);
  });

  it('GET /topics: closer names first when searching', async () => {
    const fx = world(AT);
    await call(fx, 'POST', '/topics', 'root', { name: 'webapp' });
    await call(fx, 'POST', '/topics', 'root', { name: 'my-web' });
    expect((await send(fx, 'GET', '/topics?search=web')).body.map((t: any) => t.name)).toEqual([
      'web',
      'webapp',
      'my-web',
    ]);
  });

  it('GET /topics: a bad page is a 400', async () => {
    expect(await send(world(AT), 'GET', '/topics?page=x')).toMatchObject({
      status: 400,
      body: { error: 'page is invalid' },
    });
  });
});

describe('GET /topics/:id', () => {
  it('GET /topics/:id: the topic; 404 Not found for an unknown id, 400 for a non-integer one', async () => {
    const fx = world(AT);
    expect((await send(fx, 'GET', '/topics/1')).body).toEqual(topic(1, 'docs', 0, 'Documentation'));
    expect(await send(fx, 'GET', '/topics/99')).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    });
    expect(await send(fx, 'GET', '/topics/abc')).toMatchObject({
      status: 400,
      body: { error: 'id is invalid' },
    });
  });
});

describe('POST /topics', () => {
  it('POST /topics: admins create a topic (201), with a description', async () => {
    const fx = world(AT);
    const r = await send(fx, 'POST', '/topics', 'root', { name: ' go ', description: 'Gophers' });
    expect(r).toMatchObject({ status: 201, body: topic(5, 'go', 0, 'Gophers') });
    expect((await send(fx, 'GET', '/topics/5')).body.name).toBe('go');
  });

  it('POST /topics: 401 anonymous, 400 without a name (before the admin check), 403 for other users', async () => {
    const fx = world(AT);
    expect((await send(fx, 'POST', '/topics', undefined, { name: 'x' })).status).toBe(401);
    expect(await send(fx, 'POST', '/topics', 'owner', {})).toMatchObject({
      status: 400,
      body: { error: 'name is missing' },
    });
    expect(await send(fx, 'POST', '/topics', 'owner', { name: 'x' })).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden' },
    });
  });

  it('POST /topics: the model validation errors', async () => {
    const fx = world(AT);
    expect((await send(fx, 'POST', '/topics', 'root', { name: '' })).body).toEqual({
      message: { name: ["can't be blank"] },
    });
    expect((await send(fx, 'POST', '/topics', 'root', { name: 'WEB' })).body).toEqual({
      message: { name: ['has already been taken'] },
    });
    expect((await send(fx, 'POST', '/topics', 'root', { name: 'x'.repeat(256) })).body).toEqual({
      message: { name: ['is too long (maximum is 255 characters)'] },
    });
    expect(
      (await send(fx, 'POST', '/topics', 'root', { name: 'y', description: 'd'.repeat(1025) })).body,
    ).toEqual({ message: { description: ['is too long (maximum is 1024 characters)'] } });
  });

  it('POST /topics: an avatar upload gives an avatar URL', async () => {
    const fx = world(AT);
    const form = new FormData();
    form.append('name', 'pics');
    form.append('avatar', new File([new Uint8Array([1, 2, 3])], 'logo.png', { type: 'image/png' }));
    const res = await fx.app.request('http://gitlab.test/api/v4/topics', {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'root' },
      body: form,
    });
    expect(res.status).toBe(201);
    expect((await res.json()).avatar_url).toBe(
      'http://gitlab.test/uploads/-/system/projects/topic/avatar/5/logo.png',
    );
  });
});

describe('PUT /topics/:id', () => {
  it("PUT /topics/:id: renaming a topic renames the tag of its projects' tag_list", async () => {
    const fx = world(AT);
    const r = await send(fx, 'PUT', '/topics/3', 'root', { name: 'frontend', description: 'UI' });
    expect(r).toMatchObject({ status: 200, body: topic(3, 'frontend', 2, 'UI') });
    expect(await tagsOf(fx, 'acme/app')).toEqual(['Ruby', 'frontend']);
    expect(await tagsOf(fx, 'acme/site')).toEqual(['frontend']);
  });

  it('PUT /topics/:id: 404 unknown, 403 non-admin, 400 for a taken name', async () => {
    const fx = world(AT);
    expect((await send(fx, 'PUT', '/topics/99', 'root', { name: 'x' })).body).toEqual({
      message: '404 Not found',
    });
    expect((await send(fx, 'PUT', '/topics/2', 'owner', { name: 'x' })).status).toBe(403);
    expect((await send(fx, 'PUT', '/topics/3', 'root', { name: 'ruby' })).body).toEqual({
      message: { name: ['has already been taken'] },
    });
    // A topic keeps its own name in another case.
    expect((await send(fx, 'PUT', '/topics/2', 'root', { name: 'ruby' })).body.name).toBe('ruby');
  });
});

describe('DELETE /topics/:id', () => {
  it('DELETE /topics/:id: 204, gone at once, and its projects lose the tag', async () => {
    const fx = world(AT);
    const res = await call(fx, 'DELETE', '/topics/3', 'root');
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect((await send(fx, 'GET', '/topics/3')).status).toBe(404);
    expect((await send(fx, 'GET', '/topics')).body.map((t: any) => t.id)).not.toContain(3);
    expect(await tagsOf(fx, 'acme/app')).toEqual(['Ruby']);
    expect(await tagsOf(fx, 'acme/site')).toEqual([]);
  });

  it('DELETE /topics/:id: 412 with an older If-Unmodified-Since, and nothing is deleted', async () => {
    const fx = world(AT);
    const res = await call(fx, 'DELETE', '/topics/2', 'root', undefined, BEFORE_WORLD);
    expect(res.status).toBe(412);
    expect(await res.json()).toEqual({ message: '412 Precondition Failed' });
    expect((await send(fx, 'GET', '/topics/2')).status).toBe(200);
    expect(
      (
        await call(fx, 'DELETE', '/topics/2', 'root', undefined, {
          'If-Unmodified-Since': 'Tue, 02 Mar 2021 00:00:00 GMT',
        })
      ).status,
    ).toBe(204);
  });

  it('DELETE /topics/:id: 403 non-admin, 404 unknown', async () => {
    const fx = world(AT);
    expect((await send(fx, 'DELETE', '/topics/2', 'owner')).status).toBe(403);
    expect((await send(fx, 'DELETE', '/topics/99', 'root')).body).toEqual({ message: '404 Not found' });
  });
});

describe('topics and projects in step', () => {
  it('POST /projects: a new tag creates its topic; a known one (any case) counts the project', async () => {
    const fx = world(AT);
    const r = await send(fx, 'POST', '/projects', 'owner', { name: 'api', tag_list: 'WEB, rust' });
    expect(r.status).toBe(201);
    expect(r.body.tag_list).toEqual(['WEB', 'rust']);
    const topics = (await send(fx, 'GET', '/topics')).body;
    expect(topics.find((t: any) => t.id === 3)).toEqual(topic(3, 'web', 3));
    expect(topics.find((t: any) => t.name === 'rust')).toEqual(topic(5, 'rust', 1));
  });

  it('PUT /projects/:id: changed tags move the project between topics', async () => {
    const fx = world(AT);
    expect(
      (await send(fx, 'PUT', '/projects/acme%2Fsite', 'owner', { tag_list: ['docs', 'go'] })).status,
    ).toBe(200);
    const topics = (await send(fx, 'GET', '/topics')).body;
    expect(topics.find((t: any) => t.name === 'web').total_projects_count).toBe(1);
    expect(topics.find((t: any) => t.name === 'docs').total_projects_count).toBe(1);
    expect(topics.find((t: any) => t.name === 'go').total_projects_count).toBe(1);
    // Deleting a topic now leaves the other project's tags alone.
    await call(fx, 'DELETE', '/topics/3', 'root');
    expect(await tagsOf(fx, 'acme/site')).toEqual(['docs', 'go']);
  });

  it('DELETE /projects/:id: its topics count one project less; the topics stay', async () => {
    const fx = world(AT);
    expect((await call(fx, 'DELETE', '/projects/acme%2Fapp', 'owner')).status).toBe(202);
    const topics = (await send(fx, 'GET', '/topics')).body;
    expect(topics.find((t: any) => t.name === 'web').total_projects_count).toBe(1);
    expect(topics.find((t: any) => t.name === 'Ruby').total_projects_count).toBe(0);
  });

  it('scenario topics: listed first with their description; tags of projects add the others', () => {
    const fx = createFauxlab({
      scenario: {
        users: [{ username: 'u' }],
        topics: [{ name: 'Go', description: 'Gophers' }],
        projects: [{ path: 'u/a', tag_list: ['go', 'cli'] }],
      },
    });
    const t = fx.state.topics.records;
    expect(tvalues(t).map((x) => [x.id, x.name, x.total_projects_count])).toEqual([
      [1, 'Go', 1],
      [2, 'cli', 1],
    ]);
  });

  it('scenario topics: a name listed twice is an error', () => {
    expect(() => createFauxlab({ scenario: { topics: [{ name: 'a' }, { name: 'A' }] } })).toThrow(
      /topics\[1\]\.name: "A" is listed twice/,
    );
  });
});
