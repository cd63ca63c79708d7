import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { json, request, tok } from '../helpers.js';

const scenario = {
  users: [
    { username: 'root', admin: true, tokens: tok('root-api') },
    { username: 'alice', tokens: tok('alice-api') },
    { username: 'bob', tokens: tok('bob-api') },
  ],
  groups: [
    {
      path: 'acme',
      visibility: 'private' as const,
      members: [{ username: 'alice', access_level: 50 as const }],
    },
    { path: 'acme/tools', visibility: 'private' as const },
    {
      path: 'open',
      visibility: 'public' as const,
      members: [{ username: 'alice', access_level: 50 as const }],
    },
    { path: 'open/docs', visibility: 'public' as const },
    {
      path: 'other',
      visibility: 'public' as const,
      members: [{ username: 'bob', access_level: 50 as const }],
    },
  ],
  projects: [{ path: 'open/docs/site', visibility: 'public' as const }],
};
const at = (version: string) => createFauxlab({ scenario, version });
type Fx = ReturnType<typeof at>;
const api = (fx: Fx, method: string, path: string, token = 'alice-api', body?: unknown) =>
  request(fx, method, `/api/v4${path}`, { token, body });
const group = async (fx: Fx, path: string) =>
  json(await api(fx, 'GET', `/groups/${encodeURIComponent(path)}`, 'root-api'));

