import { createFauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { apiPath, json, request, tok } from '../helpers.js';

export const NOW = '2021-03-01T12:00:00.000Z';
const hex = (ch: string) => ch.repeat(64);

/**
 * The registry tests' world: the group `acme` (one member of each role), its private project
 * `acme/app` with two repositories (the root image with four tags, `acme/app/worker` with none), a
 * public `acme/site` with one repository, an internal `acme/intranet`, and `acme/off`, whose registry is
 * off; a registry notification secret.
 */
export const registryWorld: ScenarioFile = {
  now: NOW,
  container_registry: { host_port: 'registry.example.com:5000', notification_secret: 'registry-secret' },
  users: [
    { username: 'root', admin: true, tokens: tok('root') },
    { username: 'owner', tokens: tok('owner') },
    { username: 'maint', tokens: tok('maint') },
    { username: 'dev', tokens: tok('dev') },
    { username: 'rep', tokens: tok('rep') },
    { username: 'guest', tokens: tok('guest') },
    { username: 'outsider', tokens: tok('outsider') },
    { username: 'ext', external: true, tokens: tok('ext') },
  ],
  groups: [
    {
      path: 'acme',
      visibility: 'public',
      members: [
        { username: 'owner', access_level: 'owner' },
        { username: 'maint', access_level: 'maintainer' },
        { username: 'dev', access_level: 'developer' },
        { username: 'rep', access_level: 'reporter' },
        { username: 'guest', access_level: 'guest' },
      ],
    },
  ],
  projects: [
    {
      path: 'acme/app',
      visibility: 'private',
      creator: 'owner',
      container_repositories: [
        {
          name: '',
          created_at: '2021-01-10T13:38:57.391Z',
          tags: [
            { name: 'latest', digest: hex('a'), total_size: 100, created_at: '2021-02-01T00:00:00Z' },
            {
              name: 'v1.0',
              digest: hex('b'),
              revision: hex('c'),
              total_size: 350224384,
              created_at: '2021-01-06T16:49:51.272Z',
            },
            { name: 'v1.1', digest: hex('d'), total_size: 10, created_at: '2021-02-20T00:00:00Z' },
            { name: 'stable-1', digest: hex('e'), total_size: 10, created_at: '2021-01-01T00:00:00Z' },
          ],
        },
        {
          name: 'worker',
          created_at: '2021-01-11T00:00:00Z',
          cleanup_policy_started_at: '2021-02-01T03:00:00Z',
        },
      ],
    },
    {
      path: 'acme/site',
      visibility: 'public',
      creator: 'owner',
      container_repositories: [{ name: 'web', tags: [{ name: 'latest', digest: hex('f') }] }],
    },
    {
      path: 'acme/intranet',
      visibility: 'internal',
      creator: 'owner',
      container_repositories: [{ name: 'i' }],
    },
    {
      path: 'acme/off',
      visibility: 'public',
      container_registry_enabled: false,
      container_repositories: [{ name: 'x' }],
    },
  ],
};

export const world = (scenario: ScenarioFile = registryWorld) => createFauxlab({ scenario });
export type World = ReturnType<typeof world>;

export const APP = '/projects/acme%2Fapp';
export const SITE = '/projects/acme%2Fsite';

export async function call(
  fx: World,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
  headers?: Record<string, string>,
) {
  const res = await request(fx, method, apiPath(path), { token, body, headers });
  return { status: res.status, headers: res.headers, body: await json(res) };
}
