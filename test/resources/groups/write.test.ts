import { describe, expect, it } from 'vitest';
import { iget, mget, tget } from '../../../src/core/table.js';
import type { Group } from '../../../src/resources/groups/model.js';
import { GROUP_KEYS, groupsFx, refused, send, type Fx } from './world.js';

const groupId = (fx: Fx, path: string) => iget(fx.state.idx.namespaces, path)!;
const group = (fx: Fx, path: string) => tget(fx.state.groups, groupId(fx, path)) as Group;

describe('POST /groups', () => {
  it('POST /groups: anonymous is a 401 before params are looked at', async () => {
    const fx = groupsFx();
    expect(await refused(fx, 'POST', '/groups', undefined, {}, 401)).toEqual({ message: '401 Unauthorized' });
  });

  it('POST /groups: name and path are required', async () => {
    const fx = groupsFx();
    expect(await refused(fx, 'POST', '/groups', 'erin-api', { visibility: 'secret' }, 400)).toEqual({
      error: 'name is missing, path is missing, visibility does not have a valid value',
    });
  });

  it('POST /groups: creates a group owned by its creator, 201 with GroupDetail and no runners token', async () => {
    const fx = groupsFx();
    const out = await send(fx, 'POST', '/groups', 'erin-api', { name: 'New Group', path: 'new-group' });
    expect(out.status).toBe(201);
    expect(Object.keys(out.body)).toEqual([
      ...GROUP_KEYS,
      'shared_with_groups',
      'projects',
      'shared_projects',
    ]);
    expect(out.body).toMatchObject({
      name: 'New Group',
      path: 'new-group',
      full_path: 'new-group',
      full_name: 'New Group',
      visibility: 'private',
      parent_id: null,
      description: '',
      projects: [],
      shared_projects: [],
      web_url: 'http://localhost/groups/new-group',
    });
    const members = await send(fx, 'GET', '/groups/new-group/members', 'erin-api');
    expect(members.body.map((m: any) => [m.username, m.access_level])).toEqual([['erin', 50]]);
    expect((await send(fx, 'GET', '/groups/new-group', 'erin-api')).body.runners_token).toMatch(/^.{20}$/);
  });

  it('POST /groups: optional attributes are stored', async () => {
    const fx = groupsFx();
    const out = await send(fx, 'POST', '/groups', 'erin-api', {
      name: 'Opts',
      path: 'opts',
      description: 'd',
      visibility: 'internal',
      share_with_group_lock: true,
      require_two_factor_authentication: true,
      two_factor_grace_period: 12,
      project_creation_level: 'maintainer',
      auto_devops_enabled: false,
      subgroup_creation_level: 'owner',
      emails_disabled: true,
      mentions_disabled: true,
      lfs_enabled: false,
      request_access_enabled: false,
      default_branch_protection: 1,
    });
    expect(out.body).toMatchObject({
      description: 'd',
      visibility: 'internal',
      share_with_group_lock: true,
      require_two_factor_authentication: true,
      two_factor_grace_period: 12,
      project_creation_level: 'maintainer',
      auto_devops_enabled: false,
      subgroup_creation_level: 'owner',
      emails_disabled: true,
      mentions_disabled: true,
      lfs_enabled: false,
      request_access_enabled: false,
      default_branch_protection: 1,
    });
  });

  it('POST /groups: the visibility defaults to the default_group_visibility setting', async () => {
    const fx = groupsFx({
      scenario: { ...groupsFx().scenario, settings: { default_group_visibility: 'internal' } },
    });
    const out = await send(fx, 'POST', '/groups', 'erin-api', { name: 'x', path: 'xx' });
    expect(out.body.visibility).toBe('internal');
  });

  it('POST /groups: a restricted visibility is refused to non-admins', async () => {
    const fx = groupsFx({
      scenario: { ...groupsFx().scenario, settings: { restricted_visibility_levels: ['public'] } },
    });
    expect(
      await refused(fx, 'POST', '/groups', 'erin-api', { name: 'x', path: 'xx', visibility: 'public' }, 400),
    ).toEqual({
      message:
        'Failed to save group {:visibility_level=>["public has been restricted by your GitLab administrator"]}',
    });
    expect(
      (await send(fx, 'POST', '/groups', 'root-api', { name: 'x', path: 'xx', visibility: 'public' })).status,
    ).toBe(201);
  });

  it('POST /groups: a taken path, a username or any casing of one, is a 400 with the model errors', async () => {
    const fx = groupsFx();
    const body = { message: 'Failed to save group {:path=>["has already been taken"]}' };
    expect(await refused(fx, 'POST', '/groups', 'erin-api', { name: 'A', path: 'ACME' }, 400)).toEqual(body);
    expect(await refused(fx, 'POST', '/groups', 'erin-api', { name: 'A', path: 'bob' }, 400)).toEqual(body);
  });

  it('POST /groups: a subgroup may not take the path of a project beside it', async () => {
    const fx = groupsFx();
    const acme = groupId(fx, 'acme');
    expect(
      await refused(fx, 'POST', '/groups', 'alice-api', { name: 'W', path: 'website', parent_id: acme }, 400),
    ).toEqual({
      message: 'Failed to save group {:path=>["has already been taken"]}',
    });
  });

  it('POST /groups: path format, reserved names and minimum length, in the model order', async () => {
    const fx = groupsFx();
    expect(await refused(fx, 'POST', '/groups', 'erin-api', { name: 'A', path: 'api' }, 400)).toEqual({
      message: 'Failed to save group {:path=>["api is a reserved name"]}',
    });
    expect(await refused(fx, 'POST', '/groups', 'erin-api', { name: 'A', path: 'x' }, 400)).toEqual({
      message: 'Failed to save group {:path=>["is too short (minimum is 2 characters)"]}',
    });
    expect(await refused(fx, 'POST', '/groups', 'erin-api', { name: 'A', path: 'bad.git' }, 400)).toEqual({
      message:
        "Failed to save group {:path=>[\"can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.\"]}",
    });
    const acme = groupId(fx, 'acme');
    // Reserved at the top level only.
    expect(
      (await send(fx, 'POST', '/groups', 'alice-api', { name: 'API', path: 'api', parent_id: acme })).status,
    ).toBe(201);
    expect(
      await refused(fx, 'POST', '/groups', 'alice-api', { name: 'T', path: 'tree', parent_id: acme }, 400),
    ).toEqual({
      message: 'Failed to save group {:path=>["tree is a reserved name"]}',
    });
  });

  it('POST /groups: blank name and path report every model message', async () => {
    const fx = groupsFx();
    const body = await refused(fx, 'POST', '/groups', 'erin-api', { name: '', path: '' }, 400);
    expect(body.message).toBe(
      "Failed to save group {:name=>[\"can't be blank\", \"can contain only letters, digits, emojis, '_', '.', dash, space, parenthesis. It must start with letter, digit, emoji or '_'.\"], " +
        ":path=>[\"can't be blank\", \"can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.\", \"is too short (minimum is 2 characters)\", \"is too short (minimum is 1 character)\", \"can't be blank\"]}",
    );
  });

  it('POST /groups: names with markup are refused', async () => {
    const fx = groupsFx();
    const body = await refused(fx, 'POST', '/groups', 'erin-api', { name: '<b>x</b>', path: 'markup' }, 400);
    expect(body.message).toContain(
      ':name=>["cannot contain HTML/XML tags, including any word between angle brackets (&lt;,&gt;).",',
    );
  });

  it('POST /groups: a subgroup needs owner rights, or maintainer rights where maintainers may create subgroups', async () => {
    const fx = groupsFx();
    const acme = groupId(fx, 'acme');
    expect(
      await refused(fx, 'POST', '/groups', 'bob-api', { name: 'S', path: 'sub', parent_id: acme }, 403),
    ).toEqual({
      message: '403 Forbidden',
    });
    const made = await send(fx, 'POST', '/groups', 'mia-api', { name: 'S', path: 'sub', parent_id: acme });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ full_path: 'acme/sub', full_name: 'Acme Corp / S', parent_id: acme });
  });

  it('POST /groups: maintainers may not create subgroups where only owners may', async () => {
    const fx = groupsFx();
    const acme = groupId(fx, 'acme');
    expect(
      (await send(fx, 'PUT', `/groups/${acme}`, 'alice-api', { subgroup_creation_level: 'owner' })).status,
    ).toBe(200);
    await refused(fx, 'POST', '/groups', 'mia-api', { name: 'S', path: 'sub', parent_id: acme }, 403);
  });

  it('POST /groups: a hidden or missing parent is a 404', async () => {
    const fx = groupsFx();
    const hidden = groupId(fx, 'hidden');
    expect(
      await refused(fx, 'POST', '/groups', 'erin-api', { name: 'S', path: 'sub', parent_id: hidden }, 404),
    ).toEqual({
      message: '404 Group Not Found',
    });
    await refused(fx, 'POST', '/groups', 'erin-api', { name: 'S', path: 'sub', parent_id: 0 }, 404);
  });

  it('POST /groups: a subgroup may not be more visible than its parent', async () => {
    const fx = groupsFx();
    const secret = groupId(fx, 'acme/secret');
    expect(
      await refused(
        fx,
        'POST',
        '/groups',
        'alice-api',
        { name: 'S', path: 'sub', parent_id: secret, visibility: 'public' },
        400,
      ),
    ).toEqual({
      message:
        'Failed to save group {:visibility_level=>["public is not allowed since the parent group has a private visibility."]}',
    });
  });

  it('POST /groups: users who may not create groups get a 403', async () => {
    const fx = groupsFx({
      scenario: { users: [{ username: 'u', can_create_group: false, tokens: [{ token: 'u-api' }] }] },
    });
    await refused(fx, 'POST', '/groups', 'u-api', { name: 'x', path: 'xx' }, 403);
  });

  it('POST /groups: a locked parent locks the new subgroup', async () => {
    const fx = groupsFx();
    const acme = groupId(fx, 'acme');
    await send(fx, 'PUT', `/groups/${acme}`, 'alice-api', { share_with_group_lock: true });
    const out = await send(fx, 'POST', '/groups', 'alice-api', { name: 'S', path: 'sub', parent_id: acme });
    expect(out.body.share_with_group_lock).toBe(true);
  });

  it('POST /groups: an avatar upload is served under the uploads path', async () => {
    const fx = groupsFx();
    const form = new FormData();
    form.append('name', 'Pics');
    form.append('path', 'pics');
    form.append('avatar', new File([new Uint8Array([1, 2, 3])], 'logo.png', { type: 'image/png' }));
    const res = await fx.app.request('http://localhost/api/v4/groups', {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'erin-api' },
      body: form,
    });
    const body = (await res.json()) as any;
    expect(res.status).toBe(201);
    expect(body.avatar_url).toBe(`http://localhost/uploads/-/system/group/avatar/${body.id}/logo.png`);
  });

  it('POST /groups: paid tiers store the LDAP link fields', async () => {
    const fx = groupsFx({ tier: 'ultimate' });
    const out = await send(fx, 'POST', '/groups', 'root-api', {
      name: 'L',
      path: 'ldap',
      ldap_cn: 'devs',
      ldap_access: 30,
    });
    expect(out.body).toMatchObject({ ldap_cn: 'devs', ldap_access: 30 });
    const free = groupsFx();
    const plain = await send(free, 'POST', '/groups', 'root-api', {
      name: 'L',
      path: 'ldap',
      ldap_cn: 'devs',
    });
    expect(plain.status).toBe(201);
    expect(plain.body.ldap_cn).toBeUndefined();
  });

  it('POST /groups: the minutes quotas are for admins on paid tiers', async () => {
    const fx = groupsFx({ tier: 'premium' });
    await refused(
      fx,
      'POST',
      '/groups',
      'erin-api',
      { name: 'x', path: 'xx', shared_runners_minutes_limit: 5 },
      403,
    );
    const out = await send(fx, 'POST', '/groups', 'root-api', {
      name: 'x',
      path: 'xx',
      shared_runners_minutes_limit: 5,
    });
    expect(out.body.shared_runners_minutes_limit).toBe(5);
    expect(
      await refused(fx, 'POST', '/groups', 'root-api', { name: 'y', path: 'yy', ldap_cn: 'cn' }, 400),
    ).toEqual({
      error: 'ldap_cn, ldap_access provide all or none of parameters',
    });
  });
});