describe('GET /groups/:id/avatar (GitLab 14.0)', () => {
  const withAvatar = async (version: string) => {
    const fx = at(version);
    const form = new FormData();
    form.append('avatar', new File([new Uint8Array([137, 80, 78, 71])], 'logo.png', { type: 'image/png' }));
    const acme = (await group(fx, 'acme')).id;
    const put = await fx.app.request(`/api/v4/groups/${acme}`, {
      method: 'PUT',
      headers: { 'PRIVATE-TOKEN': 'alice-api' },
      body: form,
    });
    expect(put.status).toBe(200);
    return { fx, acme };
  };

  it('13.12 has no such route: the catch-all 404', async () => {
    const { fx, acme } = await withAvatar('13.12');
    const res = await api(fx, 'GET', `/groups/${acme}/avatar`);
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ error: '404 Not Found' });
  });

  it('14.0: the uploaded file as an attachment, to whoever reads the group; 404 without one', async () => {
    const { fx, acme } = await withAvatar('14.0');
    const res = await api(fx, 'GET', `/groups/${acme}/avatar`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="logo.png"; filename*=UTF-8''logo.png`,
    );
    expect([...new Uint8Array(await res.arrayBuffer())]).toEqual([137, 80, 78, 71]);
    // A private group hides from an outsider as a missing group.
    const hidden = await api(fx, 'GET', `/groups/${acme}/avatar`, 'bob-api');
    expect(await json(hidden)).toEqual({ message: '404 Group Not Found' });
    const open = (await group(fx, 'open')).id;
    const none = await api(fx, 'GET', `/groups/${open}/avatar`);
    expect(none.status).toBe(404);
    expect(await json(none)).toEqual({ message: '404 Not found' });
  });
});

describe('POST /groups/:id/transfer (GitLab 14.6)', () => {
  it('14.5 has no such route: the catch-all 404', async () => {
    const fx = at('14.5');
    const tools = (await group(fx, 'acme/tools')).id;
    const res = await api(fx, 'POST', `/groups/${tools}/transfer`);
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ error: '404 Not Found' });
  });

  it('14.6: a subgroup made top-level (201, the group detail; its owner added); then moved under another group', async () => {
    const fx = at('14.6');
    const tools = (await group(fx, 'acme/tools')).id;
    const res = await api(fx, 'POST', `/groups/${tools}/transfer`);
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body).toMatchObject({ id: tools, full_path: 'tools', parent_id: null, path: 'tools' });
    expect(Array.isArray(body.shared_with_groups)).toBe(true);
    const members = await json(await api(fx, 'GET', `/groups/${tools}/members`));
    expect(
      members.map((m: { username: string; access_level: number }) => [m.username, m.access_level]),
    ).toEqual([['alice', 50]]);
    const open = (await group(fx, 'open')).id;
    const moved = await json(
      await api(fx, 'POST', `/groups/${tools}/transfer`, 'alice-api', { group_id: open }),
    );
    expect(moved).toMatchObject({ full_path: 'open/tools', parent_id: open });
    expect((await api(fx, 'GET', '/groups/tools')).status).toBe(404);
  });

  it('a less visible parent lowers the group, its subgroups and projects; project paths follow', async () => {
    const fx = at('14.6');
    const docs = (await group(fx, 'open/docs')).id;
    const acme = (await group(fx, 'acme')).id;
    const res = await api(fx, 'POST', `/groups/${docs}/transfer`, 'alice-api', { group_id: acme });
    expect(res.status).toBe(201);
    expect(await json(res)).toMatchObject({ full_path: 'acme/docs', visibility: 'private' });
    const site = await json(
      await api(fx, 'GET', `/projects/${encodeURIComponent('acme/docs/site')}`, 'root-api'),
    );
    expect(site).toMatchObject({ path_with_namespace: 'acme/docs/site', visibility: 'private' });
  });

  it("the service's refusals, 400 Transfer failed: ..., in its order; 403 without admin_group; 404 for a parent not found", async () => {
    const fx = at('14.6');
    const id = async (p: string) => (await group(fx, p)).id as number;
    const fail = async (path: string, body: unknown, token = 'alice-api') => {
      const res = await api(fx, 'POST', path, token, body);
      return [res.status, await json(res)];
    };
    const acme = await id('acme');
    const tools = await id('acme/tools');
    const open = await id('open');
    const other = await id('other');
    expect(await fail(`/groups/${acme}/transfer`, {})).toEqual([
      400,
      { message: 'Transfer failed: Group is already a root group.' },
    ]);
    expect(await fail(`/groups/${tools}/transfer`, { group_id: acme })).toEqual([
      400,
      { message: 'Transfer failed: Group is already associated to the parent group.' },
    ]);
    expect(await fail(`/groups/${open}/transfer`, { group_id: other })).toEqual([
      400,
      { message: "Transfer failed: You don't have enough permissions." },
    ]);
    expect(await fail(`/groups/${acme}/transfer`, { group_id: tools })).toEqual([
      400,
      { message: 'Transfer failed: Cannot transfer group to one of its subgroup.' },
    ]);
    // Another `tools` below `open` already: the same path under the new parent.
    await api(fx, 'POST', '/groups', 'alice-api', { name: 'tools', path: 'tools', parent_id: open });
    expect(await fail(`/groups/${tools}/transfer`, { group_id: open })).toEqual([
      400,
      { message: 'Transfer failed: The parent group already has a subgroup with the same path.' },
    ]);
    expect(await fail(`/groups/${other}/transfer`, { group_id: acme })).toEqual([
      403,
      { message: '403 Forbidden' },
    ]);
    expect(await fail(`/groups/${tools}/transfer`, { group_id: 9999 })).toEqual([
      404,
      { message: '404 Group Not Found' },
    ]);
  });
});

describe('GET /groups/:id/transfer_locations (GitLab 15.4)', () => {
  it('15.3 has no such route: the catch-all 404', async () => {
    const fx = at('15.3');
    const tools = (await group(fx, 'acme/tools')).id;
    const res = await api(fx, 'GET', `/groups/${tools}/transfer_locations`);
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ error: '404 Not Found' });
  });

  it('15.4: the groups the user owns, less the group, its subtree and its parent; search; 403 without admin_group', async () => {
    const fx = at('15.4');
    const tools = (await group(fx, 'acme/tools')).id;
    const res = await api(fx, 'GET', `/groups/${tools}/transfer_locations`);
    expect(res.status).toBe(200);
    const out = await json(res);
    // By name: `docs` before `open`.
    expect(out.map((g: { full_path: string }) => g.full_path)).toEqual(['open/docs', 'open']);
    expect(out[1]).toEqual({
      id: (await group(fx, 'open')).id,
      web_url: 'http://localhost/groups/open',
      name: 'open',
      avatar_url: null,
      full_name: 'open',
      full_path: 'open',
    });
    const found = await json(await api(fx, 'GET', `/groups/${tools}/transfer_locations?search=DOC`));
    expect(found.map((g: { full_path: string }) => g.full_path)).toEqual(['open/docs']);
    const acme = (await group(fx, 'acme')).id;
    expect((await api(fx, 'GET', `/groups/${acme}/transfer_locations`, 'bob-api')).status).toBe(404);
    const other = (await group(fx, 'other')).id;
    expect((await api(fx, 'GET', `/groups/${other}/transfer_locations`)).status).toBe(403);
  });
});
