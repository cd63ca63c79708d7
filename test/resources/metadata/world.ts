import { createFauxlab, type FauxlabOptions } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { apiPath, json, request, tok } from '../helpers.js';

export const NOW = '2021-03-01T12:00:00.000Z';

/**
 * The set-up areas' world: an admin, a group `acme` with one member of each role that matters, an
 * outsider, projects in the group and a personal one, tagged with topics; group variables and deploy
 * tokens; instance variables.
 */
export const setupWorld: ScenarioFile = {
  now: NOW,
  users: [
    {
      username: 'root',
      name: 'Administrator',
      admin: true,
      tokens: [...tok('root'), { token: 'root-user', scopes: ['read_user'] }],
    },
    { username: 'owner', name: 'Olive Owner', tokens: tok('owner') },
    { username: 'maint', name: 'Max Maintainer', tokens: tok('maint') },
    { username: 'dev', name: 'Dev User', tokens: tok('dev') },
    {
      username: 'outsider',
      name: 'Otto Outsider',
      tokens: [...tok('outsider'), { token: 'outsider-read', scopes: ['read_api'] }],
    },
  ],
  groups: [
    {
      path: 'acme',
      visibility: 'public',
      members: [
        { username: 'owner', access_level: 'owner' },
        { username: 'maint', access_level: 'maintainer' },
        { username: 'dev', access_level: 'developer' },
      ],
      variables: [
        { key: 'GROUP_TOKEN', value: 'group-secret', masked: true },
        { key: 'REGION', value: 'eu', environment_scope: 'production' },
        { key: 'REGION', value: 'us', environment_scope: 'staging' },
      ],
      deploy_tokens: [{ name: 'registry', token: 'group-deploy-secret', scopes: ['read_registry'] }],
    },
  ],
  projects: [
    {
      path: 'acme/app',
      visibility: 'private',
      creator: 'owner',
      tag_list: ['web', 'Ruby'],
      deploy_tokens: [
        {
          name: 'ci',
          token: 'app-deploy-secret',
          scopes: ['read_repository', 'read_registry'],
          expires_at: '2022-01-01T00:00:00Z',
        },
        {
          name: 'old',
          token: 'app-old-secret',
          username: 'deployer',
          scopes: ['read_repository'],
          revoked: true,
        },
      ],
    },
    { path: 'acme/site', visibility: 'public', creator: 'owner', tag_list: ['web'] },
    { path: 'dev/notes', visibility: 'private', tag_list: ['notes'] },
  ],
  topics: [{ name: 'docs', description: 'Documentation' }],
  variables: [
    { key: 'INSTANCE_URL', value: 'https://example.com' },
    { key: 'INSTANCE_SECRET', value: 'super-secret', protected: true, masked: true },
    { key: 'INSTANCE_FILE', value: 'a: 1', variable_type: 'file' },
  ],
};

export function world(options: FauxlabOptions = {}) {
  return createFauxlab({ scenario: setupWorld, ...options });
}

export type Fx = ReturnType<typeof world>;

/** A request with a token (or none), a JSON body when given, extra headers when given. */
export function call(
  fx: Fx,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
  extra: Record<string, string> = {},
) {
  return request(fx, method, apiPath(path), { token, body, headers: extra });
}

export { json as body };

/** A request's status and parsed body. */
export async function send(fx: Fx, method: string, path: string, token?: string, data?: unknown) {
  const res = await call(fx, method, path, token, data);
  return { status: res.status, body: await json(res), res };
}

/** A CI variable as the API shows it: an unprotected, unmasked `env_var` unless `extra` says otherwise. */
export const ciVariable = (key: string, value: string, extra: Record<string, unknown> = {}) => ({
  variable_type: 'env_var',
  key,
  value,
  protected: false,
  masked: false,
  ...extra,
});

/** An `If-Unmodified-Since` header older than anything in the world. */
export const BEFORE_WORLD = { 'If-Unmodified-Since': 'Fri, 01 Jan 2016 00:00:00 GMT' };

/** A well-formed ed25519 public key, different for each seed. */
export function sshKey(seed: number, comment = 'user@host'): string {
  const type = Buffer.from('ssh-ed25519');
  const pk = Buffer.alloc(32, seed);
  const len = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    return b;
  };
  const blob = Buffer.concat([len(type.length), type, len(pk.length), pk]);
  return `ssh-ed25519 ${blob.toString('base64')}${comment ? ` ${comment}` : ''}`;
}

/** An armoured GPG public key block (the armour is all the platform's format check reads). */
export const gpgKey = (body: string) =>
  `-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n${body}\n-----END PGP PUBLIC KEY BLOCK-----`;