describe('PUT /groups/:id', () => {
  it('PUT /groups/:id: owners update attributes; the answer is GroupDetail without the runners token', async () => {
    const fx = groupsFx();
    const out = await send(fx, 'PUT', '/groups/acme', 'alice-api', {
      description: 'New',
      lfs_enabled: false,
    });
    expect(out.status).toBe(200);
    expect(Object.keys(out.body)).toEqual([
      ...GROUP_KEYS,
      'shared_with_groups',
      'projects',
      'shared_projects',
    ]);
    expect(out.body).toMatchObject({ description: 'New', lfs_enabled: false });
    expect(group(fx, 'acme').updated_at).toBe('2021-03-01T12:00:00.000Z');
  });

  it('PUT /groups/:id: developers and maintainers get a 403, strangers on a private group a 404', async () => {
    const fx = groupsFx();
    expect(await refused(fx, 'PUT', '/groups/acme', 'bob-api', { description: 'x' }, 403)).toEqual({
      message: '403 Forbidden',
    });
    await refused(fx, 'PUT', '/groups/acme', 'mia-api', { description: 'x' }, 403);
    await refused(fx, 'PUT', '/groups/hidden', 'erin-api', { description: 'x' }, 404);
    await refused(fx, 'PUT', '/groups/acme', undefined, { description: 'x' }, 401);
  });

  it('PUT /groups/:id: a new path renames every group and project below, indexes included', async () => {
    const fx = groupsFx();
    const out = await send(fx, 'PUT', '/groups/acme', 'alice-api', { path: 'acme-inc', name: 'Acme Inc' });
    expect(out.status).toBe(200);
    expect(out.body).toMatchObject({
      path: 'acme-inc',
      full_path: 'acme-inc',
      name: 'Acme Inc',
      full_name: 'Acme Inc',
    });
    expect(group(fx, 'acme-inc/secret/deep')).toMatchObject({
      full_path: 'acme-inc/secret/deep',
      full_name: 'Acme Inc / Secret / Deep',
    });
    expect(iget(fx.state.idx.namespaces, 'acme')).toBeUndefined();
    expect(iget(fx.state.idx.namespaces, 'acme/secret')).toBeUndefined();
    const vault = iget(fx.state.idx.projects, 'acme-inc/secret/vault')!;
    expect(tget(fx.state.projects, vault)!.path_with_namespace).toBe('acme-inc/secret/vault');
    expect(iget(fx.state.idx.projects, 'acme/secret/vault')).toBeUndefined();
    const deep = await send(fx, 'GET', '/groups/acme-inc%2Fsecret%2Fdeep', 'alice-api');
    expect(deep.body).toMatchObject({
      full_path: 'acme-inc/secret/deep',
      web_url: 'http://localhost/groups/acme-inc/secret/deep',
    });
    expect((await send(fx, 'GET', '/groups/acme%2Fsecret', 'alice-api')).status).toBe(404);
    const listed = await send(fx, 'GET', '/groups?search=acme-inc/secret', 'alice-api');
    expect(listed.body.map((g: any) => g.full_path)).toEqual(['acme-inc/secret/deep', 'acme-inc/secret']);
    const moved = await send(fx, 'GET', '/projects/acme-inc%2Fsecret%2Fvault', 'alice-api');
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({
      path_with_namespace: 'acme-inc/secret/vault',
      name_with_namespace: 'Acme Inc / Secret / vault',
      web_url: 'http://localhost/acme-inc/secret/vault',
      namespace: { full_path: 'acme-inc/secret', web_url: 'http://localhost/groups/acme-inc/secret' },
    });
    expect((await send(fx, 'GET', '/projects/acme%2Fsecret%2Fvault', 'alice-api')).status).toBe(404);
    const detail = await send(fx, 'GET', '/groups/acme-inc%2Fsecret', 'alice-api');
    expect(detail.body.projects.map((p: any) => p.path_with_namespace)).toEqual(['acme-inc/secret/vault']);
  });

  it('PUT /groups/:id: a subgroup rename moves only its own subtree', async () => {
    const fx = groupsFx();
    const out = await send(fx, 'PUT', '/groups/acme%2Fsecret', 'alice-api', { path: 'vaults' });
    expect(out.body.full_path).toBe('acme/vaults');
    expect(group(fx, 'acme/vaults/deep').full_path).toBe('acme/vaults/deep');
    expect(iget(fx.state.idx.projects, 'acme/vaults/vault')).toBeDefined();
    expect(iget(fx.state.idx.projects, 'acme/website')).toBeDefined();
  });

  it('PUT /groups/:id: validation errors are the model errors hash', async () => {
    const fx = groupsFx();
    expect(await refused(fx, 'PUT', '/groups/acme%2Fsecret', 'alice-api', { path: 'labs' }, 400)).toEqual({
      message: { path: ['has already been taken'] },
    });
    expect(
      await refused(fx, 'PUT', '/groups/acme%2Fsecret%2Fdeep', 'alice-api', { visibility: 'internal' }, 400),
    ).toEqual({
      message: {
        visibility_level: ['internal is not allowed since the parent group has a private visibility.'],
      },
    });
  });

  it('PUT /groups/:id: visibility may not drop below a project or subgroup inside', async () => {
    const fx = groupsFx();
    expect(await refused(fx, 'PUT', '/groups/acme', 'alice-api', { visibility: 'private' }, 400)).toEqual({
      message: {
        visibility_level: [
          'private is not allowed since this group contains projects with higher visibility.',
          'private is not allowed since there are sub-groups with higher visibility.',
        ],
      },
    });
  });

  it('PUT /groups/:id: a restricted visibility is refused to non-admins', async () => {
    const fx = groupsFx({
      scenario: { ...groupsFx().scenario, settings: { restricted_visibility_levels: [10] } },
    });
    expect(await refused(fx, 'PUT', '/groups/hidden', 'dave-api', { visibility: 'internal' }, 400)).toEqual({
      message: { visibility_level: ['internal has been restricted by your GitLab administrator'] },
    });
    const admin = await send(fx, 'PUT', '/groups/hidden', 'root-api', { visibility: 'internal' });
    expect(admin).toMatchObject({ status: 200, body: { visibility: 'internal' } });
  });

  it('PUT /groups/:id: turning the share lock on locks every descendant', async () => {
    const fx = groupsFx();
    await send(fx, 'PUT', '/groups/acme', 'alice-api', { share_with_group_lock: true });
    expect(group(fx, 'acme/secret/deep').share_with_group_lock).toBe(true);
    expect(group(fx, 'hidden').share_with_group_lock).toBe(false);
  });

  it('PUT /groups/:id: bad params are a 400 before the group is looked up', async () => {
    const fx = groupsFx();
    expect(
      await refused(fx, 'PUT', '/groups/nope', 'alice-api', { two_factor_grace_period: 'x' }, 400),
    ).toEqual({
      error: 'two_factor_grace_period is invalid',
    });
    expect(
      await refused(fx, 'PUT', '/groups/acme', 'alice-api', { two_factor_grace_period: -1 }, 400),
    ).toEqual({
      message: { two_factor_grace_period: ['must be greater than or equal to 0'] },
    });
  });
});

