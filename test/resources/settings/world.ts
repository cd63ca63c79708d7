import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFauxlab, type FauxlabOptions } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { apiPath, request, tok } from '../helpers.js';

export const NOW = '2021-03-01T12:00:00.000Z';

/**
 * The instance-and-content tests' world: an admin, the members of group `acme` by role, an outsider,
 * a private project `acme/app` with an issue, a merge request and a milestone, and a public project.
 */
export const contentWorld: ScenarioFile = {
  now: NOW,
  users: [
    { username: 'root', name: 'Administrator', admin: true, tokens: tok('root') },
    { username: 'alice', name: 'Alice Owner', tokens: tok('alice') },
    { username: 'maint', name: 'Max Maintainer', tokens: tok('maint') },
    { username: 'dev', name: 'Dev User', tokens: tok('dev') },
    { username: 'outsider', name: 'Otto Outsider', tokens: tok('outsider') },
    { username: 'ext', name: 'Ext Ernal', external: true, tokens: tok('ext') },
  ],
  groups: [
    {
      path: 'acme',
      name: 'Acme',
      visibility: 'public',
      members: [
        { username: 'alice', access_level: 'owner' },
        { username: 'maint', access_level: 'maintainer' },
        { username: 'dev', access_level: 'developer' },
      ],
    },
  ],
  projects: [
    {
      path: 'acme/app',
      name: 'App',
      visibility: 'private',
      creator: 'alice',
      milestones: [{ title: 'Sprint 1' }],
      issues: [{ title: 'First bug', author: 'alice', description: 'It breaks' }],
      merge_requests: [{ title: 'Fix the bug', author: 'dev', source_branch: 'fix' }],
    },
    { path: 'acme/site', name: 'Site', visibility: 'public', creator: 'alice' },
  ],
};

export function world(options: FauxlabOptions = {}, extra: Partial<ScenarioFile> = {}) {
  return createFauxlab({ scenario: { ...contentWorld, ...extra }, ...options });
}

export const APP = '/projects/acme%2Fapp';

export type World = ReturnType<typeof world>;

/** A request with a token (or none) and a JSON body when given. */
export const call = (fx: World, method: string, path: string, token?: string, body?: unknown) =>
  request(fx, method, apiPath(path), { token, body });

export { json as body } from '../helpers.js';

export interface Received {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

/** A posted body: JSON, or a form's `payload` field (Slack's notifier) parsed as JSON. */
function decode(type: string | undefined, data: string): any {
  if (!data) return null;
  if (type === 'application/x-www-form-urlencoded') {
    const payload = new URLSearchParams(data).get('payload');
    return payload === null ? null : JSON.parse(payload);
  }
  return JSON.parse(data);
}

/** A webhook receiver on 127.0.0.1: records what it is sent; `status` decides what it answers. */
export async function receiver(status: (n: number) => number = () => 200) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let data = '';
    req.on('data', (chunk) => (data += chunk));
    req.on('end', () => {
      received.push({
        method: req.method!,
        path: req.url!,
        headers: req.headers,
        body: decode(req.headers['content-type'], data),
      });
      res.statusCode = status(received.length);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
