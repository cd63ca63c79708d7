import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario, type FauxlabOptions } from '../../../src/index.js';
import { tvalues } from '../../../src/core/table.js';
import { APP, body, call, ciWorld } from '../ci/world.js';

const RULES = `${APP}/approval_rules`;

const world = (o: FauxlabOptions = {}) => createFauxlab({ scenario: ciWorld, tier: 'premium', ...o });
type Fx = ReturnType<typeof world>;

const userId = (fx: Fx, username: string) => tvalues(fx.state.users).find((u) => u.username === username)!.id;
const groupId = (fx: Fx, path: string) => tvalues(fx.state.groups).find((g) => g.full_path === path)!.id;

describe('project approval rules', () => {
  it('POST /projects/:id/approval_rules: a maintainer creates a rule (201) with users, groups and eligible approvers', async () => {
    const fx = world();
    const dev = userId(fx, 'dev');
    const res = await call(fx, 'POST', RULES, 'maint', {
      name: 'Security',
      approvals_required: 2,
      user_ids: [dev, userId(fx, 'outsider')],
      group_ids: [groupId(fx, 'acme')],
    });
    expect(res.status).toBe(201);
    const rule = await body(res);
    expect(Object.keys(rule)).toEqual([
      'id',
      'name',
      'rule_type',
      'eligible_approvers',
      'approvals_required',
      'users',
      'groups',
      'contains_hidden_groups',
      'protected_branches',
    ]);
    expect(rule).toMatchObject({ id: 1, name: 'Security', rule_type: 'regular', approvals_required: 2 });
    // The outsider is no member of the project: the rule drops them.
    expect(rule.users.map((u: { username: string }) => u.username)).toEqual(['dev']);
    expect(rule.groups.map((g: { full_path: string }) => g.full_path)).toEqual(['acme']);
    expect(rule.contains_hidden_groups).toBe(false);
    const eligible = rule.eligible_approvers.map((u: { username: string }) => u.username);
    expect(eligible).toContain('dev');
    expect(eligible).toContain('guest');
    expect(eligible).not.toContain('outsider');
    const list = await call(fx, 'GET', RULES, 'dev');
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total')).toBe('1');
    expect(await body(list)).toEqual([rule]);
  });

  it('POST /projects/:id/approval_rules: 400 for a missing name, a taken name or a negative count; nothing is created', async () => {
    const fx = world();
    let res = await call(fx, 'POST', RULES, 'maint', { approvals_required: 1 });
    expect(res.status).toBe(400);
    expect(await body(res)).toEqual({ error: 'name is missing' });
    expect((await call(fx, 'POST', RULES, 'maint', { name: 'QA', approvals_required: 1 })).status).toBe(201);
    const before = fx.state;
    res = await call(fx, 'POST', RULES, 'maint', { name: 'QA', approvals_required: 1 });
    expect(res.status).toBe(400);
    expect(await body(res)).toEqual({ message: { name: ['has already been taken'] } });
    res = await call(fx, 'POST', RULES, 'maint', { name: 'Other', approvals_required: -1 });
    expect(res.status).toBe(400);
    expect(await body(res)).toEqual({
      message: { approvals_required: ['must be greater than or equal to 0'] },
    });
    expect(fx.state).toBe(before);
  });

  it('POST /projects/:id/approval_rules: 403 for developers, 404 on the free tier', async () => {
    const fx = world();
    expect((await call(fx, 'POST', RULES, 'dev', { name: 'QA', approvals_required: 1 })).status).toBe(403);
    expect((await call(fx, 'GET', RULES, 'rep')).status).toBe(403);
    const free = world({ tier: 'free' });
    expect((await call(free, 'GET', RULES, 'maint')).status).toBe(404);
  });

  it("GET /projects/:id/approval_rules/:approval_rule_id: the rule as the list shows it; 404 for another project's or none, 403 for reporters, 404 on the free tier", async () => {
    const fx = world();
    await call(fx, 'POST', RULES, 'maint', {
      name: 'QA',
      approvals_required: 1,
      user_ids: [userId(fx, 'dev')],
    });
    const res = await call(fx, 'GET', `${RULES}/1`, 'dev');
    expect(res.status).toBe(200);
    const [listed] = await body(await call(fx, 'GET', RULES, 'dev'));
    expect(await body(res)).toEqual(listed);
    const none = await call(fx, 'GET', `${RULES}/9`, 'dev');
    expect(none.status).toBe(404);
    expect(await body(none)).toEqual({ message: '404 Not found' });
    expect((await call(fx, 'GET', '/api/v4/projects/acme%2Fsite/approval_rules/1', 'owner')).status).toBe(
      404,
    );
    expect((await call(fx, 'GET', `${RULES}/1`, 'rep')).status).toBe(403);
    expect((await call(fx, 'GET', `${RULES}/1`)).status).toBe(401);
    const free = world({ tier: 'free' });
    expect((await call(free, 'GET', `${RULES}/1`, 'maint')).status).toBe(404);
  });

  it('PUT /projects/:id/approval_rules/:approval_rule_id: changes the given fields only', async () => {
    const fx = world();
    await call(fx, 'POST', RULES, 'maint', {
      name: 'QA',
      approvals_required: 1,
      user_ids: [userId(fx, 'dev')],
    });
    const res = await call(fx, 'PUT', `${RULES}/1`, 'maint', {
      approvals_required: 3,
      user_ids: [userId(fx, 'rep')],
    });
    expect(res.status).toBe(200);
    const rule = await body(res);
    expect(rule).toMatchObject({ id: 1, name: 'QA', approvals_required: 3 });
    expect(rule.users.map((u: { username: string }) => u.username)).toEqual(['rep']);
    expect((await call(fx, 'PUT', `${RULES}/9`, 'maint', { name: 'x' })).status).toBe(404);
  });

  it('DELETE /projects/:id/approval_rules/:approval_rule_id: 204, then the rule is gone (404)', async () => {
    const fx = world();
    await call(fx, 'POST', RULES, 'maint', { name: 'QA', approvals_required: 1 });
    expect((await call(fx, 'DELETE', `${RULES}/1`, 'dev')).status).toBe(403);
    expect((await call(fx, 'DELETE', `${RULES}/1`, 'maint')).status).toBe(204);
    const res = await call(fx, 'DELETE', `${RULES}/1`, 'maint');
    expect(res.status).toBe(404);
    expect(await body(res)).toEqual({ message: '404 Not found' });
    expect(await body(await call(fx, 'GET', RULES, 'maint'))).toEqual([]);
  });

  it('approval_rules: a scenario builds rules by usernames and group paths; an export writes them back', async () => {
    const scenario = {
      ...ciWorld,
      projects: [
        {
          ...ciWorld.projects![0]!,
          approval_rules: [{ name: 'Leads', approvals_required: 1, users: ['maint'], groups: ['acme'] }],
        },
        ...ciWorld.projects!.slice(1),
      ],
    };
    const fx = createFauxlab({ scenario, tier: 'premium' });
    const [rule] = await body(await call(fx, 'GET', RULES, 'maint'));
    expect(rule).toMatchObject({ name: 'Leads', approvals_required: 1, rule_type: 'regular' });
    expect(rule.users.map((u: { username: string }) => u.username)).toEqual(['maint']);
    const out = exportScenario(fx.state, { now: fx.clock.iso() });
    expect(out.projects!.find((p) => p.path === 'acme/app')!.approval_rules).toEqual([
      { name: 'Leads', approvals_required: 1, users: ['maint'], groups: ['acme'] },
    ]);
  });

  it('approval_rules: a scenario naming an unknown user is refused with the field path', () => {
    const scenario = {
      ...ciWorld,
      projects: [
        {
          ...ciWorld.projects![0]!,
          approval_rules: [{ name: 'X', approvals_required: 1, users: ['nobody'] }],
        },
      ],
    };
    expect(() => createFauxlab({ scenario, tier: 'premium' })).toThrow(
      /approval_rules\[0\]\.users\[0\]: no user "nobody"/,
    );
  });
});
