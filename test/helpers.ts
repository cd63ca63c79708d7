import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterAll } from 'vitest';
import { createFauxlab, type FauxlabOptions } from '../src/index.js';
import type { ScenarioFile } from '../src/scenario/schema.js';

/** A small world most core tests share: an admin, two users, one group tree, projects of each visibility. */
export const smallWorld: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [
    {
      username: 'root',
      name: 'Administrator',
      admin: true,
      tokens: [
        { token: 'root-api', scopes: ['api'] },
        { token: 'root-sudo', scopes: ['api', 'sudo'] },
      ],
    },
    {
      username: 'alice',
      name: 'Alice Liddell',
      tokens: [
        { token: 'alice-api', scopes: ['api'] },
        { token: 'alice-read', scopes: ['read_api'] },
        { token: 'alice-user', scopes: ['read_user'] },
        { token: 'alice-expired', scopes: ['api'], expires_at: '2021-02-01' },
        { token: 'alice-revoked', scopes: ['api'], revoked: true },
        { token: 'alice-imp', scopes: ['api'], impersonation: true },
      ],
    },
    { username: 'bob', tokens: [{ token: 'bob-api', scopes: ['api'] }] },
    { username: 'mallory', state: 'blocked', tokens: [{ token: 'mallory-api', scopes: ['api'] }] },
  ],
  groups: [
    { path: 'acme', visibility: 'public', members: [{ username: 'alice', access_level: 'owner' }] },
    { path: 'acme/secret', visibility: 'private' },
  ],
  projects: [
    { path: 'acme/website', visibility: 'public' },
    { path: 'acme/secret/vault', visibility: 'private' },
    { path: 'acme/intranet', visibility: 'internal' },
    { path: 'bob/notes', visibility: 'private' },
  ],
};

export function world(options: FauxlabOptions = {}) {
  return createFauxlab({ scenario: smallWorld, ...options });
}

/**
 * `w` with every user active on its day already: their reads then record no activity (the platform's
 * once-a-day `last_activity_on`), for tests about what a request itself writes or keeps.
 */
export function activeToday(w: ScenarioFile): ScenarioFile {
  const day = (w.now ?? '').slice(0, 10);
  return { ...w, users: w.users?.map((u) => ({ ...u, last_activity_on: day })) };
}

export async function json(res: Response): Promise<any> {
  const text = await res.text();
  return text === '' ? undefined : JSON.parse(text);
}

/**
 * Local servers for one test file: `listen(fetch)` serves `fetch` on 127.0.0.1 at a free port and gives its
 * base URL; every server is closed after the file's tests.
 */
export function localServers(): (
  fetch: (r: Request, env?: object) => Response | Promise<Response>,
) => Promise<string> {
  const servers: Server[] = [];
  afterAll(() => {
    for (const s of servers) {
      s.closeAllConnections();
      s.close();
    }
  });
  return (fetch) =>
    new Promise<string>((resolve) => {
      const s = serve({ fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) =>
        resolve(`http://127.0.0.1:${info.port}`),
      ) as Server;
      servers.push(s);
    });
}
