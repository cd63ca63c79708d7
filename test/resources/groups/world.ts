import { expect } from 'vitest';
import { createFauxlab, type FauxlabOptions } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { json, request, tok } from '../helpers.js';

/**
 * The groups tests' world: a public tree with private and internal parts, a private tree seen from
 * inside by a subgroup member, and users related to the groups in every way the platform distinguishes.
 */
export const groupsWorld: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [
    { username: 'root', name: 'Administrator', admin: true, tokens: tok('root-api') },
    { username: 'alice', name: 'Alice Liddell', tokens: tok('alice-api') },
    { username: 'bob', name: 'Bob Builder', tokens: tok('bob-api') },
    { username: 'carol', name: 'Carol Danvers', external: true, tokens: tok('carol-api') },
    { username: 'dave', name: 'Dave Grohl', tokens: tok('dave-api') },
    { username: 'erin', name: 'Erin Brockovich', tokens: tok('erin-api') },
    { username: 'frank', name: 'Frank Zappa', tokens: tok('frank-api') },
    { username: 'grace', name: 'Grace Hopper', tokens: tok('grace-api') },
    { username: 'mia', name: 'Mia Wallace', tokens: tok('mia-api') },
  ],
  groups: [
    {
      path: 'acme',
      name: 'Acme Corp',
      visibility: 'public',
      description: 'Everything',
      members: [
        { username: 'alice', access_level: 'owner' },
        { username: 'bob', access_level: 'developer' },
        { username: 'mia', access_level: 'maintainer' },
      ],
    },
    { path: 'acme/secret', name: 'Secret', visibility: 'private' },
    { path: 'acme/secret/deep', name: 'Deep', visibility: 'private' },
    { path: 'acme/labs', name: 'Labs', visibility: 'internal' },
    {
      path: 'hidden',
      name: 'Hidden',
      visibility: 'private',
      members: [{ username: 'dave', access_level: 'owner' }],
    },
    {
      path: 'hidden/inner',
      name: 'Inner',
      visibility: 'private',
      members: [{ username: 'grace', access_level: 'reporter' }],
    },
    { path: 'zeta', name: 'Zeta', visibility: 'internal' },
  ],
  projects: [
    { path: 'acme/website', visibility: 'public' },
    {
      path: 'acme/secret/vault',
      visibility: 'private',
      members: [{ username: 'frank', access_level: 'developer' }],
    },
    { path: 'hidden/inner/tool', visibility: 'private' },
    { path: 'bob/notes', visibility: 'private' },
  ],
};

export const groupsFx = (options: FauxlabOptions = {}) =>
  createFauxlab({ scenario: groupsWorld, ...options });

export type Fx = ReturnType<typeof groupsFx>;

/** Sends a request with a private token (or none) and a JSON body when given; returns status and body. */
export async function send(
  fx: Fx,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await request(fx, method, `http://localhost/api/v4${path}`, { token, body, headers });
  return { res, status: res.status, body: await json(res) };
}

/** Expects a refused request to leave the state exactly as it was (the same immer root). */
export async function refused(
  fx: Fx,
  method: string,
  path: string,
  token: string | undefined,
  body: unknown,
  status: number,
) {
  const before = fx.state;
  const out = await send(fx, method, path, token, body);
  expect(out.status).toBe(status);
  expect(fx.state).toBe(before);
  return out.body;
}

/** Full paths of a group list, for order checks. */
export const paths = (list: { full_path: string }[]) => list.map((g) => g.full_path);

/** The Group entity's keys in the platform's order (community edition). */
export const GROUP_KEYS = [
  'id',
  'web_url',
  'name',
  'path',
  'description',
  'visibility',
  'share_with_group_lock',
  'require_two_factor_authentication',
  'two_factor_grace_period',
  'project_creation_level',
  'auto_devops_enabled',
  'subgroup_creation_level',
  'emails_disabled',
  'mentions_disabled',
  'lfs_enabled',
  'default_branch_protection',
  'avatar_url',
  'request_access_enabled',
  'full_name',
  'full_path',
  'created_at',
  'parent_id',
];
export const EE_GROUP_KEYS = [
  ...GROUP_KEYS,
  'ldap_cn',
  'ldap_access',
  'file_template_project_id',
  'marked_for_deletion_on',
];
export const MEMBER_KEYS = [
  'id',
  'name',
  'username',
  'state',
  'avatar_url',
  'web_url',
  'access_level',
  'expires_at',
];
