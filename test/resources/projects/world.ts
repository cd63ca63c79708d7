import { createFauxlab, type FauxlabOptions } from '../../../src/index.js';
import { expect } from 'vitest';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { json, request } from '../helpers.js';

/**
 * The projects tests' world: an admin, members of every kind, a group tree with projects of each
 * visibility, a personal project, a fork, stars and a share.
 */
export const projectsWorld: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [
    { username: 'root', name: 'Administrator', admin: true, tokens: [{ token: 'root-api' }] },
    {
      username: 'alice',
      name: 'Alice Liddell',
      tokens: [{ token: 'alice-api' }, { token: 'alice-read', scopes: ['read_api'] }],
    },
    { username: 'bob', name: 'Bob Builder', tokens: [{ token: 'bob-api' }] },
    { username: 'carol', name: 'Carol Danvers', external: true, tokens: [{ token: 'carol-api' }] },
    { username: 'dave', name: 'Dave Grohl', tokens: [{ token: 'dave-api' }] },
    { username: 'erin', name: 'Erin Brockovich', tokens: [{ token: 'erin-api' }] },
    { username: 'frank', name: 'Frank Zappa', tokens: [{ token: 'frank-api' }] },
  ],
  groups: [
    {
      path: 'acme',
      name: 'Acme',
      visibility: 'public',
      members: [
        { username: 'alice', access_level: 'owner' },
        { username: 'dave', access_level: 'developer' },
      ],
    },
    {
      path: 'acme/labs',
      name: 'Labs',
      visibility: 'private',
      members: [{ username: 'erin', access_level: 'reporter' }],
    },
    {
      path: 'partners',
      name: 'Partners',
      visibility: 'private',
      members: [{ username: 'bob', access_level: 'maintainer' }],
    },
  ],
  projects: [
    {
      path: 'acme/website',
      name: 'Website',
      visibility: 'public',
      description: 'The public face of Acme',
      tag_list: ['web', 'Docs', 'api'],
      created_at: '2020-01-01T00:00:00Z',
      starred_by: ['bob', 'dave'],
    },
    {
      path: 'acme/intranet',
      name: 'Intranet',
      visibility: 'internal',
      description: 'Employees only',
      created_at: '2020-02-01T00:00:00Z',
    },
    {
      path: 'acme/labs/rocket',
      name: 'Rocket',
      visibility: 'private',
      description: 'Top secret propulsion',
      created_at: '2020-03-01T00:00:00Z',
      members: [{ username: 'bob', access_level: 'guest' }],
      shared_with: [{ group: 'partners', group_access: 'developer' }],
    },
    {
      path: 'bob/notes',
      name: 'Notes',
      visibility: 'private',
      created_at: '2020-04-01T00:00:00Z',
    },
    {
      path: 'bob/website',
      name: 'Website',
      visibility: 'public',
      forked_from: 'acme/website',
      created_at: '2020-05-01T00:00:00Z',
      archived: true,
    },
  ],
};

export function projectsFx(options: FauxlabOptions = {}) {
  return createFauxlab({ scenario: projectsWorld, ...options });
}

export { json, request as call, type CallOptions } from '../helpers.js';

/** A request to an API path (under `/api/v4`): the response and its parsed body. */
export async function send(
  fx: ReturnType<typeof projectsFx>,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
) {
  const res = await request(fx, method, `/api/v4${path}`, { token, body });
  return { res, body: await json(res) };
}

/** GET on one instance as a user (or anonymously), and the project paths of a list that must be a 200. */
export function reads(fx: ReturnType<typeof projectsFx>) {
  const get = (path: string, token?: string) => send(fx, 'GET', path, token);
  const list = async (path: string, token?: string) => {
    const { res, body } = await get(path, token);
    expect(res.status).toBe(200);
    return paths(body);
  };
  return { get, list };
}

/** The simple project shape's keys, in the platform's order (ProjectIdentity, BasicProjectDetails). */
export const BASIC_KEYS = [
  'id',
  'description',
  'name',
  'name_with_namespace',
  'path',
  'path_with_namespace',
  'created_at',
  'default_branch',
  'tag_list',
  'ssh_url_to_repo',
  'http_url_to_repo',
  'web_url',
  'readme_url',
  'avatar_url',
  'forks_count',
  'star_count',
  'last_activity_at',
  'namespace',
];

export const paths = (body: { path_with_namespace: string }[]) => body.map((p) => p.path_with_namespace);
