import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { BASIC_KEYS, call, json, paths, projectsFx, projectsWorld, reads } from './world.js';

const fx = projectsFx();
const { get, list } = reads(fx);

describe('GET /projects: visibility', () => {
  it('GET /projects: anonymous callers get public projects only, in the simple shape', async () => {
    const { res, body } = await get('/projects');
    expect(res.status).toBe(200);
    expect(paths(body)).toEqual(['bob/website', 'acme/website']);
    for (const p of body) expect(Object.keys(p)).toEqual(BASIC_KEYS);
  });

  it('GET /projects: a signed-in user gets public, internal and their own private projects', async () => {
    expect(await list('/projects', 'bob-api')).toEqual([
      'bob/website',
      'bob/notes',
      'acme/labs/rocket',
      'acme/intranet',
      'acme/website',
    ]);
  });

  it('GET /projects: a private project is hidden from a non-member', async () => {
    expect(await list('/projects', 'frank-api')).toEqual(['bob/website', 'acme/intranet', 'acme/website']);
  });

  it('GET /projects: a membership of a parent group reaches the projects of its subgroups', async () => {
    expect(await list('/projects', 'dave-api')).toContain('acme/labs/rocket');
  });

  it('GET /projects: a member of a private subgroup sees its projects', async () => {
    expect(await list('/projects', 'erin-api')).toContain('acme/labs/rocket');
  });

  it('GET /projects: an external user does not see internal projects', async () => {
    expect(await list('/projects', 'carol-api')).toEqual(['bob/website', 'acme/website']);
  });

  it('GET /projects: an admin sees everything', async () => {
    expect(await list('/projects', 'root-api')).toHaveLength(5);
  });

  it('GET /projects: signed-in callers get the ProjectWithAccess shape with their permissions', async () => {
    const { body } = await get('/projects', 'alice-api');
    const website = body.find((p: any) => p.path_with_namespace === 'acme/website');
    expect(Object.keys(website).at(-1)).toBe('permissions');
    expect(website.permissions).toEqual({
      project_access: null,
      group_access: { access_level: 50, notification_level: 3 },
    });
    expect(website._links.self).toBe('http://localhost/api/v4/projects/1');
  });

  it('GET /projects: lists show the direct membership of the project group only, not inherited ones', async () => {
    const { body } = await get('/projects', 'alice-api');
    const rocket = body.find((p: any) => p.path_with_namespace === 'acme/labs/rocket');
    expect(rocket.permissions).toEqual({ project_access: null, group_access: null });
  });

  it('GET /projects: the owner of a personal project is its maintainer', async () => {
    const { body } = await get('/projects', 'bob-api');
    const notes = body.find((p: any) => p.path_with_namespace === 'bob/notes');
    expect(notes.permissions.project_access).toEqual({ access_level: 40, notification_level: 3 });
    expect(notes.owner).toMatchObject({ id: 3, username: 'bob' });
  });

  it('GET /projects: simple=true gives the basic shape to signed-in callers', async () => {
    const { body } = await get('/projects?simple=true', 'alice-api');
    for (const p of body) expect(Object.keys(p)).toEqual(BASIC_KEYS);
  });
});

