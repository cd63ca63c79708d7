/**
 * The invitations API of 13.12 (`lib/api/invitations.rb`, `Members::InviteService`): POST invites e-mail
 * addresses (one or comma-separated) and always answers 201 with the service's status hash; GET lists the
 * pending invitations (`Entities::Invitation`) to whoever sees the source.
 */
import { describe, expect, it } from 'vitest';
import { tvalues } from '../../../src/core/table.js';
import { APP, pendingFx, send, U } from './world.js';

const GI = '/groups/pub/invitations';
const PI = `${APP}/invitations`;
const usernames = (list: { username: string }[]) => list.map((m) => m.username);

describe('POST /:source/:id/invitations', () => {
  it('new addresses become invitations, a user\'s address a membership: {"status":"success"}', async () => {
    const fx = pendingFx();
    const out = await send(fx, 'POST', GI, 'olga-api', {
      email: 'new@example.org,ANN@example.com',
      access_level: 20,
      expires_at: '2021-06-01',
    });
    expect(out.status).toBe(201);
    expect(out.body).toEqual({ status: 'success' });
    // `User.find_by_email` ignores case: Ann is a member at once.
    const ann = await send(fx, 'GET', `/groups/pub/members/${U.ann}`, 'olga-api');
    expect(ann.body).toMatchObject({ username: 'ann', access_level: 20, expires_at: '2021-06-01' });
    // The invitation is no member.
    expect(usernames((await send(fx, 'GET', '/groups/pub/members', 'olga-api')).body)).toEqual([
      'olga',
      'dora',
      'ann',
    ]);
    const list = await send(fx, 'GET', GI, 'olga-api');
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      {
        access_level: 20,
        created_at: '2021-03-01T12:00:00.000Z',
        expires_at: '2021-06-01',
        invite_email: 'new@example.org',
        invite_token: expect.stringMatching(/^[0-9a-f]{64}$/),
        created_by_name: 'Olga Owner',
      },
    ]);
    expect(list.res.headers.get('x-total')).toBe('1');
  });

  it('per-address errors keep the rest: members, invited (any case), requesters, model validations', async () => {
    const fx = pendingFx();
    await send(fx, 'POST', PI, 'mark-api', { email: 'first@example.org', access_level: 30 });
    await send(fx, 'POST', '/projects/intra%2Ftool/access_requests', 'ben-api');
    await send(fx, 'POST', `${APP}/access_requests`, 'ben-api');
    const out = await send(fx, 'POST', PI, 'mark-api', {
      email: 'mark@example.com,FIRST@example.org,ben@example.com,second@example.org',
      access_level: 30,
    });
    expect(out).toMatchObject({
      status: 201,
      body: {
        message: {
          'mark@example.com': 'Already a member of App',
          'FIRST@example.org': 'Member already invited to App',
          'ben@example.com': 'Member cannot be invited because they already requested to join App',
        },
        status: 'error',
      },
    });
    expect(Object.keys(out.body)).toEqual(['message', 'status']);
    // The address that had no error was invited all the same.
    const list = await send(fx, 'GET', PI, 'mark-api');
    expect(list.body.map((i: { invite_email: string }) => i.invite_email)).toEqual([
      'first@example.org',
      'second@example.org',
    ]);
    // Owner is no project level: for a user the message is under the address; for a new address, under
    // the whole `email` param as 13.12's `invite_new_member_and_user` files it.
    const owner = await send(fx, 'POST', PI, 'mark-api', {
      email: 'dora@example.com,third@example.org',
      access_level: 50,
      expires_at: '2020-01-01',
    });
    expect(owner.body).toEqual({
      message: {
        'dora@example.com':
          'Expires at cannot be a date in the past and Access level is not included in the list',
        'dora@example.com,third@example.org':
          'Expires at cannot be a date in the past and Access level is not included in the list',
      },
      status: 'error',
    });
    // A group's developer invited to its project lower than inherited.
    const lower = await send(fx, 'POST', PI, 'mark-api', { email: 'dora@example.com', access_level: 10 });
    expect(lower.body).toEqual({
      message: {
        'dora@example.com':
          'Access level should be greater than or equal to Developer inherited membership from group Public Group',
      },
      status: 'error',
    });
  });

  it("a personal project's owner is its member; in another case their membership stays as it is", async () => {
    const fx = pendingFx();
    const made = await send(fx, 'POST', '/projects', 'ann-api', { name: 'Mine' });
    expect(made.status).toBe(201);
    const path = `/projects/${made.body.id as number}/invitations`;
    expect(
      (await send(fx, 'POST', path, 'ann-api', { email: 'ann@example.com', access_level: 30 })).body,
    ).toEqual({
      message: { 'ann@example.com': 'Already a member of Mine' },
      status: 'error',
    });
    // `User.find_by_email` finds her, `Member.add_user` may not update the owner: nothing changes.
    expect(
      (await send(fx, 'POST', path, 'ann-api', { email: 'Ann@Example.com', access_level: 10 })).body,
    ).toEqual({
      status: 'success',
    });
    expect(
      (await send(fx, 'GET', `/projects/${made.body.id as number}/members`, 'ann-api')).body,
    ).toMatchObject([{ username: 'ann', access_level: 40 }]);
    expect(tvalues(fx.state.access_requests.invitations)).toEqual([]);
  });

  it("the service's single messages: blank e-mail, more than 100 addresses", async () => {
    const fx = pendingFx();
    expect(await send(fx, 'POST', GI, 'olga-api', { email: '', access_level: 30 })).toMatchObject({
      status: 201,
      body: { message: 'Email cannot be blank', status: 'error' },
    });
    const many = Array.from({ length: 101 }, (_, i) => `u${i}@example.org`).join(',');
    expect(await send(fx, 'POST', GI, 'olga-api', { email: many, access_level: 30 })).toMatchObject({
      status: 201,
      body: { message: 'Too many users specified (limit is 100)', status: 'error' },
    });
    expect((await send(fx, 'GET', GI, 'olga-api')).body).toEqual([]);
    // A repeated address counts once.
    const twice = Array.from({ length: 101 }, () => 'same@example.org').join(',');
    expect((await send(fx, 'POST', GI, 'olga-api', { email: twice, access_level: 30 })).body).toEqual({
      status: 'success',
    });
  });

  it("Grape's validations after authenticate!, then the source, then admin_group / admin_project", async () => {
    const fx = pendingFx();
    expect(await send(fx, 'POST', GI, undefined, { email: 'x' })).toMatchObject({ status: 401 });
    expect(await send(fx, 'POST', GI, 'olga-api', {})).toMatchObject({
      status: 400,
      body: { error: 'email is missing, access_level is missing' },
    });
    expect(
      await send(fx, 'POST', GI, 'olga-api', {
        email: 'ok@example.org, spaced@example.org',
        access_level: 3,
      }),
    ).toMatchObject({
      status: 400,
      body: { error: 'email contains an invalid email address, access_level does not have a valid value' },
    });
    for (const bad of ['nobody', 'a@localhost', 'a@@b.org', 'Name <a@b.org>', 'a@b.org,,c@d.org'])
      expect(await send(fx, 'POST', GI, 'olga-api', { email: bad, access_level: 30 })).toMatchObject({
        status: 400,
        body: { error: 'email contains an invalid email address' },
      });
    expect(
      await send(fx, 'POST', '/groups/priv/invitations', 'ann-api', { email: 'a@b.org', access_level: 30 }),
    ).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
    expect(await send(fx, 'POST', GI, 'dora-api', { email: 'a@b.org', access_level: 30 })).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden' },
    });
    expect(await send(fx, 'POST', PI, 'dora-api', { email: 'a@b.org', access_level: 30 })).toMatchObject({
      status: 403,
    });
    expect((await send(fx, 'POST', PI, 'olga-api', { email: 'a@b.org', access_level: 30 })).status).toBe(201);
    expect((await send(fx, 'GET', PI, 'olga-api')).body).toHaveLength(1);
  });
});

