import { produce } from 'immer';
import { describe, expect, it } from 'vitest';
import { addShare } from '../../../src/resources/projects/model.js';
import { iget } from '../../../src/core/table.js';
import { EE_GROUP_KEYS, GROUP_KEYS, groupsFx, paths, send } from './world.js';

const fx = groupsFx();
const list = async (query: string, token?: string) => {
  const out = await send(fx, 'GET', `/groups${query}`, token);
  expect(out.status).toBe(200);
  return out;
};

describe('GET /groups', () => {
  it('GET /groups: anonymous callers see public groups only', async () => {
    const { body } = await list('');
    expect(paths(body)).toEqual(['acme']);
  });

  it('GET /groups: the Group entity has the platform fields in order, with their defaults', async () => {
    const { body } = await list('?search=acme', 'alice-api');
    const acme = body.find((g: any) => g.full_path === 'acme');
    expect(Object.keys(acme)).toEqual(GROUP_KEYS);
    expect(acme).toEqual({
      id: acme.id,
      web_url: 'http://localhost/groups/acme',
      name: 'Acme Corp',
      path: 'acme',
      description: 'Everything',
      visibility: 'public',
      share_with_group_lock: false,
      require_two_factor_authentication: false,
      two_factor_grace_period: 48,
      project_creation_level: 'developer',
      auto_devops_enabled: null,
      subgroup_creation_level: 'maintainer',
      emails_disabled: null,
      mentions_disabled: null,
      lfs_enabled: true,
      default_branch_protection: 2,
      avatar_url: null,
      request_access_enabled: true,
      full_name: 'Acme Corp',
      full_path: 'acme',
      created_at: '2021-03-01T12:00:00.000Z',
      parent_id: null,
    });
    const deep = body.find((g: any) => g.full_path === 'acme/secret/deep');
    expect(deep.full_name).toBe('Acme Corp / Secret / Deep');
    expect(deep.web_url).toBe('http://localhost/groups/acme/secret/deep');
  });

  it('GET /groups: a member sees their groups, the descendants and the ancestors, not other internal groups', async () => {
    const { body } = await list('', 'alice-api');
    expect(paths(body)).toEqual(['acme', 'acme/secret/deep', 'acme/labs', 'acme/secret']);
  });

  it('GET /groups: names order by byte value, with the id breaking ties ascending in both directions', async () => {
    const asc = await list('?order_by=name', 'root-api');
    expect(asc.body.map((g: any) => g.name)).toEqual([
      'Acme Corp',
      'Deep',
      'Hidden',
      'Inner',
      'Labs',
      'Secret',
      'Zeta',
    ]);
    const desc = await list('?order_by=name&sort=desc', 'root-api');
    expect(desc.body.map((g: any) => g.name)).toEqual([
      'Zeta',
      'Secret',
      'Labs',
      'Inner',
      'Hidden',
      'Deep',
      'Acme Corp',
    ]);
  });

  it('GET /groups: order_by path and id, both directions', async () => {
    expect(paths((await list('?order_by=path', 'root-api')).body)).toEqual([
      'acme',
      'acme/secret/deep',
      'hidden',
      'hidden/inner',
      'acme/labs',
      'acme/secret',
      'zeta',
    ]);
    const ids = (await list('?order_by=id&sort=desc', 'root-api')).body.map((g: any) => g.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect((await list('?order_by=id', 'root-api')).body.map((g: any) => g.id)).toEqual([...ids].reverse());
  });

  it('GET /groups: equal names keep ascending ids whatever the sort', async () => {
    const twin = groupsFx({
      scenario: {
        users: [{ username: 'root', admin: true, tokens: [{ token: 'root-api' }] }],
        groups: [
          { path: 'b', name: 'Same' },
          { path: 'a', name: 'Same' },
          { path: 'c', name: 'Other' },
        ],
      },
    });
    const asc = await send(twin, 'GET', '/groups', 'root-api');
    expect(paths(asc.body)).toEqual(['c', 'b', 'a']);
    const desc = await send(twin, 'GET', '/groups?sort=desc', 'root-api');
    expect(paths(desc.body)).toEqual(['b', 'a', 'c']);
  });

  it('GET /groups: all_available defaults to true for admins and false for users', async () => {
    expect((await list('', 'root-api')).body).toHaveLength(7);
    expect((await list('?all_available=false', 'root-api')).body).toEqual([]);
    expect(paths((await list('?all_available=true', 'erin-api')).body)).toEqual([
      'acme',
      'acme/labs',
      'zeta',
    ]);
    expect((await list('', 'erin-api')).body).toEqual([]);
  });

  it('GET /groups: all_available adds the groups public to the user to their own', async () => {
    expect(paths((await list('?all_available=true', 'dave-api')).body)).toEqual([
      'acme',
      'hidden',
      'hidden/inner',
      'acme/labs',
      'zeta',
    ]);
  });

  it('GET /groups: external users get public groups only with all_available', async () => {
    expect(paths((await list('?all_available=true', 'carol-api')).body)).toEqual(['acme']);
  });

  it('GET /groups: a project member sees the project group and its ancestors, not the siblings below', async () => {
    expect(paths((await list('', 'frank-api')).body)).toEqual(['acme', 'acme/secret']);
  });

  it('GET /groups: a subgroup member sees the private ancestors', async () => {
    expect(paths((await list('', 'grace-api')).body)).toEqual(['hidden', 'hidden/inner']);
  });

  it('GET /groups: a share reaches the members of the group the project is shared with', async () => {
    const shared = groupsFx();
    const st = shared.state;
    const vault = iget(st.idx.projects, 'acme/secret/vault')!;
    const zeta = iget(st.idx.namespaces, 'zeta')!;
    const next = produce(st, (d) => {
      addShare(d, vault, zeta, 30, '2021-03-01T12:00:00.000Z');
    });
    shared.restore({ state: next, clock: shared.clock.ms() });
    const erinInZeta = await send(shared, 'POST', `/groups/${zeta}/members`, 'root-api', {
      user_id: 6,
      access_level: 10,
    });
    expect(erinInZeta.status).toBe(201);
    expect(paths((await send(shared, 'GET', '/groups', 'erin-api')).body)).toEqual([
      'acme',
      'acme/secret',
      'zeta',
    ]);
  });

  it('GET /groups: owned lists direct owner memberships only', async () => {
    expect(paths((await list('?owned=true', 'alice-api')).body)).toEqual(['acme']);
    expect((await list('?owned=true', 'bob-api')).body).toEqual([]);
    expect((await list('?owned=true')).body).toEqual([]);
    expect((await list('?owned=true', 'root-api')).body).toEqual([]);
  });

  it('GET /groups: min_access_level takes direct memberships at that level, with their descendants', async () => {
    expect(paths((await list('?min_access_level=30', 'bob-api')).body)).toEqual([
      'acme',
      'acme/secret/deep',
      'acme/labs',
      'acme/secret',
    ]);
    expect((await list('?min_access_level=40', 'bob-api')).body).toEqual([]);
    expect((await list('?min_access_level=10&all_available=true', 'grace-api')).body.length).toBe(1);
  });

  it('GET /groups: min_access_level must be an access level', async () => {
    const out = await send(fx, 'GET', '/groups?min_access_level=35', 'alice-api');
    expect(out.status).toBe(400);
    expect(out.body).toEqual({ error: 'min_access_level does not have a valid value' });
  });

  it('GET /groups: search matches the full path or the full name', async () => {
    expect(paths((await list('?search=secret', 'root-api')).body)).toEqual([
      'acme/secret/deep',
      'acme/secret',
    ]);
    expect(paths((await list('?search=acme%20corp%20deep', 'root-api')).body)).toEqual(['acme/secret/deep']);
    expect(paths((await list('?search=SECRET/DEEP', 'root-api')).body)).toEqual(['acme/secret/deep']);
  });

  it('GET /groups: a search shorter than three characters must equal a whole path or name (any case)', async () => {
    const short = groupsFx({
      scenario: {
        users: [{ username: 'root', admin: true, tokens: [{ token: 'root-api' }] }],
        groups: [{ path: 'ab' }, { path: 'abc' }, { path: 'xy', name: 'AB' }],
      },
    });
    expect(paths((await send(short, 'GET', '/groups?search=ab', 'root-api')).body)).toEqual(['xy', 'ab']);
  });

  it('GET /groups: skip_groups drops ids, as an array or comma-separated', async () => {
    const all = (await list('', 'root-api')).body;
    const [a, b] = [all[0].id, all[1].id];
    expect((await list(`?skip_groups[]=${a}&skip_groups[]=${b}`, 'root-api')).body).toHaveLength(5);
    expect((await list(`?skip_groups=${a},${b}`, 'root-api')).body).toHaveLength(5);
    const bad = await send(fx, 'GET', '/groups?skip_groups=x', 'root-api');
    expect(bad.body).toEqual({ error: 'skip_groups is invalid' });
  });

  it('GET /groups: top_level_only keeps groups without a parent', async () => {
    expect(paths((await list('?top_level_only=true', 'root-api')).body)).toEqual(['acme', 'hidden', 'zeta']);
  });

  it('GET /groups: statistics are shown to admins only, summed over the own projects', async () => {
    const admin = (await list('?statistics=true&search=acme%20corp', 'root-api')).body[0];
    expect(Object.keys(admin)).toEqual([...GROUP_KEYS, 'statistics']);
    expect(Object.keys(admin.statistics)).toEqual([
      'storage_size',
      'repository_size',
      'wiki_size',
      'lfs_objects_size',
      'job_artifacts_size',
      'packages_size',
      'snippets_size',
    ]);
    expect(admin.statistics.repository_size).toBeGreaterThan(0);
    const user = (await list('?statistics=true&search=acme%20corp', 'alice-api')).body[0];
    expect(user.statistics).toBeUndefined();
  });

  it('GET /groups: custom attributes for admins only, as filter and as field', async () => {
    const attrs = groupsFx({
      scenario: {
        users: [
          { username: 'root', admin: true, tokens: [{ token: 'root-api' }] },
          { username: 'u', tokens: [{ token: 'u-api' }] },
        ],
        groups: [
          { path: 'red', visibility: 'public', custom_attributes: { team: 'red' } },
          { path: 'blue', visibility: 'public', custom_attributes: { team: 'blue' } },
        ],
      },
    });
    const filtered = await send(
      attrs,
      'GET',
      '/groups?custom_attributes[team]=red&with_custom_attributes=true',
      'root-api',
    );
    expect(paths(filtered.body)).toEqual(['red']);
    expect(filtered.body[0].custom_attributes).toEqual([{ key: 'team', value: 'red' }]);
    const user = await send(
      attrs,
      'GET',
      '/groups?custom_attributes[team]=red&with_custom_attributes=true',
      'u-api',
    );
    expect(paths(user.body)).toEqual([]);
    const userAll = await send(
      attrs,
      'GET',
      '/groups?custom_attributes[team]=red&with_custom_attributes=true&all_available=true',
      'u-api',
    );
    expect(paths(userAll.body)).toEqual(['blue', 'red']);
    expect(userAll.body[0].custom_attributes).toBeUndefined();
  });

  it('GET /groups: similarity orders by path and name similarity behind its flag, else by name', async () => {
    const sim = groupsFx({
      scenario: {
        features: [{ name: 'similarity_search', state: 'on' }],
        users: [{ username: 'root', admin: true, tokens: [{ token: 'root-api' }] }],
        groups: [
          { path: 'toolbox', name: 'Box of tools' },
          { path: 'tool', name: 'Tool' },
          { path: 'tools-legacy', name: 'Legacy tools' },
        ],
      },
    });
    const on = await send(sim, 'GET', '/groups?search=tool&order_by=similarity', 'root-api');
    expect(paths(on.body)).toEqual(['tool', 'toolbox', 'tools-legacy']);
    const simOff = groupsFx({ scenario: { ...sim.scenario, features: [] } });
    const off = await send(simOff, 'GET', '/groups?search=tool&order_by=similarity', 'root-api');
    expect(paths(off.body)).toEqual(['toolbox', 'tools-legacy', 'tool']);
    const byName = await send(sim, 'GET', '/groups?order_by=similarity&sort=desc', 'root-api');
    expect(byName.body.map((g: any) => g.name)).toEqual(['Tool', 'Legacy tools', 'Box of tools']);
  });

  it('GET /groups: paginated with the platform headers and links carrying the declared defaults', async () => {
    const { res, body } = await list('?per_page=2&page=2', 'root-api');
    expect(body).toHaveLength(2);
    expect(res.headers.get('x-total')).toBe('7');
    expect(res.headers.get('x-total-pages')).toBe('4');
    expect(res.headers.get('x-next-page')).toBe('3');
    expect(res.headers.get('link')).toContain(
      '<http://localhost/api/v4/groups?order_by=name&owned=false&page=3&per_page=2&sort=asc&statistics=false&with_custom_attributes=false>; rel="next"',
    );
  });

  it('GET /groups: order_by and sort must be known values', async () => {
    const out = await send(fx, 'GET', '/groups?order_by=created_at&sort=up', 'root-api');
    expect(out.status).toBe(400);
    expect(out.body).toEqual({
      error: 'order_by does not have a valid value, sort does not have a valid value',
    });
  });

  it('GET /groups: paid tiers add the EE fields', async () => {
    const paid = groupsFx({ tier: 'premium' });
    const { body } = await send(paid, 'GET', '/groups?search=acme%20corp', 'alice-api');
    expect(Object.keys(body[0])).toEqual(EE_GROUP_KEYS);
    expect(body[0]).toMatchObject({
      ldap_cn: null,
      ldap_access: null,
      file_template_project_id: null,
      marked_for_deletion_on: null,
    });
  });
});

describe('GET /groups/:id/subgroups', () => {
  it('GET /groups/:id/subgroups: direct children only, by name', async () => {
    const out = await send(fx, 'GET', '/groups/acme/subgroups', 'alice-api');
    expect(out.status).toBe(200);
    expect(paths(out.body)).toEqual(['acme/labs', 'acme/secret']);
  });

  it('GET /groups/:id/subgroups: anonymous callers see the public ones, signed-in strangers need all_available', async () => {
    const pub = groupsFx({
      scenario: {
        users: [{ username: 'erin', tokens: [{ token: 'erin-api' }] }],
        groups: [
          { path: 'top', visibility: 'public' },
          { path: 'top/open', visibility: 'public' },
          { path: 'top/inside', visibility: 'internal' },
        ],
      },
    });
    expect(paths((await send(pub, 'GET', '/groups/top/subgroups')).body)).toEqual(['top/open']);
    expect((await send(pub, 'GET', '/groups/top/subgroups', 'erin-api')).body).toEqual([]);
    expect(
      paths((await send(pub, 'GET', '/groups/top/subgroups?all_available=true', 'erin-api')).body),
    ).toEqual(['top/inside', 'top/open']);
  });

  it('GET /groups/:id/subgroups: a hidden or missing parent is a 404', async () => {
    expect(await send(fx, 'GET', '/groups/hidden/subgroups', 'erin-api')).toMatchObject({
      status: 404,
      body: { message: '404 Group Not Found' },
    });
    expect((await send(fx, 'GET', '/groups/nope/subgroups', 'root-api')).status).toBe(404);
  });

  it('GET /groups/:id/subgroups: top_level_only is not a subgroups param', async () => {
    const out = await send(fx, 'GET', '/groups/acme/subgroups?top_level_only=true', 'alice-api');
    expect(paths(out.body)).toEqual(['acme/labs', 'acme/secret']);
    expect(out.res.headers.get('link')).toContain('id=acme');
  });

  it('GET /groups/:id/subgroups: by numeric id and by encoded path alike', async () => {
    const acme = (await send(fx, 'GET', '/groups/acme', 'alice-api')).body;
    const byId = await send(fx, 'GET', `/groups/${acme.id}/subgroups`, 'alice-api');
    const byPath = await send(fx, 'GET', '/groups/acme%2Fsecret/subgroups', 'alice-api');
    expect(paths(byId.body)).toEqual(['acme/labs', 'acme/secret']);
    expect(paths(byPath.body)).toEqual(['acme/secret/deep']);
  });
});