describe('GET /projects: filters', () => {
  it('GET /projects: owned lists personal projects and projects the user owns', async () => {
    expect(await list('/projects?owned=true', 'bob-api')).toEqual(['bob/website', 'bob/notes']);
    expect(await list('/projects?owned=true', 'alice-api')).toEqual([
      'acme/labs/rocket',
      'acme/intranet',
      'acme/website',
    ]);
  });

  it('GET /projects: membership lists the projects the user is authorized for', async () => {
    expect(await list('/projects?membership=true', 'bob-api')).toEqual([
      'bob/website',
      'bob/notes',
      'acme/labs/rocket',
    ]);
    expect(await list('/projects?membership=true', 'dave-api')).toEqual([
      'acme/labs/rocket',
      'acme/intranet',
      'acme/website',
    ]);
    expect(await list('/projects?membership=true', 'carol-api')).toEqual([]);
  });

  it('GET /projects: min_access_level keeps projects where the user has at least that level', async () => {
    // Bob is a guest of rocket directly, and a developer through the share with partners.
    expect(await list('/projects?min_access_level=30', 'bob-api')).toEqual([
      'bob/website',
      'bob/notes',
      'acme/labs/rocket',
    ]);
    expect(await list('/projects?min_access_level=40', 'bob-api')).toEqual(['bob/website', 'bob/notes']);
    expect(await list('/projects?min_access_level=50', 'bob-api')).toEqual([]);
    expect(await list('/projects?min_access_level=30', 'dave-api')).toEqual([
      'acme/labs/rocket',
      'acme/intranet',
      'acme/website',
    ]);
    expect(await list('/projects?min_access_level=40', 'dave-api')).toEqual([]);
  });

  it('GET /projects: min_access_level must be an access level', async () => {
    const { res, body } = await get('/projects?min_access_level=35', 'bob-api');
    expect(res.status).toBe(400);
    expect(body).toEqual({ error: 'min_access_level does not have a valid value' });
  });

  it('GET /projects: starred lists the projects the user starred', async () => {
    expect(await list('/projects?starred=true', 'dave-api')).toEqual(['acme/website']);
    expect(await list('/projects?starred=true', 'alice-api')).toEqual([]);
  });

  it('GET /projects: archived filters by archived status', async () => {
    expect(await list('/projects?archived=true', 'root-api')).toEqual(['bob/website']);
    expect(await list('/projects?archived=false', 'root-api')).not.toContain('bob/website');
  });

  it('GET /projects: visibility filters by visibility', async () => {
    expect(await list('/projects?visibility=internal', 'root-api')).toEqual(['acme/intranet']);
    const { res, body } = await get('/projects?visibility=secret', 'root-api');
    expect(res.status).toBe(400);
    expect(body).toEqual({ error: 'visibility does not have a valid value' });
  });

  it('GET /projects: search matches path, name or description, case-insensitively', async () => {
    expect(await list('/projects?search=WEB', 'root-api')).toEqual(['bob/website', 'acme/website']);
    expect(await list('/projects?search=propulsion', 'root-api')).toEqual(['acme/labs/rocket']);
    expect(await list('/projects?search=top%20secret', 'root-api')).toEqual(['acme/labs/rocket']);
    expect(await list('/projects?search=nothing-like-it', 'root-api')).toEqual([]);
  });

  it('GET /projects: search sees writes made after its index was built', async () => {
    const big = createFauxlab({
      scenario: {
        now: '2021-03-01T12:00:00Z',
        users: [{ username: 'root', admin: true, tokens: [{ token: 'root' }] }],
        generate: { users: 30, groups: 10, projects: 3_000 },
      },
    });
    const ask = async (q: string) =>
      (
        await json(
          await call(big, 'GET', `/api/v4/projects?simple=true&per_page=100&${q}`, { token: 'root' }),
        )
      ).map((p: any) => p.id);
    expect(await ask('search=zyxwvut')).toEqual([]);
    expect(
      (
        await call(big, 'PUT', '/api/v4/projects/1234', {
          token: 'root',
          body: { description: 'Zyxwvut here' },
        })
      ).status,
    ).toBe(200);
    expect(await ask('search=zyxwvut')).toEqual([1234]);
    expect((await call(big, 'DELETE', '/api/v4/projects/1234', { token: 'root' })).status).toBe(202);
    expect(await ask('search=zyxwvut')).toEqual([]);
  });

  it('GET /projects: search respects visibility', async () => {
    expect(await list('/projects?search=rocket', 'frank-api')).toEqual([]);
    expect(await list('/projects?search=rocket', 'bob-api')).toEqual(['acme/labs/rocket']);
    expect(await list('/projects?search=rocket')).toEqual([]);
  });

  it('GET /projects: a query under three characters matches a whole field only', async () => {
    expect(await list('/projects?search=we', 'root-api')).toEqual([]);
    const fx2 = createFauxlab({
      scenario: { ...projectsWorld, projects: [{ path: 'acme/qa', visibility: 'public' }] },
    });
    const res = await call(fx2, 'GET', '/api/v4/projects?search=QA');
    expect(paths(await json(res))).toEqual(['acme/qa']);
  });

  it('GET /projects: search_namespaces matches the namespace path too', async () => {
    expect(await list('/projects?search=labs', 'root-api')).toEqual([]);
    expect(await list('/projects?search=labs&search_namespaces=true', 'root-api')).toEqual([
      'acme/labs/rocket',
    ]);
    expect(await list('/projects?search=acme%20/%20labs&search_namespaces=true', 'root-api')).toEqual([
      'acme/labs/rocket',
    ]);
  });

  it('GET /projects: id_after and id_before bound the ids', async () => {
    expect(await list('/projects?id_after=2&id_before=5&order_by=id&sort=asc', 'root-api')).toEqual([
      'acme/labs/rocket',
      'bob/notes',
    ]);
  });

  it('GET /projects: last_activity_after and last_activity_before bound the last activity', async () => {
    expect(
      await list(
        '/projects?last_activity_after=2020-01-15T00:00:00Z&last_activity_before=2020-03-15T00:00:00Z',
        'root-api',
      ),
    ).toEqual(['acme/labs/rocket', 'acme/intranet']);
  });

  it('GET /projects: with_issues_enabled and with_merge_requests_enabled drop projects without them', async () => {
    const fx2 = createFauxlab({
      scenario: {
        ...projectsWorld,
        projects: [
          { path: 'acme/a', visibility: 'public', issues_access_level: 'disabled' },
          { path: 'acme/b', visibility: 'public', merge_requests_access_level: 'disabled' },
          { path: 'acme/c', visibility: 'public', issues_access_level: 'private' },
        ],
      },
    });
    const ask = async (q: string, token?: string) =>
      paths(await json(await call(fx2, 'GET', `/api/v4/projects?${q}`, { token })));
    expect(await ask('with_issues_enabled=true', 'bob-api')).toEqual(['acme/b']);
    expect(await ask('with_issues_enabled=true', 'alice-api')).toEqual(['acme/c', 'acme/b']);
    expect(await ask('with_merge_requests_enabled=true', 'bob-api')).toEqual(['acme/c', 'acme/a']);
  });

  it('GET /projects: with_programming_language keeps projects using it', async () => {
    const { body } = await get('/projects/1/languages', 'root-api');
    const lang = Object.keys(body)[0]!;
    expect(await list(`/projects?with_programming_language=${lang.toLowerCase()}`, 'root-api')).toContain(
      'acme/website',
    );
    expect(await list('/projects?with_programming_language=COBOL', 'root-api')).toEqual([]);
  });

  it('GET /projects: repository_storage filters for admins and is ignored for others', async () => {
    expect(await list('/projects?repository_storage=other', 'root-api')).toEqual([]);
    expect(await list('/projects?repository_storage=default', 'root-api')).toHaveLength(5);
    expect(await list('/projects?repository_storage=other', 'alice-api')).toHaveLength(4);
  });

  it('GET /projects: custom_attributes filter for admins only', async () => {
    const fx2 = createFauxlab({
      scenario: {
        ...projectsWorld,
        projects: [
          { path: 'acme/a', visibility: 'public', custom_attributes: { team: 'red' } },
          { path: 'acme/b', visibility: 'public' },
        ],
      },
    });
    const ask = async (q: string, token: string) =>
      await json(await call(fx2, 'GET', `/api/v4/projects?${q}`, { token }));
    expect(paths(await ask('custom_attributes[team]=red', 'root-api'))).toEqual(['acme/a']);
    expect(paths(await ask('custom_attributes[team]=red', 'alice-api'))).toEqual(['acme/b', 'acme/a']);
    const withAttrs = await ask('with_custom_attributes=true', 'root-api');
    expect(withAttrs[1].custom_attributes).toEqual([{ key: 'team', value: 'red' }]);
    expect(Object.keys(withAttrs[1]).indexOf('custom_attributes')).toBe(
      Object.keys(withAttrs[1]).indexOf('namespace') + 1,
    );
    expect((await ask('with_custom_attributes=true', 'alice-api'))[1].custom_attributes).toBeUndefined();
  });

  it('GET /projects: statistics=true adds statistics for reporters and admins', async () => {
    const { body } = await get('/projects?statistics=true', 'root-api');
    expect(Object.keys(body[0].statistics)).toEqual([
      'commit_count',
      'storage_size',
      'repository_size',
      'wiki_size',
      'lfs_objects_size',
      'job_artifacts_size',
      'packages_size',
      'snippets_size',
    ]);
    const s = body[0].statistics;
    expect(s.storage_size).toBe(
      s.repository_size +
        s.wiki_size +
        s.lfs_objects_size +
        s.job_artifacts_size +
        s.packages_size +
        s.snippets_size,
    );
    const { body: dave } = await get('/projects?statistics=true', 'dave-api');
    expect(dave.find((p: any) => p.path_with_namespace === 'acme/website').statistics).toBeDefined();
    const { body: carol } = await get('/projects?statistics=true', 'carol-api');
    expect(carol[0].statistics).toBeUndefined();
    const { body: plain } = await get('/projects', 'root-api');
    expect(plain[0].statistics).toBeUndefined();
  });

  it('GET /projects: wiki_checksum_failed and repository_checksum_failed exist on paid tiers only', async () => {
    const paid = createFauxlab({ scenario: projectsWorld, tier: 'premium' });
    const res = await call(paid, 'GET', '/api/v4/projects?repository_checksum_failed=true', {
      token: 'root-api',
    });
    expect(await json(res)).toEqual([]);
    const link = (await call(paid, 'GET', '/api/v4/projects', { token: 'root-api' })).headers.get('link')!;
    expect(link).toContain('repository_checksum_failed=false');
    expect(link).toContain('wiki_checksum_failed=false');
    expect(await list('/projects?repository_checksum_failed=true', 'root-api')).toHaveLength(5);
  });
});

