import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { get, issuablesFx, issuablesWorld, send } from '../issuables/world.js';

const titles = (body: any[]) => body.map((x) => x.title);

describe('GET /search', () => {
  it('GET /search: 401 without a user, before the params are checked', async () => {
    const r = await get(issuablesFx(), '/search?scope=nope');
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ message: '401 Unauthorized' });
  });

  it('GET /search: search is required and the scope must be one of the list', async () => {
    const fx = issuablesFx();
    expect((await get(fx, '/search?scope=issues', 'bob-api')).body).toEqual({ error: 'search is missing' });
    expect(await get(fx, '/search?scope=labels&search=x', 'bob-api')).toMatchObject({
      status: 400,
      body: { error: 'scope does not have a valid value' },
    });
    // Notes, commits and blobs are for projects only without Elasticsearch.
    expect((await get(fx, '/search?scope=notes&search=x', 'bob-api')).body).toEqual({
      error: 'scope does not have a valid value',
    });
    expect((await get(fx, '/search', 'bob-api')).body).toEqual({
      error: 'search is missing, scope is missing',
    });
    expect((await get(fx, '/search?scope=issues&search=x&state=locked', 'bob-api')).body).toEqual({
      error: 'state does not have a valid value',
    });
    expect((await get(fx, '/search?scope=issues&search=x&confidential=maybe', 'bob-api')).body).toEqual({
      error: 'confidential is invalid',
    });
  });

  it('GET /search: paid tiers list the Elasticsearch scopes and refuse them without Elasticsearch', async () => {
    const fx = createFauxlab({ scenario: { ...issuablesWorld, tier: 'premium' } });
    for (const scope of ['notes', 'commits', 'blobs', 'wiki_blobs'])
      expect(await get(fx, `/search?scope=${scope}&search=x`, 'bob-api')).toMatchObject({
        status: 400,
        body: { message: { error: 'Scope not supported without Elasticsearch!' } },
      });
    expect((await get(fx, '/groups/acme/search?scope=notes&search=x', 'bob-api')).status).toBe(400);
    expect((await get(fx, '/groups/nope/search?scope=notes&search=x', 'bob-api')).body).toEqual({
      message: '404 Group Not Found',
    });
    expect(
      (await get(fx, '/projects/acme%2Fwebsite/search?scope=notes&search=fixed', 'bob-api')).status,
    ).toBe(200);
  });

  it('GET /search: issues honour confidentiality per viewer', async () => {
    const fx = issuablesFx();
    // The author, an assignee and reporters see a confidential issue; guests and outsiders do not.
    expect(titles((await get(fx, '/search?scope=issues&search=secret', 'bob-api')).body)).toEqual([
      'Secret vulnerability',
    ]);
    expect((await get(fx, '/search?scope=issues&search=secret', 'gus-api')).body).toEqual([]);
    expect(titles((await get(fx, '/search?scope=issues&search=roadmap', 'carol-api')).body)).toEqual([
      'Internal roadmap',
    ]);
    expect((await get(fx, '/search?scope=issues&search=roadmap', 'dave-api')).body).toHaveLength(1);
    expect((await get(fx, '/search?scope=issues&search=roadmap', 'bob-api')).body).toEqual([]);
  });

  it('GET /search: issues of private projects only for their members; newest first, or oldest with sort=asc', async () => {
    const fx = issuablesFx();
    expect(titles((await get(fx, '/search?scope=issues&search=fuel', 'alice-api')).body)).toEqual([
      'Fuel leak',
    ]);
    expect((await get(fx, '/search?scope=issues&search=fuel', 'bob-api')).body).toEqual([]);
    // Fewer than three characters match a whole title only.
    expect((await get(fx, '/search?scope=issues&search=ro', 'root-api')).body).toEqual([]);
    const q = '/search?scope=issues&search=ter';
    expect(titles((await get(fx, q, 'root-api')).body)).toEqual(['Typo in footer', 'Internal roadmap']);
    expect(titles((await get(fx, `${q}&order_by=created_at&sort=asc`, 'root-api')).body)).toEqual([
      'Internal roadmap',
      'Typo in footer',
    ]);
  });

  it('GET /search: state and confidential filter issues; merged means closed for them', async () => {
    const fx = issuablesFx();
    const q = '/search?scope=issues&search=crash';
    expect((await get(fx, `${q}&state=opened`, 'root-api')).body).toEqual([]);
    expect(titles((await get(fx, `${q}&state=closed`, 'root-api')).body)).toEqual(['Crash on startup']);
    expect(titles((await get(fx, `${q}&state=merged`, 'root-api')).body)).toEqual(['Crash on startup']);
    expect(titles((await get(fx, `${q}&state=all`, 'root-api')).body)).toEqual(['Crash on startup']);
    const ro = '/search?scope=issues&search=%22ro%22';
    expect(titles((await get(fx, `${ro}&confidential=true`, 'root-api')).body)).toEqual(['Internal roadmap']);
    expect(titles((await get(fx, `${ro}&confidential=false`, 'root-api')).body)).toEqual([
      'Login button broken',
    ]);
  });

  it('GET /search: a query ending in #iid looks the iid up', async () => {
    const fx = issuablesFx();
    const r = await get(fx, '/search?scope=issues&search=%233', 'bob-api');
    expect(r.body.map((i: any) => [i.project_id, i.iid, i.title])).toEqual([[1, 3, 'Crash on startup']]);
    const mr = await get(fx, '/search?scope=merge_requests&search=!2', 'bob-api');
    expect(titles(mr.body)).toEqual(['WIP: Dark mode']);
  });

  it('GET /search: merge requests by state', async () => {
    const fx = issuablesFx();
    expect(
      titles((await get(fx, '/search?scope=merge_requests&search=old&state=merged', 'bob-api')).body),
    ).toEqual(['Old change']);
    expect((await get(fx, '/search?scope=merge_requests&search=old&state=opened', 'bob-api')).body).toEqual(
      [],
    );
  });

  it('GET /search: projects the viewer may read, newest first, as basic project details', async () => {
    const fx = issuablesFx();
    await send(fx, 'POST', '/projects', 'alice-api', { name: 'Rocket two', visibility: 'public' });
    const ids = async (token: string) =>
      (await get(fx, '/search?scope=projects&search=rocket', token)).body.map((x: any) => x.id);
    expect(await ids('root-api')).toEqual([5, 2]);
    expect(await ids('bob-api')).toEqual([5]);
    expect((await get(fx, '/search?scope=projects&search=ro', 'root-api')).body).toEqual([]);
    const r = await get(fx, '/search?scope=projects&search=rocket', 'alice-api');
    expect(r.body).toHaveLength(2);
    expect(r.body[1]).toMatchObject({ id: 2, path_with_namespace: 'acme/labs/rocket', star_count: 0 });
    expect(r.body[1]).not.toHaveProperty('visibility');
  });

  it('GET /search: milestones of projects whose issues or merge requests the viewer reads, paginated', async () => {
    const fx = issuablesFx();
    await send(fx, 'POST', '/projects/2/milestones', 'alice-api', { title: 'v1.0-rocket' });
    await send(fx, 'PUT', '/projects/1/milestones/2', 'alice-api', { description: 'The v1.0 successor' });
    const r = await get(fx, '/search?scope=milestones&search=v1.0&per_page=1', 'alice-api');
    // Equal update times fall back to the newest milestone first.
    expect(r.body.map((m: any) => m.title)).toEqual(['v1.0-rocket']);
    expect(r.headers.get('X-Total')).toBe('3');
    expect(r.headers.get('X-Next-Page')).toBe('2');
    const bob = await get(fx, '/search?scope=milestones&search=v1.0', 'bob-api');
    expect(bob.body.map((m: any) => m.title)).toEqual(['v2.0', 'v1.0']);
  });

  it('GET /search: users by name, username or exact e-mail', async () => {
    const fx = issuablesFx();
    const r = await get(fx, '/search?scope=users&search=ali', 'bob-api');
    expect(r.body).toEqual([
      {
        id: 2,
        name: 'Alice Liddell',
        username: 'alice',
        state: 'active',
        avatar_url: expect.any(String),
        web_url: 'http://localhost/alice',
      },
    ]);
  });

  it('GET /search: snippet titles the viewer may read', async () => {
    const fx = issuablesFx();
    for (const visibility of ['private', 'public'])
      await send(fx, 'POST', '/snippets', 'alice-api', {
        title: `Deploy notes ${visibility}`,
        file_name: 'deploy.md',
        content: 'x',
        visibility,
      });
    expect(
      (await get(fx, '/search?scope=snippet_titles&search=deploy', 'bob-api')).body.map((s: any) => s.title),
    ).toEqual(['Deploy notes public']);
    expect(
      (await get(fx, '/search?scope=snippet_titles&search=deploy.md', 'alice-api')).body.map(
        (s: any) => s.title,
      ),
    ).toEqual(['Deploy notes public', 'Deploy notes private']);
  });
});

