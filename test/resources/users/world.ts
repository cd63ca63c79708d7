import { createFauxlab, type FauxlabOptions } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { json, request } from '../helpers.js';

/** The users tests' world: an admin, regular users of every kind, a group with a sole owner. */
export const usersWorld: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [
    {
      username: 'root',
      name: 'Administrator',
      email: 'admin@example.com',
      admin: true,
      created_at: '2020-01-01T00:00:00.000Z',
      tokens: [
        { token: 'root-api', scopes: ['api'] },
        { token: 'root-sudo', scopes: ['api', 'sudo'] },
        { token: 'root-read-user', scopes: ['read_user'] },
      ],
    },
    {
      username: 'alice',
      name: 'Alice Liddell',
      created_at: '2020-02-01T00:00:00.000Z',
      tokens: [
        { token: 'alice-api', scopes: ['api'] },
        { token: 'alice-read-user', scopes: ['read_user'] },
        { token: 'alice-repo', scopes: ['read_repository'] },
      ],
    },
    {
      username: 'bob',
      name: 'Bob Builder',
      created_at: '2020-03-01T00:00:00.000Z',
      tokens: [{ token: 'bob-api', scopes: ['api'] }],
    },
    {
      username: 'carol',
      name: 'Carol Danvers',
      email: 'Carol@Example.com',
      external: true,
      two_factor_enabled: true,
      custom_attributes: { team: 'red', floor: '3' },
      identities: [{ provider: 'github', extern_uid: 'CarolGH' }],
      created_at: '2020-04-01T00:00:00.000Z',
    },
    { username: 'mallory', name: 'Mallory Malice', state: 'blocked', created_at: '2020-05-01T00:00:00.000Z' },
    {
      username: 'dave',
      name: 'dave',
      private_profile: true,
      created_at: '2020-06-01T00:00:00.000Z',
      tokens: [{ token: 'dave-api', scopes: ['api'] }],
    },
    { username: 'bobby', name: 'Bobby Tables', created_at: '2020-07-01T00:00:00.000Z' },
  ],
  groups: [
    { path: 'acme', visibility: 'public', members: [{ username: 'alice', access_level: 'owner' }] },
    { path: 'acme/labs', visibility: 'private' },
    {
      path: 'shared',
      members: [
        { username: 'alice', access_level: 'owner' },
        { username: 'bob', access_level: 'owner' },
      ],
    },
    { path: 'empty', members: [{ username: 'dave', access_level: 'developer' }] },
  ],
  projects: [
    { path: 'acme/website', visibility: 'public' },
    { path: 'acme/labs/rocket', visibility: 'private' },
    { path: 'bob/notes', visibility: 'private' },
  ],
};

export const usersFx = (options: FauxlabOptions = {}) => createFauxlab({ scenario: usersWorld, ...options });

export type Fx = ReturnType<typeof usersFx>;

/** A request with a private token (or none), JSON body when given. */
export function call(
  fx: Fx,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Response> {
  return request(fx, method, `http://localhost${path}`, opts);
}

export { json };

/** A request to an API path (under `/api/v4`): the response and its parsed body. */
export async function send(
  fx: Fx,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
  headers?: Record<string, string>,
) {
  const res = await call(fx, method, `/api/v4${path}`, { token, body, headers });
  return { res, body: await json(res) };
}

/** Usernames of a user list, for order checks. */
export const usernames = (list: { username: string }[]) => list.map((u) => u.username);

/** The user shapes' keys in the platform's order. */
export const BASIC_KEYS = ['id', 'name', 'username', 'state', 'avatar_url', 'web_url'];
export const USER_KEYS = [
  ...BASIC_KEYS,
  'created_at',
  'bio',
  'bio_html',
  'location',
  'public_email',
  'skype',
  'linkedin',
  'twitter',
  'website_url',
  'organization',
  'job_title',
  'bot',
  'work_information',
];
export const PUBLIC_KEYS = [
  ...USER_KEYS,
  'last_sign_in_at',
  'confirmed_at',
  'last_activity_on',
  'email',
  'theme_id',
  'color_scheme_id',
  'projects_limit',
  'current_sign_in_at',
  'identities',
  'can_create_group',
  'can_create_project',
  'two_factor_enabled',
  'external',
  'private_profile',
  'commit_email',
];
export const ADMIN_KEYS = [...PUBLIC_KEYS, 'is_admin', 'note', 'current_sign_in_ip', 'last_sign_in_ip'];
export const DETAILS_KEYS = [
  ...PUBLIC_KEYS,
  'is_admin',
  'note',
  'highest_role',
  'current_sign_in_ip',
  'last_sign_in_ip',
  'sign_in_count',
];

/** `Gitlab::PathRegex.namespace_format_message`. */
export const NAMESPACE_MSG =
  "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.";