describe('GET /projects: order', () => {
  it('GET /projects: the default order is created_at descending', async () => {
    expect(await list('/projects', 'root-api')).toEqual([
      'bob/website',
      'bob/notes',
      'acme/labs/rocket',
      'acme/intranet',
      'acme/website',
    ]);
  });

  it('GET /projects: order_by and sort, with id as tie-breaker', async () => {
    expect(await list('/projects?order_by=id&sort=asc', 'root-api')).toEqual([
      'acme/website',
      'acme/intranet',
      'acme/labs/rocket',
      'bob/notes',
      'bob/website',
    ]);
    expect(await list('/projects?order_by=name&sort=asc', 'root-api')).toEqual([
      'acme/intranet',
      'bob/notes',
      'acme/labs/rocket',
      'acme/website',
      'bob/website',
    ]);
    expect(await list('/projects?order_by=path&sort=desc', 'root-api')).toEqual([
      'bob/website',
      'acme/website',
      'acme/labs/rocket',
      'bob/notes',
      'acme/intranet',
    ]);
    expect(await list('/projects?order_by=last_activity_at&sort=asc', 'root-api')).toEqual([
      'acme/website',
      'acme/intranet',
      'acme/labs/rocket',
      'bob/notes',
      'bob/website',
    ]);
  });

  it('GET /projects: an unknown order is refused', async () => {
    const { res, body } = await get('/projects?order_by=stars', 'root-api');
    expect(res.status).toBe(400);
    expect(body).toEqual({ error: 'order_by does not have a valid value' });
  });

  it('GET /projects: admins may order by repository_size', async () => {
    const { body } = await get('/projects?order_by=repository_size&sort=desc&statistics=true', 'root-api');
    const sizes = body.map((p: any) => p.statistics.repository_size);
    expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
  });

  it('GET /projects: a non-admin ordering by storage_size gets the default order, in the links too', async () => {
    const { res, body } = await get('/projects?order_by=storage_size&sort=asc', 'alice-api');
    expect(paths(body)).toEqual(['acme/website', 'acme/intranet', 'acme/labs/rocket', 'bob/website']);
    expect(res.headers.get('link')).toContain('order_by=created_at');
  });
});

