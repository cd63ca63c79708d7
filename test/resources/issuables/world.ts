import { expect } from 'vitest';
import { createFauxlab, loadScenario, ScenarioError, type FauxlabOptions } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { json, request } from '../helpers.js';

/**
 * The issuables tests' world: a public group project with a spread of issues (labels, milestones,
 * assignees, confidential ones, due dates around the clock), merge requests, a private project, and users
 * of every role.
 *
 * Roles in acme/website: alice owner (group), dave developer (group), erin reporter, gus guest; bob and
 * carol are not members.
 */
export const NOW = '2021-03-03T12:00:00.000Z'; // a Wednesday

export const issuablesWorld: ScenarioFile = {
  now: NOW,
  users: [
    { username: 'root', name: 'Administrator', admin: true, tokens: [{ token: 'root-api' }] },
    { username: 'alice', name: 'Alice Liddell', tokens: [{ token: 'alice-api' }] },
    { username: 'bob', name: 'Bob Builder', tokens: [{ token: 'bob-api' }] },
    { username: 'carol', name: 'Carol Danvers', tokens: [{ token: 'carol-api' }] },
    { username: 'dave', name: 'Dave Grohl', tokens: [{ token: 'dave-api' }] },
    { username: 'erin', name: 'Erin Brockovich', tokens: [{ token: 'erin-api' }] },
    { username: 'gus', name: 'Gus Fring', tokens: [{ token: 'gus-api' }] },
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
    { path: 'acme/labs', name: 'Labs', visibility: 'public' },
  ],
  projects: [
    {
      path: 'acme/website',
      name: 'Website',
      visibility: 'public',
      creator: 'alice',
      members: [
        { username: 'erin', access_level: 'reporter' },
        { username: 'gus', access_level: 'guest' },
      ],
      labels: [
        { name: 'bug', color: '#FF0000', priority: 1 },
        { name: 'feature', color: '#00FF00', priority: 2 },
        { name: 'docs', color: '#EEEEEE' },
      ],
      milestones: [
        { title: 'v1.0', due_date: '2021-03-10' },
        { title: 'v2.0', due_date: '2021-06-01' },
        { title: 'old', state: 'closed' },
      ],
      issues: [
        {
          title: 'Login button broken',
          description: 'Clicking does nothing.\n\n- [x] reproduce\n- [ ] fix\n- [ ] test',
          author: 'bob',
          labels: ['bug'],
          milestone: 'v1.0',
          assignees: ['dave'],
          due_date: '2021-03-01',
          created_at: '2021-01-01T10:00:00Z',
          updated_at: '2021-02-01T10:00:00Z',
          award_emoji: [
            { name: 'thumbsup', user: 'carol' },
            { name: 'thumbsup', user: 'dave' },
          ],
        },
        {
          title: 'Add dark mode',
          description: 'Users want it',
          author: 'carol',
          labels: ['feature', 'docs'],
          milestone: 'v2.0',
          due_date: '2021-03-05',
          created_at: '2021-01-02T10:00:00Z',
          updated_at: '2021-01-20T10:00:00Z',
          award_emoji: [{ name: 'thumbsdown', user: 'bob' }],
        },
        {
          title: 'Crash on startup',
          author: 'dave',
          labels: ['bug', 'feature'],
          state: 'closed',
          closed_by: 'dave',
          created_at: '2021-01-03T10:00:00Z',
          updated_at: '2021-01-04T10:00:00Z',
          closed_at: '2021-01-04T10:00:00Z',
        },
        {
          title: 'Secret vulnerability',
          description: 'Do not disclose',
          author: 'bob',
          confidential: true,
          labels: ['bug'],
          created_at: '2021-01-04T10:00:00Z',
        },
        {
          title: 'Internal roadmap',
          author: 'erin',
          confidential: true,
          assignees: ['carol'],
          due_date: '2021-04-10',
          created_at: '2021-01-05T10:00:00Z',
        },
        {
          title: 'Typo in footer',
          author: 'alice',
          labels: ['docs'],
          milestone: 'v1.0',
          due_date: '2021-03-20',
          created_at: '2021-01-06T10:00:00Z',
          notes: [{ body: 'Fixed locally', author: 'dave' }],
        },
      ],
      merge_requests: [
        {
          title: 'Fix login button',
          description: 'Closes #1',
          source_branch: 'fix-login',
          author: 'dave',
          assignees: ['alice'],
          labels: ['bug'],
          milestone: 'v1.0',
          created_at: '2021-02-01T10:00:00Z',
        },
        {
          title: 'WIP: Dark mode',
          source_branch: 'dark-mode',
          author: 'alice',
          labels: ['feature'],
          created_at: '2021-02-02T10:00:00Z',
        },
        {
          title: 'Old change',
          source_branch: 'old',
          author: 'dave',
          state: 'merged',
          merged_by: 'alice',
          merged_at: '2021-01-10T10:00:00Z',
          created_at: '2021-01-09T10:00:00Z',
        },
      ],
    },
    {
      path: 'acme/labs/rocket',
      name: 'Rocket',
      visibility: 'private',
      creator: 'alice',
      issues: [{ title: 'Fuel leak', author: 'alice', labels: ['bug'], created_at: '2021-01-07T10:00:00Z' }],
    },
    {
      path: 'acme/attic',
      name: 'Attic',
      visibility: 'public',
      archived: true,
      creator: 'alice',
      issues: [{ title: 'Dusty issue', author: 'alice', created_at: '2021-01-09T10:00:00Z' }],
    },
    {
      path: 'bob/notes',
      name: 'Notes',
      visibility: 'public',
      issues: [{ title: 'Personal todo', author: 'bob', created_at: '2021-01-08T10:00:00Z' }],
    },
  ],
};