describe('DELETE /groups/:id', () => {
  it('DELETE /groups/:id: 202 Accepted; the subgroups, projects and memberships go too', async () => {
    const fx = groupsFx();
    const secret = groupId(fx, 'acme/secret');
    const out = await send(fx, 'DELETE', '/groups/acme%2Fsecret', 'alice-api');
    expect(out).toMatchObject({ status: 202, body: { message: '202 Accepted' } });
    expect(iget(fx.state.idx.namespaces, 'acme/secret/deep')).toBeUndefined();
    expect(iget(fx.state.idx.projects, 'acme/secret/vault')).toBeUndefined();
    expect(mget(fx.state.idx.membersByUser, '7')).toEqual([]);
    expect(tget(fx.state.groups, secret)).toBeUndefined();
    expect((await send(fx, 'GET', '/groups/acme%2Fsecret', 'alice-api')).status).toBe(404);
    expect((await send(fx, 'GET', '/groups/acme', 'alice-api')).status).toBe(200);
  });

  it('DELETE /groups/:id: owners and admins only', async () => {
    const fx = groupsFx();
    await refused(fx, 'DELETE', '/groups/acme', 'mia-api', undefined, 403);
    await refused(fx, 'DELETE', '/groups/hidden', 'erin-api', undefined, 404);
    await refused(fx, 'DELETE', '/groups/acme', undefined, undefined, 401);
    expect((await send(fx, 'DELETE', '/groups/hidden', 'root-api')).status).toBe(202);
  });

  it('DELETE /groups/:id: 412 when If-Unmodified-Since is older than the last change', async () => {
    const fx = groupsFx();
    const before = fx.state;
    const old = await send(fx, 'DELETE', '/groups/acme', 'alice-api', undefined, {
      'If-Unmodified-Since': 'Sun, 28 Feb 2021 12:00:00 GMT',
    });
    expect(old).toMatchObject({ status: 412, body: { message: '412 Precondition Failed' } });
    expect(fx.state).toBe(before);
    const fresh = await send(fx, 'DELETE', '/groups/acme', 'alice-api', undefined, {
      'If-Unmodified-Since': 'Tue, 02 Mar 2021 12:00:00 GMT',
    });
    expect(fresh.status).toBe(202);
  });

  it('DELETE /groups/:id: paid tiers mark the group for deletion instead', async () => {
    const fx = groupsFx({ tier: 'premium' });
    expect((await send(fx, 'DELETE', '/groups/acme', 'alice-api')).status).toBe(202);
    const shown = await send(fx, 'GET', '/groups/acme', 'alice-api');
    expect(shown.body.marked_for_deletion_on).toBe('2021-03-01');
    expect(await refused(fx, 'DELETE', '/groups/acme', 'alice-api', undefined, 400)).toEqual({
      message: 'Group has been already marked for deletion',
    });
    const now = groupsFx({
      tier: 'premium',
      scenario: { ...groupsFx().scenario, settings: { deletion_adjourned_period: 0 } },
    });
    expect((await send(now, 'DELETE', '/groups/acme', 'alice-api')).status).toBe(202);
    expect(iget(now.state.idx.namespaces, 'acme')).toBeUndefined();
  });
});
