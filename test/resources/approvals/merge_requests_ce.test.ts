/**
 * CE's merge request approvals (`lib/api/merge_request_approvals.rb`, every tier): on the free tier the
 * routes answer with CE's `Entities::MergeRequestApprovals`; nothing is required, anyone who may update the
 * merge request approves it once, and a push keeps the approvals.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { APP, body, call, ciWorld } from '../ci/world.js';

const MR = `${APP}/merge_requests/1`;
const SITE = '/api/v4/projects/acme%2Fsite';

/** The CI world on the free tier with one merge request (feature -> master) by `dev`. */
async function world() {
  const fx = createFauxlab({ scenario: ciWorld, tier: 'free' });
  const res = await call(fx, 'POST', `${APP}/merge_requests`, 'dev', {
    source_branch: 'feature',
    target_branch: 'master',
    title: 'Feature',
  });
  expect(res.status).toBe(201);
  return fx;
}

const names = (got: { approved_by: { user: { username: string } }[] }) =>
  got.approved_by.map((a) => a.user.username);

describe('merge request approvals on the free tier (CE)', () => {
  it("GET /projects/:id/merge_requests/:merge_request_iid/approvals: CE's four fields, nothing approved", async () => {
    const fx = await world();
    const res = await call(fx, 'GET', `${MR}/approvals`, 'maint');
    expect(res.status).toBe(200);
    expect(await body(res)).toEqual({
      user_has_approved: false,
      user_can_approve: true,
      approved: false,
      approved_by: [],
    });
    // A reporter reads them but may not approve (no `update_merge_request`).
    expect(await body(await call(fx, 'GET', `${MR}/approvals`, 'rep'))).toMatchObject({
      user_can_approve: false,
    });
  });

  it('POST /projects/:id/merge_requests/:merge_request_iid/approve: the author approves too (201); twice is 401', async () => {
    const fx = await world();
    const res = await call(fx, 'POST', `${MR}/approve`, 'dev');
    expect(res.status).toBe(201);
    const got = await body(res);
    expect(got).toMatchObject({ user_has_approved: true, user_can_approve: false, approved: true });
    expect(Object.keys(got)).toEqual(['user_has_approved', 'user_can_approve', 'approved', 'approved_by']);
    expect(names(got)).toEqual(['dev']);
    expect(Object.keys(got.approved_by[0].user)).toEqual([
      'id',
      'name',
      'username',
      'state',
      'avatar_url',
      'web_url',
    ]);
    const before = fx.state;
    const again = await call(fx, 'POST', `${MR}/approve`, 'dev');
    expect(again.status).toBe(401);
    expect(await body(again)).toEqual({ message: '401 Unauthorized' });
    expect(fx.state).toBe(before);
    expect((await call(fx, 'POST', `${MR}/approve`, 'maint')).status).toBe(201);
    expect(names(await body(await call(fx, 'GET', `${MR}/approvals`, 'rep')))).toEqual(['dev', 'maint']);
  });

  it('POST /projects/:id/merge_requests/:merge_request_iid/approve: 403 for reporters and guests, 401 anonymously, 409 for another sha', async () => {
    const fx = await world();
    const before = fx.state;
    expect((await call(fx, 'POST', `${MR}/approve`, 'rep')).status).toBe(403);
    expect((await call(fx, 'POST', `${MR}/approve`, 'guest')).status).toBe(403);
    expect((await call(fx, 'POST', `${MR}/approve`)).status).toBe(401);
    const sha = await call(fx, 'POST', `${MR}/approve`, 'maint', { sha: 'f'.repeat(40) });
    expect(sha.status).toBe(409);
    expect(fx.state).toBe(before);
  });

  it('POST /projects/:id/merge_requests/:merge_request_iid/unapprove: 404 without an approval, 201 with one', async () => {
    const fx = await world();
    const none = await call(fx, 'POST', `${MR}/unapprove`, 'maint');
    expect(none.status).toBe(404);
    expect(await body(none)).toEqual({ message: '404 Not Found' });
    await call(fx, 'POST', `${MR}/approve`, 'maint');
    const un = await call(fx, 'POST', `${MR}/unapprove`, 'maint');
    expect(un.status).toBe(201);
    expect(await body(un)).toEqual({
      user_has_approved: false,
      user_can_approve: true,
      approved: false,
      approved_by: [],
    });
  });

  it('a push to the source branch keeps the approvals (the reset is EE)', async () => {
    const fx = await world();
    await call(fx, 'POST', `${MR}/approve`, 'maint');
    const push = await call(fx, 'POST', `${APP}/repository/files/new.txt`, 'maint', {
      branch: 'feature',
      content: 'x',
      commit_message: 'Add',
    });
    expect(push.status).toBe(201);
    expect(names(await body(await call(fx, 'GET', `${MR}/approvals`, 'maint')))).toEqual(['maint']);
  });

  it('GET /projects/:id/merge_requests/:merge_request_iid/approvals: anonymous on a public project (200); `404 Merge Request Not Found` where merge requests are hidden', async () => {
    const fx = createFauxlab({ scenario: ciWorld, tier: 'free' });
    expect(
      (await call(fx, 'POST', `${SITE}/repository/branches`, 'owner', { branch: 'topic', ref: 'master' }))
        .status,
    ).toBe(201);
    expect(
      (
        await call(fx, 'POST', `${SITE}/merge_requests`, 'owner', {
          source_branch: 'topic',
          target_branch: 'master',
          title: 'Topic',
        })
      ).status,
    ).toBe(201);
    const anon = await call(fx, 'GET', `${SITE}/merge_requests/1/approvals`);
    expect(anon.status).toBe(200);
    expect(await body(anon)).toMatchObject({ user_has_approved: false, user_can_approve: false });
    expect((await call(fx, 'POST', `${SITE}/merge_requests/1/approve`)).status).toBe(401);
    // acme/app is private: a guest sees the project, not its merge requests.
    await call(fx, 'POST', `${APP}/merge_requests`, 'dev', {
      source_branch: 'feature',
      target_branch: 'master',
      title: 'F',
    });
    const hidden = await call(fx, 'GET', `${MR}/approvals`, 'guest');
    expect(hidden.status).toBe(404);
    expect(await body(hidden)).toEqual({ message: '404 Merge Request Not Found' });
    expect((await call(fx, 'GET', `${APP}/merge_requests/9/approvals`, 'maint')).status).toBe(404);
  });

  it('the EE routes stay away: approval_state and POST approvals are 404 on the free tier', async () => {
    const fx = await world();
    expect((await call(fx, 'GET', `${MR}/approval_state`, 'maint')).status).toBe(404);
    expect((await call(fx, 'POST', `${MR}/approvals`, 'maint', { approvals_required: 1 })).status).toBe(404);
  });
});