describe('GET /groups/:id/search', () => {
  it('GET /groups/:id/search: the projects of the group and its subgroups; users who are members', async () => {
    const fx = issuablesFx();
    expect(
      titles((await get(fx, '/groups/acme/search?scope=issues&search=personal', 'bob-api')).body),
    ).toEqual([]);
    expect(titles((await get(fx, '/search?scope=issues&search=personal', 'bob-api')).body)).toEqual([
      'Personal todo',
    ]);
    expect(
      titles((await get(fx, '/groups/acme%2Flabs/-/search?scope=issues&search=fuel', 'alice-api')).body),
    ).toEqual(['Fuel leak']);
    const users = await get(fx, '/groups/acme/search?scope=users&search=bob', 'alice-api');
    expect(users.body).toEqual([]);
    const members = await get(fx, '/groups/acme/search?scope=users&search=erin', 'alice-api');
    expect(members.body.map((u: any) => u.username)).toEqual(['erin']);
  });

  it('GET /groups/:id/search: a hidden group is not found', async () => {
    const fx = issuablesFx();
    await send(fx, 'POST', '/groups', 'alice-api', { name: 'Hidden', path: 'hidden', visibility: 'private' });
    expect(await get(fx, '/groups/hidden/search?scope=projects&search=x', 'bob-api')).toMatchObject({
      status: 404,
      body: { message: '404 Group Not Found' },
    });
    expect((await get(fx, '/groups/hidden/search?scope=blobs&search=x', 'bob-api')).body).toEqual({
      error: 'scope does not have a valid value',
    });
  });
});

