/**
 * Group sharing: `POST /groups/:id/share`, `DELETE /groups/:id/share/:group_id`, the `shared_with_groups`
 * of `GroupDetail`, and what a link gives the direct members of the group shared with.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { json, request, tok } from '../helpers.js';

const world: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [
    { username: 'root', admin: true, tokens: tok('root-api') },
    { username: 'olive', tokens: tok('olive-api') },
    { username: 'max', tokens: tok('max-api') },
    { username: 'dev', tokens: tok('dev-api') },
    { username: 'upper', tokens: tok('upper-api') },
    { username: 'stranger', tokens: tok('stranger-api') },
  ],
  groups: [
    {
      path: 'vault',
      visibility: 'private',
      members: [
        { username: 'olive', access_level: 'owner' },
        { username: 'max', access_level: 'maintainer' },
      ],
    },
    { path: 'vault/inner', visibility: 'private' },
    { path: 'team', visibility: 'private', members: [{ username: 'upper', access_level: 'owner' }] },
    {
      path: 'team/devs',
      visibility: 'private',
      members: [
        { username: 'dev', access_level: 'maintainer' },
        { username: 'olive', access_level: 'owner' },
      ],
    },
    { path: 'open', visibility: 'public', members: [{ username: 'olive', access_level: 'owner' }] },
  ],
  projects: [
    { path: 'vault/inner/code', visibility: 'private' },
    { path: 'vault/app', visibility: 'private' },
  ],
};

const fx0 = () => createFauxlab({ scenario: world });
type Fx = ReturnType<typeof fx0>;

async function send(fx: Fx, method: string, path: string, token?: string, body?: unknown) {
  const res = await request(fx, method, `/api/v4${path}`, { token, body });
  return { status: res.status, body: await json(res) };
}

const share = (fx: Fx, token: string, body: unknown, group = 'vault') =>
  send(fx, 'POST', `/groups/${group}/share`, token, body);
const id = async (fx: Fx, path: string) =>
  (await send(fx, 'GET', `/groups/${encodeURIComponent(path)}`, 'root-api')).body.id as number;

describe('POST /groups/:id/share', () => {
  it('shares the group: 201 with the group detail and its shared_with_groups', async () => {
    const fx = fx0();
    const devs = await id(fx, 'team/devs');
    const out = await share(fx, 'olive-api', { group_id: devs, group_access: 30, expires_at: '2021-06-01' });
    expect(out.status).toBe(201);
    expect(out.body.shared_with_groups).toEqual([
      {
        group_id: devs,
        group_name: 'devs',
        group_full_path: 'team/devs',
        group_access_level: 30,
        expires_at: '2021-06-01',
      },
    ]);
    const keys = Object.keys(out.body);
    expect(keys.slice(keys.indexOf('shared_with_groups'))).toEqual([
      'shared_with_groups',
      'projects',
      'shared_projects',
    ]);
    const shown = await send(fx, 'GET', '/groups/vault', 'olive-api');
    expect(shown.body.shared_with_groups).toHaveLength(1);
    expect(Object.keys(shown.body)).toContain('runners_token');
  });

  it("the shared group's direct members get the group, its subgroups and projects at min(link, membership)", async () => {
    const fx = fx0();
    const devs = await id(fx, 'team/devs');
    expect((await send(fx, 'GET', '/projects/vault%2Finner%2Fcode', 'dev-api')).status).toBe(404);
    expect((await share(fx, 'olive-api', { group_id: devs, group_access: 30 })).status).toBe(201);
    expect((await send(fx, 'GET', '/groups/vault', 'dev-api')).status).toBe(200);
    expect((await send(fx, 'GET', '/groups/vault%2Finner', 'dev-api')).status).toBe(200);
    const project = await send(fx, 'GET', '/projects/vault%2Finner%2Fcode', 'dev-api');
    expect(project.status).toBe(200);
    // Developer (the link) below maintainer (the membership): a developer may push, not administer.
    expect((await send(fx, 'PUT', '/projects/vault%2Fapp', 'dev-api', { description: 'x' })).status).toBe(
      403,
    );
    expect(
      (
        await send(fx, 'POST', '/projects/vault%2Fapp/repository/branches', 'dev-api', {
          branch: 'b',
          ref: 'master',
        })
      ).status,
    ).toBe(201);
    const mine = await send(fx, 'GET', '/projects?membership=true', 'dev-api');
    expect(mine.body.map((p: { path_with_namespace: string }) => p.path_with_namespace).sort()).toEqual([
      'vault/app',
      'vault/inner/code',
    ]);
  });

  it("members of the shared-with group's ancestors get nothing (direct members only)", async () => {
    const fx = fx0();
    const devs = await id(fx, 'team/devs');
    await share(fx, 'olive-api', { group_id: devs, group_access: 30 });
    expect((await send(fx, 'GET', '/groups/vault', 'upper-api')).status).toBe(404);
    expect((await send(fx, 'GET', '/projects/vault%2Fapp', 'upper-api')).status).toBe(404);
  });

  it('params first (400), then the groups (404), then the owner check (a plain 404), nothing written', async () => {
    const fx = fx0();
    const devs = await id(fx, 'team/devs');
    const before = fx.state;
    expect(await share(fx, 'olive-api', {})).toEqual({
      status: 400,
      body: { error: 'group_id is missing, group_access is missing' },
    });
    expect(await share(fx, 'olive-api', { group_id: devs, group_access: 35 })).toEqual({
      status: 400,
      body: { error: 'group_access does not have a valid value' },
    });
    expect(await share(fx, 'olive-api', { group_id: 9999, group_access: 30 })).toEqual({
      status: 404,
      body: { message: '404 Group Not Found' },
    });
    // A maintainer may not administer members: the service's 404 (for a group they can read).
    const open = await id(fx, 'open');
    expect(await share(fx, 'max-api', { group_id: open, group_access: 30 })).toEqual({
      status: 404,
      body: { message: 'Not Found' },
    });
    // A group the caller cannot read is `find_group!`'s 404, either side.
    expect(await share(fx, 'max-api', { group_id: devs, group_access: 30 })).toEqual({
      status: 404,
      body: { message: '404 Group Not Found' },
    });
    expect(await share(fx, 'max-api', { group_id: open, group_access: 30 }, 'team')).toEqual({
      status: 404,
      body: { message: '404 Group Not Found' },
    });
    expect((await share(fx, 'stranger-api', { group_id: devs, group_access: 30 })).status).toBe(404);
    expect((await send(fx, 'POST', '/groups/vault/share', undefined, {})).status).toBe(401);
    expect(fx.state).toBe(before);
  });

  it('sharing twice is 409 with the validation message', async () => {
    const fx = fx0();
    const devs = await id(fx, 'team/devs');
    await share(fx, 'olive-api', { group_id: devs, group_access: 30 });
    expect(await share(fx, 'olive-api', { group_id: devs, group_access: 40 })).toEqual({
      status: 409,
      body: { message: 'Shared group The group has already been shared with this group' },
    });
  });

  it('shared_with_groups shows only the groups the viewer may see', async () => {
    const fx = fx0();
    const devs = await id(fx, 'team/devs');
    const open = await id(fx, 'open');
    await share(fx, 'root-api', { group_id: devs, group_access: 20 }, 'open');
    const asStranger = await send(fx, 'GET', `/groups/${open}`, 'stranger-api');
    expect(asStranger.body.shared_with_groups).toEqual([]);
    const asDev = await send(fx, 'GET', `/groups/${open}`, 'dev-api');
    expect(asDev.body.shared_with_groups.map((g: { group_id: number }) => g.group_id)).toEqual([devs]);
  });
});

describe('DELETE /groups/:id/share/:group_id', () => {
  it('removes the link and the access it gave', async () => {
    const fx = fx0();
    const devs = await id(fx, 'team/devs');
    await share(fx, 'olive-api', { group_id: devs, group_access: 30 });
    expect((await send(fx, 'DELETE', `/groups/vault/share/${devs}`, 'olive-api')).status).toBe(204);
    expect((await send(fx, 'GET', '/projects/vault%2Fapp', 'dev-api')).status).toBe(404);
    expect((await send(fx, 'GET', '/groups/vault', 'olive-api')).body.shared_with_groups).toEqual([]);
  });

  it('a user who may not administer it gets 204 and the link stays (`DestroyService`)', async () => {
    const fx = fx0();
    const devs = await id(fx, 'team/devs');
    await share(fx, 'olive-api', { group_id: devs, group_access: 30 });
    const before = fx.state;
    expect((await send(fx, 'DELETE', `/groups/vault/share/${devs}`, 'max-api')).status).toBe(204);
    expect(fx.state.groupLinks).toBe(before.groupLinks);
    expect((await send(fx, 'GET', '/projects/vault%2Fapp', 'dev-api')).status).toBe(200);
  });

  it('no such link is 404 Group Link Not Found; a non-integer id is 400', async () => {
    const fx = fx0();
    expect(await send(fx, 'DELETE', '/groups/vault/share/9999', 'olive-api')).toEqual({
      status: 404,
      body: { message: '404 Group Link Not Found' },
    });
    expect((await send(fx, 'DELETE', '/groups/vault/share/foo', 'olive-api')).status).toBe(400);
  });

  it('deleting either group removes the link', async () => {
    const fx = fx0();
    const devs = await id(fx, 'team/devs');
    await share(fx, 'olive-api', { group_id: devs, group_access: 30 });
    expect(fx.state.groupLinks.size).toBe(1);
    expect((await send(fx, 'DELETE', '/groups/team%2Fdevs', 'root-api')).status).toBe(202);
    fx.clock.advance(1000);
    expect(fx.state.groupLinks.size).toBe(0);
  });
});

describe('scenario groups[].shared_with', () => {
  it('builds links, and names a group it does not know', async () => {
    const fx = createFauxlab({
      scenario: {
        ...world,
        groups: world.groups!.map((g) =>
          g.path === 'vault' ? { ...g, shared_with: [{ group: 'team/devs', group_access: 20 }] } : g,
        ),
      },
    });
    const shown = await send(fx, 'GET', '/groups/vault', 'dev-api');
    expect(shown.status).toBe(200);
    expect(shown.body.shared_with_groups[0]).toMatchObject({
      group_full_path: 'team/devs',
      group_access_level: 20,
    });
    expect(() =>
      createFauxlab({
        scenario: {
          ...world,
          groups: [{ path: 'solo', shared_with: [{ group: 'nowhere', group_access: 20 }] }],
        },
      }),
    ).toThrow(/groups\[0\]\.shared_with\[0\]\.group: no group "nowhere"/);
  });
});