/** The groups of `issuablesWorld` with erin as a reporter and gus as a guest of acme (the epic tests' readers). */
export const acmeWithReaders: NonNullable<ScenarioFile['groups']> = issuablesWorld.groups!.map((g) =>
  g.path === 'acme'
    ? {
        ...g,
        members: [
          ...(g.members ?? []),
          { username: 'erin', access_level: 'reporter' },
          { username: 'gus', access_level: 'guest' },
        ],
      }
    : g,
);

export function issuablesFx(options: FauxlabOptions = {}) {
  return createFauxlab({ scenario: issuablesWorld, ...options });
}

export { json, request as call, type CallOptions } from '../helpers.js';

export const api = (path: string) => `/api/v4${path}`;

/** GET as a user (or anonymously), parsed. */
export async function get(fx: ReturnType<typeof createFauxlab>, path: string, token?: string) {
  const res = await request(fx, 'GET', api(path), { token });
  return { status: res.status, headers: res.headers, body: await json(res) };
}

/** A request to an API path as a user (or anonymously), its body parsed. */
export async function send(
  fx: ReturnType<typeof createFauxlab>,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
) {
  const res = await request(fx, method, api(path), { token, body });
  return { status: res.status, body: await json(res) };
}

/** A write that must be refused without changing anything. */
export async function refused(
  fx: ReturnType<typeof createFauxlab>,
  method: string,
  path: string,
  token: string | undefined,
  body: unknown,
  status: number,
  expected: unknown,
) {
  const before = fx.state;
  const r = await send(fx, method, path, token, body);
  expect(r.status).toBe(status);
  expect(r.body).toEqual(expected);
  expect(fx.state).toBe(before);
}

export const titles = (body: { title: string }[]) => body.map((i) => i.title);
export const iids = (body: { iid: number }[]) => body.map((i) => i.iid);

/** The project id of acme/website, URL-encoded path form. */
export const WEB = '/projects/acme%2Fwebsite';

/** The problems loading a scenario reports (none when it loads). */
export function scenarioProblems(file: unknown): string[] {
  try {
    loadScenario(file as ScenarioFile);
  } catch (e) {
    if (e instanceof ScenarioError) return e.problems;
    throw e;
  }
  return [];
}