describe('GET /projects/:id/search', () => {
  it('GET /projects/:id/search: notes the viewer may read, not those on hidden confidential issues', async () => {
    const fx = issuablesFx();
    await send(fx, 'POST', '/projects/1/issues/5/notes', 'erin-api', { body: 'Roadmap details' });
    await send(fx, 'POST', '/projects/1/issues/6/notes', 'erin-api', { body: 'Roadmap footer' });
    const bob = await get(fx, '/projects/acme%2Fwebsite/search?scope=notes&search=roadmap', 'bob-api');
    expect(bob.body.map((n: any) => n.body)).toEqual(['Roadmap footer']);
    const erin = await get(fx, '/projects/1/-/search?scope=notes&search=roadmap', 'erin-api');
    expect(erin.body.map((n: any) => [n.body, n.noteable_type, n.noteable_iid])).toEqual([
      ['Roadmap footer', 'Issue', 6],
      ['Roadmap details', 'Issue', 5],
    ]);
  });

  it('GET /projects/:id/search: users are the project team', async () => {
    const fx = issuablesFx();
    expect((await get(fx, '/projects/1/search?scope=users&search=gus', 'bob-api')).body).toHaveLength(1);
    expect((await get(fx, '/projects/1/search?scope=users&search=carol', 'bob-api')).body).toEqual([]);
    expect((await get(fx, '/projects/4/search?scope=users&search=carol', 'bob-api')).body).toEqual([]);
  });

  it('GET /projects/:id/search: commits, blobs and wiki blobs find nothing without repository content', async () => {
    const fx = issuablesFx();
    for (const scope of ['commits', 'blobs', 'wiki_blobs']) {
      const r = await get(fx, `/projects/1/search?scope=${scope}&search=login&ref=master`, 'bob-api');
      expect(r.status).toBe(200);
      expect(r.body).toEqual([]);
      expect(r.headers.get('X-Total')).toBe('0');
    }
    expect((await get(fx, '/projects/1/search?scope=snippet_titles&search=x', 'bob-api')).body).toEqual({
      error: 'scope does not have a valid value',
    });
  });

  it('GET /projects/:id/search: a private project is hidden from non-members', async () => {
    const fx = issuablesFx();
    expect(
      await get(fx, '/projects/acme%2Flabs%2Frocket/search?scope=issues&search=fuel', 'bob-api'),
    ).toMatchObject({
      status: 404,
      body: { message: '404 Project Not Found' },
    });
    expect((await get(fx, '/projects/2/search?scope=issues&search=fuel', 'alice-api')).body).toHaveLength(1);
  });
});
