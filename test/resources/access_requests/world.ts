/**
 * The pending members tests' world: a public group with a public project, an internal group with an
 * internal project, a private group, and users in every relation the request and invite rules tell
 * apart. The clock stands at 2021-03-01 12:00 UTC.
 */
import { createFauxlab, type FauxlabOptions } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { json, request, tok } from '../helpers.js';

export const pendingWorld: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [
    { username: 'root', name: 'Administrator', admin: true, tokens: tok('root-api') },
    { username: 'olga', name: 'Olga Owner', email: 'olga@example.com', tokens: tok('olga-api') },
    { username: 'mark', name: 'Mark Maintainer', email: 'mark@example.com', tokens: tok('mark-api') },
    { username: 'dora', name: 'Dora Developer', email: 'dora@example.com', tokens: tok('dora-api') },
    { username: 'ann', name: 'Ann Outsider', email: 'ann@example.com', tokens: tok('ann-api') },
    { username: 'ben', name: 'Ben Outsider', email: 'ben@example.com', tokens: tok('ben-api') },
    { username: 'ext', name: 'Ext External', external: true, tokens: tok('ext-api') },
  ],
  groups: [
    {
      path: 'pub',
      name: 'Public Group',
      visibility: 'public',
      members: [
        { username: 'olga', access_level: 'owner' },
        { username: 'dora', access_level: 'developer' },
      ],
    },
    {
      path: 'intra',
      name: 'Internal Group',
      visibility: 'internal',
      members: [{ username: 'olga', access_level: 'owner' }],
    },
    { path: 'priv', name: 'Private Group', visibility: 'private' },
  ],
  projects: [
    {
      path: 'pub/app',
      name: 'App',
      visibility: 'public',
      members: [{ username: 'mark', access_level: 'maintainer' }],
    },
    { path: 'intra/tool', name: 'Tool', visibility: 'internal' },
  ],
};

export const pendingFx = (options: FauxlabOptions = {}) =>
  createFauxlab({ scenario: pendingWorld, ...options });
export type Fx = ReturnType<typeof pendingFx>;

/** One request with a private token (or none) and a JSON body when given: status and parsed body. */
export async function send(fx: Fx, method: string, path: string, token?: string, body?: unknown) {
  const res = await request(fx, method, `http://localhost/api/v4${path}`, { token, body });
  return { res, status: res.status, body: await json(res) };
}

export const U = { root: 1, olga: 2, mark: 3, dora: 4, ann: 5, ben: 6, ext: 7 };
export const APP = '/projects/pub%2Fapp';
