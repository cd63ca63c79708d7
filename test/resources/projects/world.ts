import { createFauxlab, type FauxlabOptions } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';

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

export interface CallOptions {
  token?: string;
  body?: unknown;
  form?: FormData;
  headers?: Record<string, string>;
}

export async function call(
  fx: ReturnType<typeof createFauxlab>,
  method: string,
  path: string,
  o: CallOptions = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.token) headers['PRIVATE-TOKEN'] = o.token;
  let body: BodyInit | undefined;
  if (o.form) body = o.form;
  else if (o.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(o.body);
  }
  return fx.app.request(path, { method, headers, body });
}

export async function json(res: Response): Promise<any> {
  const text = await res.text();
  return text === '' ? undefined : JSON.parse(text);
}

export const paths = (body: { path_with_namespace: string }[]) => body.map((p) => p.path_with_namespace);
