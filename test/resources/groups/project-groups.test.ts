/** `GET /projects/:id/groups`: the project's group and ancestors, and with `with_shared` its share groups. */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { json, request, tok } from '../helpers.js';

const world: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [
    { username: 'root', admin: true, tokens: tok('root-api') },
    { username: 'dev', tokens: tok('dev-api') },
    { username: 'stranger', tokens: tok('stranger-api') },
  ],
  groups: [
    { path: 'org', name: 'Org', visibility: 'private' },
    { path: 'org/team', name: 'Team', visibility: 'private' },
    {
      path: 'org/team/core',
      name: 'Core',
      visibility: 'private',
      members: [{ username: 'dev', access_level: 'developer' }],
    },
    { path: 'readers', name: 'Readers', visibility: 'public' },
    { path: 'writers', name: 'Writers', visibility: 'public' },
  ],
  projects: [
    {
      path: 'org/team/core/app',
      visibility: 'private',
      shared_with: [
        { group: 'readers', group_access: 20 },
        { group: 'writers', group_access: 30 },
      ],
    },
    { path: 'dev/own', visibility: 'public' },
  ],
};

const fx0 = () => createFauxlab({ scenario: world });
const APP = '/projects/org%2Fteam%2Fcore%2Fapp/groups';

async function get(fx: ReturnType<typeof fx0>, path: string, token?: string) {
  const res = await request(fx, 'GET', `/api/v4${path}`, { token });
  return { status: res.status, body: await json(res), res };
}
const paths = (b: { full_path: string }[]) => b.map((g) => g.full_path);

describe('GET /projects/:id/groups', () => {
  it('the group and its ancestors, newest first, as PublicGroupDetails', async () => {
    const fx = fx0();
    const out = await get(fx, APP, 'dev-api');
    expect(out.status).toBe(200);
    expect(paths(out.body)).toEqual(['org/team/core', 'org/team', 'org']);
    expect(out.body[0]).toEqual({
      id: expect.any(Number),
      web_url: 'http://localhost/groups/org/team/core',
      name: 'Core',
      avatar_url: null,
      full_name: 'Org / Team / Core',
      full_path: 'org/team/core',
    });
    expect(out.res.headers.get('x-total')).toBe('3');
  });

  it('with_shared adds the share groups; shared_min_access_level filters them by the share', async () => {
    const fx = fx0();
    expect(paths((await get(fx, `${APP}?with_shared=true`, 'dev-api')).body)).toEqual([
      'writers',
      'readers',
      'org/team/core',
      'org/team',
      'org',
    ]);
    expect(
      paths((await get(fx, `${APP}?with_shared=true&shared_min_access_level=30`, 'dev-api')).body),
    ).toEqual(['writers', 'org/team/core', 'org/team', 'org']);
  });

  it('skip_groups and search (on the group itself, not its parents)', async () => {
    const fx = fx0();
    const org = (await get(fx, '/groups/org', 'root-api')).body.id;
    expect(paths((await get(fx, `${APP}?skip_groups[]=${org}`, 'dev-api')).body)).toEqual([
      'org/team/core',
      'org/team',
    ]);
    expect(paths((await get(fx, `${APP}?search=team`, 'dev-api')).body)).toEqual(['org/team']);
    expect(paths((await get(fx, `${APP}?search=writ&with_shared=true`, 'dev-api')).body)).toEqual([
      'writers',
    ]);
  });

  it('a personal project has none; a hidden project is 404; a bad level is 400', async () => {
    const fx = fx0();
    expect((await get(fx, '/projects/dev%2Fown/groups', 'dev-api')).body).toEqual([]);
    expect(await get(fx, APP, 'stranger-api')).toMatchObject({
      status: 404,
      body: { message: '404 Project Not Found' },
    });
    expect((await get(fx, `${APP}?shared_min_access_level=35`, 'dev-api')).status).toBe(400);
  });
});
