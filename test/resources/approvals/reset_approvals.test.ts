/**
 * `PUT /projects/:id/merge_requests/:merge_request_iid/reset_approvals` (15.4,
 * `lib/api/merge_request_approvals.rb`): a project access token's bot that may approve removes every
 * approval (202, Grape's `status :accepted` as the body); a human is 401; before 15.4 no such route.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { APP, body, call, ciWorld } from '../ci/world.js';

const MR = `${APP}/merge_requests/1`;

async function world(version: string) {
  const fx = createFauxlab({ scenario: ciWorld, tier: 'free', version });
  const res = await call(fx, 'POST', `${APP}/merge_requests`, 'dev', {
    source_branch: 'feature',
    target_branch: 'master',
    title: 'Feature',
  });
  expect(res.status).toBe(201);
  expect((await call(fx, 'POST', `${MR}/approve`, 'dev')).status).toBe(201);
  expect((await call(fx, 'POST', `${MR}/approve`, 'maint')).status).toBe(201);
  return fx;
}

async function botToken(fx: ReturnType<typeof createFauxlab>, scopes = ['api']): Promise<string> {
  const res = await call(fx, 'POST', `${APP}/access_tokens`, 'maint', { name: 'bot', scopes });
  expect(res.status).toBe(201);
  return (await body(res)).token as string;
}

const approvers = async (fx: ReturnType<typeof createFauxlab>) =>
  (await body(await call(fx, 'GET', `${MR}/approvals`, 'maint'))).approved_by.map(
    (a: { user: { username: string } }) => a.user.username,
  );

describe('reset approvals of a merge request (15.4)', () => {
  it('PUT reset_approvals by a project bot: 202 with the body 202, and no approval is left', async () => {
    const fx = await world('15.4');
    expect(await approvers(fx)).toEqual(['dev', 'maint']);
    const res = await call(fx, 'PUT', `${MR}/reset_approvals`, await botToken(fx));
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('202');
    expect(await approvers(fx)).toEqual([]);
  });

  it('a human, even the maintainer or an admin, is 401 and changes nothing', async () => {
    const fx = await world('15.4');
    for (const who of ['maint', 'dev']) {
      const res = await call(fx, 'PUT', `${MR}/reset_approvals`, who);
      expect(res.status).toBe(401);
      expect(await body(res)).toEqual({ message: '401 Unauthorized' });
    }
    expect(await approvers(fx)).toEqual(['dev', 'maint']);
  });

  it('an unknown merge request is 404 Merge Request Not Found; a merged one is 401', async () => {
    const fx = await world('15.4');
    const bot = await botToken(fx);
    const missing = await call(fx, 'PUT', `${APP}/merge_requests/99/reset_approvals`, bot);
    expect(missing.status).toBe(404);
    expect(await body(missing)).toEqual({ message: '404 Merge Request Not Found' });
    expect((await call(fx, 'PUT', `${MR}/merge`, 'maint')).status).toBe(200);
    expect((await call(fx, 'PUT', `${MR}/reset_approvals`, bot)).status).toBe(401);
  });

  it('before 15.4 the route does not exist', async () => {
    const fx = await world('15.3');
    const res = await call(fx, 'PUT', `${MR}/reset_approvals`, await botToken(fx));
    expect(res.status).toBe(404);
    expect(await approvers(fx)).toEqual(['dev', 'maint']);
  });
});
