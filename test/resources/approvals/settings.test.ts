import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario, type FauxlabOptions } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { APP, body, call, ciWorld } from '../ci/world.js';

const APPROVALS = `${APP}/approvals`;
const PUBLIC = '/api/v4/projects/acme%2Fclosed/approvals';

const world = (o: FauxlabOptions = {}, scenario: ScenarioFile = ciWorld) =>
  createFauxlab({ scenario, tier: 'premium', ...o });

const DEFAULTS = {
  approvers: [],
  approver_groups: [],
  approvals_before_merge: 0,
  reset_approvals_on_push: true,
  disable_overriding_approvers_per_merge_request: false,
  merge_requests_author_approval: false,
  merge_requests_disable_committers_approval: false,
  require_password_to_approve: false,
};

describe('project approval settings', () => {
  it('GET /projects/:id/approvals: the ApprovalSettings entity with the defaults, in order', async () => {
    const fx = world();
    const res = await call(fx, 'GET', APPROVALS, 'dev');
    expect(res.status).toBe(200);
    const got = await body(res);
    expect(got).toEqual(DEFAULTS);
    expect(Object.keys(got)).toEqual(Object.keys(DEFAULTS));
  });

  it('GET /projects/:id/approvals: absent on the free tier (404)', async () => {
    const fx = world({ tier: 'free' });
    const res = await call(fx, 'GET', APPROVALS, 'maint');
    expect(res.status).toBe(404);
  });

  it('GET /projects/:id/approvals: 401 without a user, 403 for reporters and guests, 404 for strangers of a private project', async () => {
    const fx = world();
    expect((await call(fx, 'GET', APPROVALS)).status).toBe(401);
    for (const t of ['rep', 'guest']) {
      const res = await call(fx, 'GET', APPROVALS, t);
      expect(res.status).toBe(403);
      expect(await body(res)).toEqual({ message: '403 Forbidden' });
    }
    const res = await call(fx, 'GET', APPROVALS, 'outsider');
    expect(res.status).toBe(404);
    expect(await body(res)).toEqual({ message: '404 Project Not Found' });
    expect((await call(fx, 'GET', PUBLIC, 'outsider')).status).toBe(403);
  });

  it('POST /projects/:id/approvals: maintainers change the settings (201) and a later GET shows them', async () => {
    const fx = world();
    const res = await call(fx, 'POST', APPROVALS, 'maint', {
      approvals_before_merge: 2,
      reset_approvals_on_push: false,
      merge_requests_author_approval: true,
      require_password_to_approve: true,
    });
    expect(res.status).toBe(201);
    const want = {
      ...DEFAULTS,
      approvals_before_merge: 2,
      reset_approvals_on_push: false,
      merge_requests_author_approval: true,
      require_password_to_approve: true,
    };
    expect(await body(res)).toEqual(want);
    expect(await body(await call(fx, 'GET', APPROVALS, 'dev'))).toEqual(want);
    // The project entity shows the same count.
    expect((await body(await call(fx, 'GET', APP, 'maint'))).approvals_before_merge).toBe(2);
  });

  it('POST /projects/:id/approvals: 400 when no setting is given, and nothing changes', async () => {
    const fx = world();
    const before = fx.state;
    const res = await call(fx, 'POST', APPROVALS, 'maint', {});
    expect(res.status).toBe(400);
    expect(await body(res)).toEqual({
      error:
        'approvals_before_merge, reset_approvals_on_push, disable_overriding_approvers_per_merge_request, merge_requests_author_approval, merge_requests_disable_committers_approval, require_password_to_approve are missing, at least one parameter must be provided',
    });
    expect(fx.state).toBe(before);
  });

  it('POST /projects/:id/approvals: 400 for a value that is not a boolean', async () => {
    const fx = world();
    const res = await call(fx, 'POST', APPROVALS, 'maint', { reset_approvals_on_push: 'maybe' });
    expect(res.status).toBe(400);
    expect(await body(res)).toEqual({ error: 'reset_approvals_on_push is invalid' });
  });

  it('POST /projects/:id/approvals: 403 for developers, and the settings stay', async () => {
    const fx = world();
    const before = fx.state;
    const res = await call(fx, 'POST', APPROVALS, 'dev', { approvals_before_merge: 3 });
    expect(res.status).toBe(403);
    expect(fx.state).toBe(before);
  });

  it('POST /projects/:id/approvals: setting the defaults again keeps no record and leaves updated_at', async () => {
    const fx = world();
    await call(fx, 'POST', APPROVALS, 'maint', { require_password_to_approve: true });
    const updated = (await body(await call(fx, 'GET', APP, 'maint'))).updated_at as string;
    fx.clock.advance(60_000);
    await call(fx, 'POST', APPROVALS, 'maint', { require_password_to_approve: true });
    expect((await body(await call(fx, 'GET', APP, 'maint'))).updated_at).toBe(updated);
    await call(fx, 'POST', APPROVALS, 'maint', { require_password_to_approve: false });
    expect(fx.state.approvals.settings.size).toBe(0);
    expect(await body(await call(fx, 'GET', APPROVALS, 'maint'))).toEqual(DEFAULTS);
  });

  it('approval_settings: a scenario sets them and an export gives them back', async () => {
    const scenario: ScenarioFile = {
      ...ciWorld,
      projects: [
        {
          ...ciWorld.projects![0]!,
          approval_settings: {
            approvals_before_merge: 1,
            disable_overriding_approvers_per_merge_request: true,
          },
        },
        ...ciWorld.projects!.slice(1),
      ],
    };
    const fx = world({}, scenario);
    expect(await body(await call(fx, 'GET', APPROVALS, 'maint'))).toEqual({
      ...DEFAULTS,
      approvals_before_merge: 1,
      disable_overriding_approvers_per_merge_request: true,
    });
    const out = exportScenario(fx.state, { now: fx.clock.iso() });
    const app = out.projects!.find((p) => p.path === 'acme/app')!;
    expect(app.approval_settings).toEqual({
      approvals_before_merge: 1,
      reset_approvals_on_push: true,
      disable_overriding_approvers_per_merge_request: true,
      merge_requests_author_approval: false,
      merge_requests_disable_committers_approval: false,
      require_password_to_approve: false,
    });
    expect(out.projects!.find((p) => p.path === 'acme/closed')!.approval_settings).toBeUndefined();
  });
});
