import { describe, expect, it } from 'vitest';
import { deliveries } from '../../../src/resources/integrations/delivery.js';
import { body, call, contentWorld, world } from '../settings/world.js';
import { LOCAL_OK, listen } from './receivers.js';

/** `acme` with a group hook taking member and subgroup events, on a paid instance. */
async function hooked(flags: Record<string, boolean>, tier: 'free' | 'premium' = 'premium') {
  const r = await listen();
  const [acme] = contentWorld.groups!;
  const fx = world(
    { tier },
    {
      settings: { ...LOCAL_OK.settings, deletion_adjourned_period: 0 },
      groups: [{ ...acme!, hooks: [{ url: r.url, push_events: false, token: 'grp', ...flags }] }],
    },
  );
  return { r, fx };
}

describe('group hook member and subgroup events', () => {
  it('delivery: adding, changing and removing a group member sends Member Hook to the group’s hooks with member_events', async () => {
    const { r, fx } = await hooked({ member_events: true });
    const outsider = await body(await call(fx, 'GET', '/users?username=outsider', 'alice'));
    const id = outsider[0].id;
    expect(
      (await call(fx, 'POST', '/groups/acme/members', 'alice', { user_id: id, access_level: 10 })).status,
    ).toBe(201);
    await call(fx, 'PUT', `/groups/acme/members/${id}`, 'alice', { access_level: 30 });
    await call(fx, 'DELETE', `/groups/acme/members/${id}`, 'alice');
    await deliveries(fx.clock).settled();
    expect(r.received.map((x) => [x.headers['x-gitlab-event'], x.headers['x-gitlab-token']])).toEqual([
      ['Member Hook', 'grp'],
      ['Member Hook', 'grp'],
      ['Member Hook', 'grp'],
    ]);
    expect(r.received.map((x) => [x.body.event_name, x.body.group_access])).toEqual([
      ['user_add_to_group', 'Guest'],
      ['user_update_for_group', 'Developer'],
      ['user_remove_from_group', 'Developer'],
    ]);
    expect(r.received[0]!.body).toEqual({
      event_name: 'user_add_to_group',
      created_at: '2021-03-01T12:00:00Z',
      updated_at: '2021-03-01T12:00:00Z',
      group_name: 'Acme',
      group_path: 'acme',
      group_id: expect.any(Number),
      user_username: 'outsider',
      user_name: 'Otto Outsider',
      user_email: 'outsider@example.com',
      user_id: id,
      group_access: 'Guest',
      expires_at: null,
      group_plan: null,
    });
  });

  it('delivery: creating and deleting a subgroup sends Subgroup Hook to the parent’s hooks with subgroup_events', async () => {
    const { r, fx } = await hooked({ subgroup_events: true });
    const acme = await body(await call(fx, 'GET', '/groups/acme', 'alice'));
    const made = await call(fx, 'POST', '/groups', 'alice', {
      name: 'Tools',
      path: 'tools',
      parent_id: acme.id,
    });
    expect(made.status).toBe(201);
    const sub = await body(made);
    // The new subgroup's members are not the parent's concern: no Member Hook without member_events.
    expect((await call(fx, 'DELETE', `/groups/${sub.id}`, 'alice')).status).toBe(202);
    await deliveries(fx.clock).settled();
    expect(r.received.map((x) => x.headers['x-gitlab-event'])).toEqual(['Subgroup Hook', 'Subgroup Hook']);
    expect(r.received[0]!.body).toEqual({
      event_name: 'subgroup_create',
      created_at: '2021-03-01T12:00:00Z',
      updated_at: '2021-03-01T12:00:00Z',
      name: 'Tools',
      path: 'tools',
      full_path: 'acme/tools',
      group_id: sub.id,
      parent_group_id: acme.id,
      parent_name: 'Acme',
      parent_path: 'acme',
      parent_full_path: 'acme',
    });
    expect(r.received[1]!.body).toMatchObject({ event_name: 'subgroup_destroy', group_id: sub.id });
  });

  it('delivery: hooks without the flags, and the free tier, get no member or subgroup events', async () => {
    const off = await hooked({ issues_events: true });
    const acme = await body(await call(off.fx, 'GET', '/groups/acme', 'alice'));
    await call(off.fx, 'POST', '/groups', 'alice', { name: 'Tools', path: 'tools', parent_id: acme.id });
    await call(off.fx, 'POST', '/groups/acme/members', 'alice', { user_id: 5, access_level: 10 });
    await deliveries(off.fx.clock).settled();
    expect(off.r.received).toEqual([]);
    const free = await hooked({ member_events: true, subgroup_events: true }, 'free');
    await call(free.fx, 'POST', '/groups', 'alice', { name: 'Tools', path: 'tools', parent_id: acme.id });
    await call(free.fx, 'POST', '/groups/acme/members', 'alice', { user_id: 5, access_level: 10 });
    await deliveries(free.fx.clock).settled();
    expect(free.r.received).toEqual([]);
  });

  it('POST /groups/:id/hooks: subgroup_events is taken and shown; member_events is not a param of 13.12', async () => {
    const { fx } = await hooked({});
    const res = await call(fx, 'POST', '/groups/acme/hooks', 'alice', {
      url: 'https://example.com/g',
      subgroup_events: true,
      member_events: true,
    });
    expect(res.status).toBe(201);
    const h = await body(res);
    expect(h.subgroup_events).toBe(true);
    expect(h).not.toHaveProperty('member_events');
  });
});
