import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { send, setupWorld, world } from '../metadata/world.js';

/** Personal namespaces 1-5 (root, owner, maint, dev, outsider), then the group acme (6). */
const userNs = (id: number, username: string, name: string) => ({
  id,
  name,
  path: username,
  kind: 'user',
  full_path: username,
  parent_id: null,
  avatar_url: null,
  web_url: `http://localhost/${username}`,
});
const acme = {
  id: 6,
  name: 'acme',
  path: 'acme',
  kind: 'group',
  full_path: 'acme',
  parent_id: null,
  avatar_url: null,
  web_url: 'http://localhost/groups/acme',
};

describe('GET /namespaces', () => {
  it("GET /namespaces: the caller's own namespace and their groups, by id; owners see the member count", async () => {
    const fx = world();
    const r = await send(fx, 'GET', '/namespaces', 'owner');
    expect(r.status).toBe(200);
    expect(r.body).toEqual([
      userNs(2, 'owner', 'Olive Owner'),
      { ...acme, members_count_with_descendants: 3 },
    ]);
    expect(r.res.headers.get('X-Total')).toBe('2');
    const dev = await send(fx, 'GET', '/namespaces', 'dev');
    expect(dev.body).toEqual([userNs(4, 'dev', 'Dev User'), acme]);
    expect((await send(fx, 'GET', '/namespaces', 'outsider')).body).toEqual([
      userNs(5, 'outsider', 'Otto Outsider'),
    ]);
  });

  it('GET /namespaces: an admin gets every namespace, paginated', async () => {
    const fx = world();
    const r = await send(fx, 'GET', '/namespaces?per_page=2&page=3', 'root');
    expect(r.body.map((n: any) => n.full_path)).toEqual(['outsider', 'acme']);
    expect(r.res.headers.get('X-Total')).toBe('6');
    expect(r.res.headers.get('X-Prev-Page')).toBe('2');
  });

  it('GET /namespaces: search matches path or name from three characters, whole below', async () => {
    const fx = world();
    expect((await send(fx, 'GET', '/namespaces?search=OLIVE', 'root')).body.map((n: any) => n.path)).toEqual([
      'owner',
    ]);
    expect((await send(fx, 'GET', '/namespaces?search=ac', 'owner')).body).toEqual([]);
    expect((await send(fx, 'GET', '/namespaces?search=cme', 'owner')).body.map((n: any) => n.id)).toEqual([
      6,
    ]);
  });

  it('GET /namespaces: owned_only keeps the groups the caller owns', async () => {
    const fx = world();
    expect((await send(fx, 'GET', '/namespaces?owned_only=true', 'dev')).body.map((n: any) => n.id)).toEqual([
      4,
    ]);
    expect(
      (await send(fx, 'GET', '/namespaces?owned_only=true', 'owner')).body.map((n: any) => n.id),
    ).toEqual([2, 6]);
  });

  it('GET /namespaces: 401 without a user, before the params are checked', async () => {
    const fx = world();
    expect(await send(fx, 'GET', '/namespaces?per_page=x')).toMatchObject({
      status: 401,
      body: { message: '401 Unauthorized' },
    });
    expect((await send(fx, 'GET', '/namespaces?owned_only=maybe', 'dev')).body).toEqual({
      error: 'owned_only is invalid',
    });
  });

  it('GET /namespaces: paid tiers add the billable count, the plan for those who administer it, quotas for admins', async () => {
    const fx = createFauxlab({ scenario: { ...setupWorld, tier: 'premium' } });
    const dev = await send(fx, 'GET', '/namespaces', 'dev');
    expect(dev.body[0]).toEqual({
      ...userNs(4, 'dev', 'Dev User'),
      billable_members_count: 1,
      plan: 'default',
      trial_ends_on: null,
      trial: false,
    });
    expect(dev.body[1]).toEqual({ ...acme, billable_members_count: 3 });
    const root = await send(fx, 'GET', '/namespaces/acme', 'root');
    expect(root.body).toEqual({
      ...acme,
      members_count_with_descendants: 3,
      shared_runners_minutes_limit: null,
      extra_shared_runners_minutes_limit: null,
      billable_members_count: 3,
      plan: 'default',
      trial_ends_on: null,
      trial: false,
    });
  });
});