describe('GET /projects: pagination', () => {
  it('GET /projects: offset headers and Link URLs keep every param', async () => {
    const { res: r2 } = await get('/projects?per_page=1&page=2&visibility=public', 'root-api');
    expect(r2.headers.get('x-total')).toBe('2');
    expect(r2.headers.get('x-total-pages')).toBe('2');
    expect(r2.headers.get('x-page')).toBe('2');
    expect(r2.headers.get('x-per-page')).toBe('1');
    expect(r2.headers.get('x-next-page')).toBe('');
    expect(r2.headers.get('x-prev-page')).toBe('1');
    const link = r2.headers.get('link')!;
    expect(link).toContain(
      '<http://localhost/api/v4/projects?membership=false&order_by=created_at&owned=false&page=1&per_page=1&simple=false&sort=desc&starred=false&statistics=false&visibility=public&with_custom_attributes=false&with_issues_enabled=false&with_merge_requests_enabled=false>; rel="prev"',
    );
  });

  it('GET /projects: page * per_page beyond 50,000 is refused', async () => {
    const { res, body } = await get('/projects?page=501&per_page=100', 'root-api');
    expect(res.status).toBe(405);
    expect(body).toEqual({
      error:
        'Offset pagination has a maximum allowed offset of 50000 for requests that return objects of type Project. Remaining records can be retrieved using keyset pagination.',
    });
    expect((await get('/projects?page=500&per_page=100', 'root-api')).res.status).toBe(200);
    // The check uses per_page as sent, before it is capped at 100.
    expect((await get('/projects?page=100&per_page=1000', 'root-api')).res.status).toBe(405);
  });

  it('GET /projects: keyset pagination needs order_by=id', async () => {
    const { res, body } = await get('/projects?pagination=keyset', 'root-api');
    expect(res.status).toBe(405);
    expect(body).toEqual({ error: 'Keyset pagination is not yet available for this type of request' });
    expect((await get('/projects?pagination=keyset&order_by=name', 'root-api')).res.status).toBe(405);
  });

  it('GET /projects: keyset pages carry only a next Link (and the deprecated Links)', async () => {
    const { res, body } = await get('/projects?pagination=keyset&order_by=id&per_page=2', 'root-api');
    expect(res.status).toBe(200);
    expect(paths(body)).toEqual(['bob/website', 'bob/notes']);
    expect(res.headers.get('x-total')).toBeNull();
    expect(res.headers.get('x-page')).toBeNull();
    const link = res.headers.get('link')!;
    expect(link).toBe(
      '<http://localhost/api/v4/projects?id_before=4&membership=false&order_by=id&owned=false&pagination=keyset&per_page=2&simple=false&sort=desc&starred=false&statistics=false&with_custom_attributes=false&with_issues_enabled=false&with_merge_requests_enabled=false>; rel="next"',
    );
    expect(res.headers.get('links')).toBe(link);
  });

  it('GET /projects: keyset pages walked to the end return every project exactly once', async () => {
    const big = createFauxlab({
      scenario: {
        now: '2021-03-01T12:00:00Z',
        users: [{ username: 'root', admin: true, tokens: [{ token: 'root' }] }],
        generate: { users: 30, groups: 10, projects: 437 },
      },
    });
    for (const sort of ['asc', 'desc']) {
      const seen: number[] = [];
      let url: string | null =
        `/api/v4/projects?pagination=keyset&order_by=id&sort=${sort}&per_page=50&simple=true`;
      let pages = 0;
      while (url) {
        const res = await call(big, 'GET', url.replace('http://localhost', ''), { token: 'root' });
        expect(res.status).toBe(200);
        seen.push(...(await json(res)).map((p: any) => p.id));
        const next = /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '');
        url = next ? next[1]! : null;
        pages++;
      }
      expect(pages).toBe(9);
      expect(seen).toHaveLength(437);
      expect(new Set(seen).size).toBe(437);
      const sorted = [...seen].sort((a, b) => (sort === 'asc' ? a - b : b - a));
      expect(seen).toEqual(sorted);
    }
  });

  it('GET /projects: offset pages walked by Link return every project exactly once', async () => {
    const big = createFauxlab({
      scenario: {
        now: '2021-03-01T12:00:00Z',
        users: [{ username: 'root', admin: true, tokens: [{ token: 'root' }] }],
        generate: { users: 30, groups: 10, projects: 250 },
      },
    });
    const seen: number[] = [];
    let url: string | null = '/api/v4/projects?per_page=100&order_by=name&sort=asc&simple=true';
    while (url) {
      const res = await call(big, 'GET', url.replace('http://localhost', ''), { token: 'root' });
      seen.push(...(await json(res)).map((p: any) => p.id));
      const next = /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '');
      url = next ? next[1]! : null;
    }
    expect(seen).toHaveLength(250);
    expect(new Set(seen).size).toBe(250);
  });

  it('GET /projects: counts are omitted past 10,000 projects', async () => {
    const big = createFauxlab({
      scenario: {
        now: '2021-03-01T12:00:00Z',
        users: [{ username: 'root', admin: true, tokens: [{ token: 'root' }] }],
        generate: { users: 20, groups: 5, projects: 10_001 },
      },
    });
    const res = await call(big, 'GET', '/api/v4/projects?simple=true', { token: 'root' });
    expect(res.headers.get('x-total')).toBeNull();
    expect(res.headers.get('x-total-pages')).toBeNull();
    expect(res.headers.get('x-next-page')).toBe('2');
    expect(res.headers.get('link')).not.toContain('rel="last"');
  });
});
