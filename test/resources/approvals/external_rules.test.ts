/**
 * External approval rules (EE `external_approval_rules.rb`): ultimate, behind `ff_compliance_approval_gates`
 * (off as shipped); maintainers manage them.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario, type FauxlabOptions } from '../../../src/index.js';
import { tvalues } from '../../../src/core/table.js';
import { APP, body, call, ciWorld } from '../ci/world.js';

const RULES = `${APP}/external_approval_rules`;
const FLAG = [{ name: 'ff_compliance_approval_gates', state: 'on' as const }];

const world = (o: FauxlabOptions = {}) =>
  createFauxlab({ scenario: { ...ciWorld, features: FLAG }, tier: 'ultimate', ...o });

/** Protects `release` on acme/app; its protected branch id. */
async function masterId(fx: ReturnType<typeof world>): Promise<number> {
  const res = await call(fx, 'POST', `${APP}/protected_branches`, 'maint', { name: 'release' });
  expect(res.status).toBe(201);
  return (await body(res)).id as number;
}

describe('external approval rules', () => {
  it('POST /projects/:id/external_approval_rules: a maintainer creates a rule (201) with its protected branches', async () => {
    const fx = world();
    const branch = await masterId(fx);
    const res = await call(fx, 'POST', RULES, 'maint', {
      name: 'Compliance',
      external_url: 'https://checks.example/gate',
      protected_branch_ids: `${branch}`,
    });
    expect(res.status).toBe(201);
    const got = await body(res);
    expect(Object.keys(got)).toEqual(['id', 'name', 'project_id', 'external_url', 'protected_branches']);
    expect(got).toMatchObject({ id: 1, name: 'Compliance', external_url: 'https://checks.example/gate' });
    expect(got.protected_branches.map((b: { name: string }) => b.name)).toEqual(['release']);
    const list = await call(fx, 'GET', RULES, 'maint');
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total')).toBe('1');
    expect(await body(list)).toEqual([got]);
  });

  it("POST /projects/:id/external_approval_rules: 422 with the validations' messages, 404 for an unknown protected branch, 400 without a name; nothing is made", async () => {
    const fx = world();
    await call(fx, 'POST', RULES, 'maint', { name: 'A', external_url: 'https://a.example' });
    const before = fx.state;
    const taken = await call(fx, 'POST', RULES, 'maint', { name: 'A', external_url: 'https://a.example' });
    expect(taken.status).toBe(422);
    expect(await body(taken)).toEqual({
      message: ['External url has already been taken', 'Name has already been taken'],
    });
    const scheme = await call(fx, 'POST', RULES, 'maint', { name: 'B', external_url: 'ftp://b.example' });
    expect(scheme.status).toBe(422);
    expect(await body(scheme)).toEqual({
      message: ['External url is blocked: Only allowed schemes are http, https'],
    });
    // Local addresses are allowed (`addressable_url` allows localhost and the local network).
    const branch = await call(fx, 'POST', RULES, 'maint', {
      name: 'C',
      external_url: 'http://127.0.0.1:9/x',
      protected_branch_ids: [999],
    });
    expect(branch.status).toBe(404);
    const missing = await call(fx, 'POST', RULES, 'maint', { external_url: 'https://c.example' });
    expect(missing.status).toBe(400);
    expect(await body(missing)).toEqual({ error: 'name is missing' });
    expect(fx.state).toBe(before);
    expect(
      (await call(fx, 'POST', RULES, 'maint', { name: 'C', external_url: 'http://127.0.0.1:9/x' })).status,
    ).toBe(201);
  });

  it('who may: developers get the services\' 401 ["Not allowed"] (a list: 401), anonymous 401, an outsider of the private project 404', async () => {
    const fx = world();
    await call(fx, 'POST', RULES, 'maint', { name: 'A', external_url: 'https://a.example' });
    const before = fx.state;
    const dev = await call(fx, 'POST', RULES, 'dev', { name: 'B', external_url: 'https://b.example' });
    expect(dev.status).toBe(401);
    expect(await body(dev)).toEqual({ message: ['Not allowed'] });
    const list = await call(fx, 'GET', RULES, 'dev');
    expect(list.status).toBe(401);
    expect(await body(list)).toEqual({ message: '401 Unauthorized' });
    // The update service refuses before it looks for the rule.
    expect(await body(await call(fx, 'PUT', `${RULES}/99`, 'dev', { name: 'x' }))).toEqual({
      message: ['Not allowed'],
    });
    expect((await call(fx, 'GET', RULES)).status).toBe(401);
    expect((await call(fx, 'GET', RULES, 'outsider')).status).toBe(404);
    expect(fx.state).toBe(before);
  });

  it("DELETE /projects/:id/external_approval_rules/:rule_id: 204 and gone; a developer's is 204 too and the rule stays (destroy_conditionally!)", async () => {
    const fx = world();
    await call(fx, 'POST', RULES, 'maint', { name: 'A', external_url: 'https://a.example' });
    const dev = await call(fx, 'DELETE', `${RULES}/1`, 'dev');
    expect(dev.status).toBe(204);
    expect(await body(await call(fx, 'GET', RULES, 'maint'))).toHaveLength(1);
    expect((await call(fx, 'DELETE', `${RULES}/1`, 'maint')).status).toBe(204);
    expect(await body(await call(fx, 'GET', RULES, 'maint'))).toEqual([]);
    const gone = await call(fx, 'DELETE', `${RULES}/1`, 'maint');
    expect(gone.status).toBe(404);
    expect(await body(gone)).toEqual({ message: '404 Not found' });
  });

  it('PUT /projects/:id/external_approval_rules/:rule_id: changes the given fields; 404 for no rule; 422 for a taken name', async () => {
    const fx = world();
    const branch = await masterId(fx);
    await call(fx, 'POST', RULES, 'maint', { name: 'A', external_url: 'https://a.example' });
    await call(fx, 'POST', RULES, 'maint', { name: 'B', external_url: 'https://b.example' });
    const res = await call(fx, 'PUT', `${RULES}/1`, 'maint', {
      external_url: 'https://a2.example',
      protected_branch_ids: [branch],
    });
    expect(res.status).toBe(200);
    const got = await body(res);
    expect(got).toMatchObject({ id: 1, name: 'A', external_url: 'https://a2.example' });
    expect(got.protected_branches).toHaveLength(1);
    expect((await call(fx, 'PUT', `${RULES}/9`, 'maint', { name: 'x' })).status).toBe(404);
    const taken = await call(fx, 'PUT', `${RULES}/1`, 'maint', { name: 'B' });
    expect(taken.status).toBe(422);
    expect(await body(taken)).toEqual({ message: ['Name has already been taken'] });
    // Unprotecting the branch takes it off the rule.
    expect((await call(fx, 'DELETE', `${APP}/protected_branches/release`, 'maint')).status).toBe(204);
    expect((await body(await call(fx, 'GET', RULES, 'maint')))[0].protected_branches).toEqual([]);
  });

  it('without the flag, on ultimate: 401 for everyone, maintainers too; premium: 401 (EE mounts the route, the licence lacks the feature); free: 404', async () => {
    const off = createFauxlab({ scenario: ciWorld, tier: 'ultimate' });
    expect((await call(off, 'GET', RULES, 'maint')).status).toBe(401);
    expect(
      (await call(off, 'POST', RULES, 'owner', { name: 'A', external_url: 'https://a.example' })).status,
    ).toBe(401);
    const premium = world({ tier: 'premium' });
    expect((await call(premium, 'GET', RULES, 'maint')).status).toBe(401);
    const free = world({ tier: 'free' });
    expect((await call(free, 'GET', RULES, 'maint')).status).toBe(404);
  });

  it('external_approval_rules: an export writes the rules (without protected branches, which the format lacks), a load gives them back', async () => {
    const fx = world();
    const branch = await masterId(fx);
    await call(fx, 'POST', RULES, 'maint', {
      name: 'A',
      external_url: 'https://a.example',
      protected_branch_ids: [branch],
    });
    const out = exportScenario(fx.state, { now: fx.clock.iso() });
    const app = out.projects!.find((p) => p.path === 'acme/app')!;
    expect(app.external_approval_rules).toEqual([{ name: 'A', external_url: 'https://a.example' }]);
    const again = createFauxlab({ scenario: out, tier: 'ultimate' });
    const got = await body(await call(again, 'GET', RULES, 'maint'));
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({
      id: 1,
      name: 'A',
      external_url: 'https://a.example',
      protected_branches: [],
    });
  });
});

describe('external approval rules of a deleted project', () => {
  it('go with the project (the approvals area cascade)', async () => {
    const fx = world();
    await call(fx, 'POST', RULES, 'maint', { name: 'A', external_url: 'https://a.example' });
    expect(tvalues(fx.state.approvals.external)).toHaveLength(1);
    expect((await call(fx, 'DELETE', APP, 'owner')).status).toBe(202);
    // Adjourned deletion on paid tiers: the project goes when its delay has passed.
    fx.clock.advance(8 * 86_400_000);
    await call(fx, 'GET', '/api/v4/projects', 'root');
    expect(tvalues(fx.state.projects).some((p) => p.path === 'app')).toBe(false);
    expect(tvalues(fx.state.approvals.external)).toEqual([]);
  });
});
