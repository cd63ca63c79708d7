import { createFauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { apiPath, json, request, tok } from '../helpers.js';

export const NOW = '2021-03-01T12:00:00.000Z';

/**
 * The storage moves' world (premium, for the group wikis): an admin, a group `acme` owned by `owner`
 * with a wiki page, a subgroup without one, projects `acme/app` and `acme/site`, a personal snippet of
 * `owner`; three configured storages (`repository_storages_weighted`: default 100, storage2 50, cold 0).
 */
export const movesWorld: ScenarioFile = {
  now: NOW,
  tier: 'premium',
  settings: { repository_storages_weighted: { default: 100, storage2: 50, cold: 0 } },
  users: [
    { username: 'root', name: 'Administrator', admin: true, tokens: tok('root') },
    { username: 'owner', name: 'Olive Owner', tokens: tok('owner') },
  ],
  groups: [
    {
      path: 'acme',
      visibility: 'public',
      members: [{ username: 'owner', access_level: 'owner' }],
      wiki: [{ title: 'home', content: 'hello' }],
    },
    { path: 'acme/sub', visibility: 'public' },
  ],
  projects: [
    { path: 'acme/app', visibility: 'private', creator: 'owner', created_at: '2021-01-01T00:00:00Z' },
    { path: 'acme/site', visibility: 'public', creator: 'owner' },
  ],
  snippets: [{ author: 'owner', title: 'A snippet', visibility: 'public', content: 'x' }],
};

export const world = (scenario: ScenarioFile = movesWorld) => createFauxlab({ scenario });
export type World = ReturnType<typeof world>;

export async function call(fx: World, method: string, path: string, token?: string, body?: unknown) {
  const res = await request(fx, method, apiPath(path), { token, body });
  return { status: res.status, headers: res.headers, body: await json(res) };
}

export const advance = (fx: World, by: string) =>
  call(fx, 'POST', '/__fauxlab/clock', undefined, { advance: by });
