import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { call, json } from '../users/world.js';

const world: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [
    { username: 'root', admin: true, tokens: [{ token: 'root-api' }] },
    {
      username: 'alice',
      tokens: [
        { token: 'alice-api', scopes: ['api'] },
        { token: 'alice-read-user', scopes: ['read_user'] },
      ],
    },
    { username: 'bob', tokens: [{ token: 'bob-api' }] },
  ],
  groups: [{ path: 'acme', members: [{ username: 'alice', access_level: 'developer' }] }],
  projects: [
    {
      path: 'acme/app',
      visibility: 'private',
      issues: [
        { title: 'mine', assignees: ['alice'] },
        { title: 'mine, closed', assignees: ['alice'], state: 'closed' },
        { title: 'mine, confidential', assignees: ['alice', 'bob'], confidential: true },
        { title: 'not mine', assignees: ['bob'] },
      ],
      merge_requests: [
        { title: 'assigned', source_branch: 'a', assignees: ['alice'] },
        { title: 'to review', source_branch: 'b', reviewers: ['alice', 'bob'] },
        { title: 'merged', source_branch: 'c', assignees: ['alice'], reviewers: ['alice'], state: 'merged' },
      ],
    },
    {
      path: 'acme/old',
      visibility: 'private',
      archived: true,
      issues: [{ title: 'archived', assignees: ['alice'] }],
      merge_requests: [{ title: 'archived', source_branch: 'a', assignees: ['alice'] }],
    },
  ],
};

const counts = async (fx: ReturnType<typeof createFauxlab>, token?: string) => {
  const res = await call(fx, 'GET', '/api/v4/user_counts', { token });
  return { status: res.status, body: await json(res) };
};

describe('GET /user_counts', () => {
  it('counts the open issuables assigned to or awaiting review by the user, in the 13.12 keys', async () => {
    const fx = createFauxlab({ scenario: world });
    const { status, body } = await counts(fx, 'alice-api');
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual([
      'merge_requests',
      'assigned_issues',
      'assigned_merge_requests',
      'review_requested_merge_requests',
    ]);
    // Closed, merged and archived ones do not count; the confidential issue counts for its assignee.
    expect(body).toEqual({
      merge_requests: 1,
      assigned_issues: 2,
      assigned_merge_requests: 1,
      review_requested_merge_requests: 1,
    });
    // The API class opens no `read_user` scope: such a token is refused.
    expect((await counts(fx, 'alice-read-user')).status).toBe(403);
  });

  it('counts only what the user may see (IssuesFinder as the user): no access, no count', async () => {
    const fx = createFauxlab({ scenario: world });
    // bob is no member of the private project: his assignments there are not his to see.
    expect((await counts(fx, 'bob-api')).body).toEqual({
      merge_requests: 0,
      assigned_issues: 0,
      assigned_merge_requests: 0,
      review_requested_merge_requests: 0,
    });
  });

  it('follows state changes: a closed issue stops counting', async () => {
    const fx = createFauxlab({ scenario: world });
    const res = await call(fx, 'PUT', '/api/v4/projects/acme%2Fapp/issues/1', {
      token: 'alice-api',
      body: { state_event: 'close' },
    });
    expect(res.status).toBe(200);
    expect((await counts(fx, 'alice-api')).body.assigned_issues).toBe(1);
  });

  it('401 without a user, also for a bad token', async () => {
    const fx = createFauxlab({ scenario: world });
    expect(await counts(fx)).toEqual({ status: 401, body: { message: '401 Unauthorized' } });
    expect((await counts(fx, 'nope')).status).toBe(401);
  });
});