describe('GET /namespaces/:id', () => {
  it('GET /namespaces/:id: by id or path; a personal namespace only to its owner and admins', async () => {
    const fx = world();
    expect((await send(fx, 'GET', '/namespaces/6', 'outsider')).body).toEqual(acme);
    expect((await send(fx, 'GET', '/namespaces/ACME', 'dev')).body).toEqual(acme);
    expect((await send(fx, 'GET', '/namespaces/dev', 'dev')).body).toEqual(userNs(4, 'dev', 'Dev User'));
    expect((await send(fx, 'GET', '/namespaces/4', 'root')).body).toEqual(userNs(4, 'dev', 'Dev User'));
    expect(await send(fx, 'GET', '/namespaces/dev', 'owner')).toMatchObject({
      status: 404,
      body: { message: '404 Namespace Not Found' },
    });
    expect((await send(fx, 'GET', '/namespaces/999', 'root')).status).toBe(404);
  });

  it('GET /namespaces/:id: a private group is hidden from non-members; a subgroup by its encoded path', async () => {
    const fx = world();
    await send(fx, 'POST', '/groups', 'owner', { name: 'Secret', path: 'secret', visibility: 'private' });
    await send(fx, 'POST', '/groups', 'owner', { name: 'Sub', path: 'sub', parent_id: 6 });
    expect((await send(fx, 'GET', '/namespaces/secret', 'outsider')).status).toBe(404);
    expect((await send(fx, 'GET', '/namespaces/secret', 'owner')).status).toBe(200);
    const sub = await send(fx, 'GET', '/namespaces/acme%2Fsub', 'dev');
    expect(sub.body).toMatchObject({ kind: 'group', full_path: 'acme/sub', parent_id: 6 });
    // The parent counts the memberships of its subgroups too.
    await send(fx, 'POST', `/groups/${sub.body.id}/members`, 'owner', { user_id: 5, access_level: 10 });
    expect((await send(fx, 'GET', '/namespaces/acme', 'owner')).body.members_count_with_descendants).toBe(4);
    expect(await send(fx, 'GET', '/namespaces/acme')).toMatchObject({ status: 401 });
  });
});

describe('GET /namespaces/:namespace/exists', () => {
  it('GET /namespaces/:namespace/exists: top-level paths of users and groups, with a free suggestion', async () => {
    const fx = world();
    expect((await send(fx, 'GET', '/namespaces/ACME/exists', 'dev')).body).toEqual({
      exists: true,
      suggests: ['ACME1'],
    });
    expect((await send(fx, 'GET', '/namespaces/owner/exists', 'dev')).body).toEqual({
      exists: true,
      suggests: ['owner1'],
    });
    expect((await send(fx, 'GET', '/namespaces/fresh/exists', 'dev')).body).toEqual({
      exists: false,
      suggests: [],
    });
  });

  it('GET /namespaces/:namespace/exists: parent_id looks under that group only', async () => {
    const fx = world();
    await send(fx, 'POST', '/groups', 'owner', { name: 'Sub', path: 'sub', parent_id: 6 });
    expect((await send(fx, 'GET', '/namespaces/sub/exists', 'dev')).body.exists).toBe(false);
    expect((await send(fx, 'GET', '/namespaces/sub/exists?parent_id=6', 'dev')).body).toEqual({
      exists: true,
      suggests: ['sub1'],
    });
    expect((await send(fx, 'GET', '/namespaces/acme/exists?parent_id=6', 'dev')).body.exists).toBe(false);
    expect((await send(fx, 'GET', '/namespaces/sub/exists?parent_id=x', 'dev')).body).toEqual({
      error: 'parent_id is invalid',
    });
    expect((await send(fx, 'GET', '/namespaces/sub/exists')).status).toBe(401);
  });
});
