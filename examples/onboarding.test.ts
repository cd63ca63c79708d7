/**
 * An example suite: code that uses @gitbeaker/rest, tested against fauxlab through MSW with the
 * helpers of `fauxlab/testing`. Run it with `npm run test:examples`.
 */
import { fileURLToPath } from 'node:url';
import { Gitlab, GitbeakerRequestError } from '@gitbeaker/rest';
import { expectRequest, useFauxlab } from 'fauxlab/testing';
import { describe, expect, it } from 'vitest';
import { onboard } from './onboarding.js';

const GITLAB = 'http://gitlab.example.test';
const hire = { username: 'grace', name: 'Grace Hopper', email: 'grace@example.com' };

// One instance for the file, back to world.yaml before each test, answering fetch at GITLAB through MSW.
const fx = useFauxlab({ scenario: fileURLToPath(new URL('./world.yaml', import.meta.url)), msw: GITLAB });
const api = new Gitlab({ host: GITLAB, token: 'onboarding-bot-token' });

describe('onboard', () => {
  it('creates the account and adds it to the team as a developer', async () => {
    const id = await onboard(api, 'team', hire);

    // What the platform now holds, read back through the API...
    const members = await api.GroupMembers.all('team');
    expect(members.map((m) => [m.username, m.access_level])).toContainEqual(['grace', 30]);
    // ...and what the code sent, from the request journal.
    expectRequest(fx, {
      method: 'POST',
      path: '/api/v4/users',
      body: { username: 'grace' },
    }).toHaveBeenCalledOnce();
    expectRequest(fx, {
      method: 'POST',
      path: '/api/v4/groups/:id/members',
      body: { user_id: id, access_level: 30 },
    }).toHaveBeenCalledOnce();
  });

  it('refuses a taken username without writing anything', async () => {
    await expect(onboard(api, 'team', { ...hire, username: 'alice' })).rejects.toThrow(
      'alice already has an account',
    );
    expectRequest(fx, { method: 'POST' }).not.toHaveBeenCalled();
  });

  it('gets through a rate limit: gitbeaker retries 429s', async () => {
    fx.faults.add({ method: 'POST', path: '/api/v4/users', status: 429, times: 2 });
    await onboard(api, 'team', hire);
    expect(fx.requests({ method: 'POST', path: '/api/v4/users' }).map((e) => e.status)).toEqual([
      429, 429, 201,
    ]);
  });

  it('reports an outage instead of half-onboarding someone', async () => {
    fx.faults.add({ method: 'POST', path: '/api/v4/groups/*/members', status: 503 });
    await expect(onboard(api, 'team', hire)).rejects.toThrow(GitbeakerRequestError);
    // The account exists but has no team: what the code would have to clean up.
    expect(fx.requests.last()).toMatchObject({ status: 503, route: null, faults: [1] });
  });

  it('a missing group is a 404, and the journal says why', async () => {
    await expect(onboard(api, 'no-such-team', hire)).rejects.toThrow('404 Group Not Found');
    expect(fx.requests.last()?.explain).toBe('no group with this id or path');
  });
});
