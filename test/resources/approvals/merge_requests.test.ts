import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario, type FauxlabOptions } from '../../../src/index.js';
import { APP, body, call, ciWorld } from '../ci/world.js';

const MR = `${APP}/merge_requests/1`;

/** The CI world on a paid tier with one merge request (feature -> master) by `dev`. */
async function world(o: FauxlabOptions = {}) {
  const fx = createFauxlab({ scenario: ciWorld, tier: 'premium', ...o });
  const res = await call(fx, 'POST', `${APP}/merge_requests`, 'dev', {
    source_branch: 'feature',
    target_branch: 'master',
    title: 'Feature',
  });
  expect(res.status).toBe(201);
  return fx;
}

describe('merge request approvals', () => {
  it('GET /projects/:id/merge_requests/:merge_request_iid/approvals: no rules, nothing required, approved', async () => {
    const fx = await world();
    const res = await call(fx, 'GET', `${MR}/approvals`, 'rep');
    expect(res.status).toBe(200);
    const got = await body(res);
    expect(got).toMatchObject({
      iid: 1,
      title: 'Feature',
      state: 'opened',
      approved: true,
      approvals_required: 0,
      approvals_left: 0,
      approved_by: [],
      user_has_approved: false,
      user_can_approve: false,
      has_approval_rules: false,
    });
  });

  it('POST /projects/:id/merge_requests/:merge_request_iid/approve: a rule member approves (201) and the rule is met', async () => {
    const fx = await world();
    const maint = (await body(await call(fx, 'GET', '/api/v4/user', 'maint'))).id as number;
    await call(fx, 'POST', `${APP}/approval_rules`, 'maint', {
      name: 'Leads',
      approvals_required: 1,
      user_ids: [maint],
    });
    let got = await body(await call(fx, 'GET', `${MR}/approvals`, 'maint'));
    expect(got).toMatchObject({
      approved: false,
      approvals_required: 1,
      approvals_left: 1,
      user_can_approve: true,
    });
    expect(got.approval_rules_left).toEqual([{ id: 1, name: 'Leads', rule_type: 'regular' }]);
    expect(got.suggested_approvers.map((u: { username: string }) => u.username)).toEqual(['maint']);
    const res = await call(fx, 'POST', `${MR}/approve`, 'maint');
    expect(res.status).toBe(201);
    got = await body(res);
    expect(got).toMatchObject({
      approved: true,
      approvals_left: 0,
      user_has_approved: true,
      user_can_approve: false,
    });
    expect(got.approved_by.map((a: { user: { username: string } }) => a.user.username)).toEqual(['maint']);
  });

  it('POST /projects/:id/merge_requests/:merge_request_iid/approve: 401 for the author, twice, or outside the rule', async () => {
    const fx = await world();
    const maint = (await body(await call(fx, 'GET', '/api/v4/user', 'maint'))).id as number;
    // Without rules any developer may approve, but the author only when the project allows it.
    expect((await call(fx, 'POST', `${MR}/approve`, 'dev')).status).toBe(401);
    expect((await call(fx, 'POST', `${MR}/approve`, 'owner')).status).toBe(201);
    const before = fx.state;
    const again = await call(fx, 'POST', `${MR}/approve`, 'owner');
    expect(again.status).toBe(401);
    expect(await body(again)).toEqual({ message: '401 Unauthorized' });
    expect(fx.state).toBe(before);
    await call(fx, 'POST', `${APP}/approval_rules`, 'maint', {
      name: 'Leads',
      approvals_required: 1,
      user_ids: [maint],
    });
    expect((await call(fx, 'POST', `${MR}/approve`, 'root')).status).toBe(401);
    // A reporter may not update the merge request: `authorize! :approve_merge_request` refuses (403).
    expect((await call(fx, 'POST', `${MR}/approve`, 'rep')).status).toBe(403);
    await call(fx, 'POST', `${APP}/approvals`, 'maint', { merge_requests_author_approval: true });
    await call(fx, 'POST', `${APP}/approval_rules`, 'maint', {
      name: 'Any',
      approvals_required: 1,
      rule_type: 'any_approver',
    });
    expect((await call(fx, 'POST', `${MR}/approve`, 'dev')).status).toBe(201);
  });

  it('POST /projects/:id/merge_requests/:merge_request_iid/approve: 409 when sha is not the head', async () => {
    const fx = await world();
    const res = await call(fx, 'POST', `${MR}/approve`, 'owner', { sha: 'f'.repeat(40) });
    expect(res.status).toBe(409);
    expect((await body(res)).message).toMatch(/^SHA does not match HEAD of source branch: [0-9a-f]{40}$/);
  });

  it('POST /projects/:id/merge_requests/:merge_request_iid/unapprove: 404 when not approved, 201 after an approval', async () => {
    const fx = await world();
    const res = await call(fx, 'POST', `${MR}/unapprove`, 'owner');
    expect(res.status).toBe(404);
    expect(await body(res)).toEqual({ message: '404 Not Found' });
    await call(fx, 'POST', `${MR}/approve`, 'owner');
    const un = await call(fx, 'POST', `${MR}/unapprove`, 'owner');
    expect(un.status).toBe(201);
    expect((await body(un)).approved_by).toEqual([]);
  });

  it('POST /projects/:id/merge_requests/:merge_request_iid/approve: 403 for who may not update the merge request, 401 anonymously', async () => {
    const fx = await world();
    const before = fx.state;
    for (const who of ['rep', 'guest']) {
      const res = await call(fx, 'POST', `${MR}/approve`, who);
      expect(res.status).toBe(403);
      expect(await body(res)).toEqual({ message: '403 Forbidden' });
    }
    expect((await call(fx, 'POST', `${MR}/unapprove`, 'rep')).status).toBe(403);
    expect((await call(fx, 'POST', `${MR}/approve`)).status).toBe(401);
    expect((await call(fx, 'POST', `${APP}/merge_requests/9/approve`, 'maint')).status).toBe(404);
    expect(fx.state).toBe(before);
  });

  it("POST /projects/:id/merge_requests/:merge_request_iid/approvals: sets the merge request's approvals_before_merge (201, the approval state)", async () => {
    const fx = await world();
    fx.clock.advance(60_000);
    const res = await call(fx, 'POST', `${MR}/approvals`, 'dev', { approvals_required: 2 });
    expect(res.status).toBe(201);
    const got = await body(res);
    expect(got).toMatchObject({ iid: 1, approvals_required: 0, approved: true });
    expect(got.updated_at).toBe(fx.clock.iso());
    const mr = await body(await call(fx, 'GET', MR, 'dev'));
    expect(mr.approvals_before_merge).toBe(2);
    // The same value again changes nothing.
    fx.clock.advance(60_000);
    const before = fx.state;
    const again = await body(await call(fx, 'POST', `${MR}/approvals`, 'dev', { approvals_required: 2 }));
    expect(again.updated_at).toBe(got.updated_at);
    expect(fx.state.issuables).toBe(before.issuables);
    // The count is the merge request's: an export writes it, a load gives it back.
    const out = exportScenario(fx.state, { now: fx.clock.iso() });
    const app = out.projects!.find((p) => p.path === 'acme/app')!;
    expect(app.merge_requests![0]!.approvals_before_merge).toBe(2);
    const loaded = createFauxlab({ scenario: out, tier: 'premium' });
    expect((await body(await call(loaded, 'GET', MR, 'dev'))).approvals_before_merge).toBe(2);
  });

  it("POST /projects/:id/merge_requests/:merge_request_iid/approvals: 400 below the project's count or without approvals_required, 422 when overriding is disabled, 403 for reporters", async () => {
    const fx = await world();
    await call(fx, 'POST', `${APP}/approvals`, 'maint', { approvals_before_merge: 2 });
    const before = fx.state;
    const low = await call(fx, 'POST', `${MR}/approvals`, 'maint', { approvals_required: 1 });
    expect(low.status).toBe(400);
    expect(await body(low)).toEqual({
      message: {
        validate_approvals_before_merge: [
          'Number of approvals must be at least that of approvals on the target project',
        ],
      },
    });
    const missing = await call(fx, 'POST', `${MR}/approvals`, 'maint', {});
    expect(missing.status).toBe(400);
    expect(await body(missing)).toEqual({ error: 'approvals_required is missing' });
    expect((await call(fx, 'POST', `${MR}/approvals`, 'rep', { approvals_required: 3 })).status).toBe(403);
    expect(fx.state).toBe(before);
    await call(fx, 'POST', `${APP}/approvals`, 'maint', {
      disable_overriding_approvers_per_merge_request: true,
    });
    const off = await call(fx, 'POST', `${MR}/approvals`, 'maint', { approvals_required: 3 });
    expect(off.status).toBe(422);
    expect(await body(off)).toEqual({ message: 'Overriding approvals is disabled' });
    expect((await call(fx, 'POST', `${MR}/approvals`, 'maint', { approvals_required: 3 })).status).toBe(422);
  });

  it('POST /projects/:id/merge_requests/:merge_request_iid/approvals: 404 on the free tier', async () => {
    const fx = await world({ tier: 'free' });
    expect((await call(fx, 'POST', `${MR}/approvals`, 'maint', { approvals_required: 1 })).status).toBe(404);
  });

  it('reset_approvals_on_push: a push to the source branch removes the approvals, unless the project turns it off', async () => {
    const fx = await world();
    const push = (n: number) =>
      call(fx, 'POST', `${APP}/repository/files/new${n}.txt`, 'maint', {
        branch: 'feature',
        content: 'x',
        commit_message: `Add ${n}`,
      });
    expect((await call(fx, 'POST', `${MR}/approve`, 'owner')).status).toBe(201);
    expect((await push(1)).status).toBe(201);
    expect((await body(await call(fx, 'GET', `${MR}/approvals`, 'owner'))).approved_by).toEqual([]);
    await call(fx, 'POST', `${APP}/approvals`, 'maint', { reset_approvals_on_push: false });
    expect((await call(fx, 'POST', `${MR}/approve`, 'owner')).status).toBe(201);
    expect((await push(2)).status).toBe(201);
    const kept = await body(await call(fx, 'GET', `${MR}/approvals`, 'owner'));
    expect(kept.approved_by.map((a: { user: { username: string } }) => a.user.username)).toEqual(['owner']);
  });

  it('PUT /projects/:id/merge_requests/:merge_request_iid/merge: 406 while approvals are missing, merges once approved', async () => {
    const fx = await world();
    await call(fx, 'POST', `${APP}/approval_rules`, 'maint', {
      name: 'Any',
      approvals_required: 1,
      rule_type: 'any_approver',
    });
    fx.clock.advance(60_000);
    const before = fx.state;
    const refused = await call(fx, 'PUT', `${MR}/merge`, 'maint');
    expect(refused.status).toBe(406);
    expect(await body(refused)).toEqual({ message: 'Branch cannot be merged' });
    expect((await call(fx, 'GET', MR, 'maint')).status).toBe(200);
    expect(fx.state.approvals).toBe(before.approvals);
    expect((await call(fx, 'POST', `${MR}/approve`, 'owner')).status).toBe(201);
    const merged = await call(fx, 'PUT', `${MR}/merge`, 'maint');
    expect(merged.status).toBe(200);
    expect((await body(merged)).state).toBe('merged');
  });

  it('GET /projects/:id/merge_requests/:merge_request_iid/approval_state: each rule with its approvers and whether it is met', async () => {
    const fx = await world();
    const maint = (await body(await call(fx, 'GET', '/api/v4/user', 'maint'))).id as number;
    await call(fx, 'POST', `${APP}/approval_rules`, 'maint', {
      name: 'Leads',
      approvals_required: 1,
      user_ids: [maint],
    });
    await call(fx, 'POST', `${MR}/approve`, 'maint');
    const res = await call(fx, 'GET', `${MR}/approval_state`, 'rep');
    expect(res.status).toBe(200);
    const got = await body(res);
    expect(got.approval_rules_overwritten).toBe(false);
    expect(got.rules).toHaveLength(1);
    expect(got.rules[0]).toMatchObject({ id: 1, name: 'Leads', approvals_required: 1, approved: true });
    expect(got.rules[0].approved_by.map((u: { username: string }) => u.username)).toEqual(['maint']);
    expect(got.rules[0].eligible_approvers.map((u: { username: string }) => u.username)).toEqual(['maint']);
  });

  it('merge_request_approvals: an export writes the approvals by iid and username, and a load gives them back', async () => {
    const fx = await world();
    await call(fx, 'POST', `${MR}/approve`, 'owner');
    await call(fx, 'POST', `${MR}/approve`, 'maint');
    const out = exportScenario(fx.state, { now: fx.clock.iso() });
    const app = out.projects!.find((p) => p.path === 'acme/app')!;
    expect(app.merge_request_approvals).toEqual([{ iid: 1, approved_by: ['owner', 'maint'] }]);
    const again = createFauxlab({ scenario: out, tier: 'premium' });
    const got = await body(await call(again, 'GET', `${MR}/approvals`, 'maint'));
    expect(got.approved_by.map((a: { user: { username: string } }) => a.user.username)).toEqual([
      'owner',
      'maint',
    ]);
  });
});