describe('GET /:source/:id/invitations', () => {
  it('to anyone who sees the source; query is an ILIKE term', async () => {
    const fx = pendingFx();
    await send(fx, 'POST', GI, 'olga-api', {
      email: 'alpha@example.org,beta@example.org,alpha_x@other.org',
      access_level: 30,
    });
    const emails = (body: { invite_email: string }[]) => body.map((i) => i.invite_email);
    // No ability is checked beyond seeing the group (13.12's `retrieve_member_invitations`).
    expect(emails((await send(fx, 'GET', GI, 'ann-api')).body)).toHaveLength(3);
    expect(emails((await send(fx, 'GET', `${GI}?query=ALPHA@example.org`, 'ann-api')).body)).toEqual([
      'alpha@example.org',
    ]);
    expect(emails((await send(fx, 'GET', `${GI}?query=%25example.org`, 'ann-api')).body)).toEqual([
      'alpha@example.org',
      'beta@example.org',
    ]);
    expect(emails((await send(fx, 'GET', `${GI}?query=alpha_%25`, 'ann-api')).body)).toEqual([
      'alpha@example.org',
      'alpha_x@other.org',
    ]);
    expect(emails((await send(fx, 'GET', `${GI}?query=alpha%5C_%25`, 'ann-api')).body)).toEqual([
      'alpha_x@other.org',
    ]);
    expect(emails((await send(fx, 'GET', `${GI}?query=%20`, 'ann-api')).body)).toHaveLength(3);
    const page = await send(fx, 'GET', `${GI}?per_page=2&page=2`, 'ann-api');
    expect(emails(page.body)).toEqual(['alpha_x@other.org']);
    expect(page.res.headers.get('x-total')).toBe('3');
    expect((await send(fx, 'GET', GI)).status).toBe(401);
    expect((await send(fx, 'GET', '/groups/priv/invitations', 'ann-api')).status).toBe(404);
  });

  it('an invitation outlives its inviter (created_by_name null) and goes with its project', async () => {
    const fx = pendingFx();
    await send(fx, 'POST', PI, 'mark-api', { email: 'gone@example.org', access_level: 30 });
    expect((await send(fx, 'DELETE', `/users/${U.mark}`, 'root-api')).status).toBe(204);
    expect((await send(fx, 'GET', PI, 'olga-api')).body[0]).toMatchObject({
      invite_email: 'gone@example.org',
      created_by_name: null,
    });
    expect(tvalues(fx.state.access_requests.invitations)).toHaveLength(1);
    expect((await send(fx, 'DELETE', APP, 'root-api')).status).toBe(202);
    await send(fx, 'GET', '/projects', 'root-api');
    expect(tvalues(fx.state.access_requests.invitations)).toEqual([]);
  });
});
