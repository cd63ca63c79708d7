/**
 * `GET /application/statistics`: `API::Statistics`' counts, each a string with thousands separators, and
 * the counts following the instance's writes.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { withDelimiters } from '../../../src/resources/metadata/statistics.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { tok } from '../helpers.js';
import { send, sshKey } from './world.js';

const scenario: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [
    { username: 'root', admin: true, tokens: tok('root'), ssh_keys: [{ title: 'k', key: sshKey(1) }] },
    { username: 'alice', tokens: tok('alice') },
    { username: 'gone', state: 'blocked' },
    ...Array.from({ length: 1_000 }, (_, i) => ({ username: `u${i}` })),
  ],
  groups: [{ path: 'acme', members: [{ username: 'alice', access_level: 'owner' }] }, { path: 'acme/sub' }],
  projects: [
    {
      path: 'acme/app',
      deploy_keys: [{ title: 'ci', key: sshKey(2) }],
      milestones: [{ title: 'v1' }],
      issues: [{ title: 'one', notes: [{ body: 'hi' }] }, { title: 'two' }],
      merge_requests: [{ title: 'mr', source_branch: 'feature' }],
      snippets: [{ title: 's', file_name: 'a.txt', content: 'a' }],
    },
    { path: 'alice/app', forked_from: 'acme/app' },
  ],
  snippets: [{ title: 'mine', file_name: 'b.txt', content: 'b', author: 'alice' }],
};

const fx0 = () => createFauxlab({ scenario });

describe('GET /application/statistics', () => {
  it("counts every table 13.12 counts, as strings with thousands separators, in the entity's order", async () => {
    const fx = fx0();
    const { status, body } = await send(fx as never, 'GET', '/application/statistics', 'root');
    expect(status).toBe(200);
    expect(body).toEqual({
      forks: '1',
      issues: '2',
      merge_requests: '1',
      notes: '1',
      snippets: '2',
      ssh_keys: '2',
      milestones: '1',
      users: '1,003',
      projects: '2',
      groups: '2',
      active_users: '1,002',
    });
    expect(Object.keys(body)).toEqual([
      'forks',
      'issues',
      'merge_requests',
      'notes',
      'snippets',
      'ssh_keys',
      'milestones',
      'users',
      'projects',
      'groups',
      'active_users',
    ]);
  });

  it('follows writes: a new issue, a removed fork relation, a blocked user', async () => {
    const fx = fx0();
    const s = (m: string, p: string, t: string, b?: unknown) => send(fx as never, m, p, t, b);
    expect((await s('POST', '/projects/acme%2Fapp/issues', 'root', { title: 'three' })).status).toBe(201);
    expect((await s('DELETE', '/projects/alice%2Fapp/fork', 'root')).status).toBe(204);
    expect((await s('POST', '/users/2/block', 'root')).status).toBe(201);
    const { body } = await s('GET', '/application/statistics', 'root');
    expect(body).toMatchObject({ issues: '3', forks: '0', users: '1,003', active_users: '1,001' });
  });

  it('administrators only', async () => {
    const fx = fx0();
    expect((await send(fx as never, 'GET', '/application/statistics')).status).toBe(401);
    const out = await send(fx as never, 'GET', '/application/statistics', 'alice');
    expect([out.status, out.body]).toEqual([403, { message: '403 Forbidden' }]);
  });

  it('number_with_delimiter groups by three from the right', () => {
    expect([0, 999, 1000, 12_345, 1_234_567, 100_000_000].map(withDelimiters)).toEqual([
      '0',
      '999',
      '1,000',
      '12,345',
      '1,234,567',
      '100,000,000',
    ]);
  });
});
