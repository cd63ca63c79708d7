/**
 * Access requests (`lib/api/access_requests.rb`) of groups and projects: the requester is a pending
 * member row that grants nothing (`Member#request?`) until an approver accepts it at a level, and the
 * `request_access` rules of GroupPolicy and ProjectPolicy decide who may ask.
 */
import { describe, expect, it } from 'vitest';
import { tvalues } from '../../../src/core/table.js';
import { APP, pendingFx, send, U, type Fx } from './world.js';

const GAR = '/groups/pub/access_requests';
const PAR = `${APP}/access_requests`;
const usernames = (list: { username: string }[]) => list.map((m) => m.username);

async function disable(fx: Fx, path: string) {
  const out = await send(fx, 'PUT', path, 'root-api', { request_access_enabled: false });
  expect(out.status).toBe(200);
}

describe('POST and GET /:source/:id/access_requests', () => {
  it('a requester gets Entities::AccessRequester (201), listed by id to the source admins only', async () => {
    const fx = pendingFx();
    const made = await send(fx, 'POST', GAR, 'ann-api');
    expect(made.status).toBe(201);
    expect(Object.keys(made.body)).toEqual([
      'id',
      'name',
      'username',
      'state',
      'avatar_url',
      'web_url',
      'requested_at',
    ]);
    expect(made.body).toMatchObject({
      id: U.ann,
      username: 'ann',
      name: 'Ann Outsider',
      web_url: 'http://localhost/ann',
      requested_at: '2021-03-01T12:00:00.000Z',
    });
    fx.clock.advance(60_000);
    expect((await send(fx, 'POST', GAR, 'ben-api')).status).toBe(201);
    const list = await send(fx, 'GET', GAR, 'olga-api');
    expect(list.status).toBe(200);
    expect(usernames(list.body)).toEqual(['ann', 'ben']);
    expect(list.body[1].requested_at).toBe('2021-03-01T12:01:00.000Z');
    expect(list.res.headers.get('x-total')).toBe('2');
    // `AccessRequestsFinder#execute!`: admin_group (owners), else 403; anonymous is 401 first.
    expect(await send(fx, 'GET', GAR, 'dora-api')).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden' },
    });
    expect((await send(fx, 'GET', GAR, 'root-api')).status).toBe(200);
    expect(await send(fx, 'GET', GAR)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    // Projects: admin_project is the maintainers'; the group's developer is refused. An external user
    // may ask for a public project.
    expect((await send(fx, 'POST', PAR, 'ext-api')).status).toBe(201);
    expect(usernames((await send(fx, 'GET', PAR, 'mark-api')).body)).toEqual(['ext']);
    expect(usernames((await send(fx, 'GET', PAR, 'olga-api')).body)).toEqual(['ext']);
    expect((await send(fx, 'GET', PAR, 'dora-api')).status).toBe(403);
  });

  it('a pending request grants nothing: not a member, no member read, no private project', async () => {
    const fx = pendingFx();
    expect((await send(fx, 'POST', '/groups/intra/access_requests', 'ann-api')).status).toBe(201);
    expect(usernames((await send(fx, 'GET', '/groups/intra/members', 'olga-api')).body)).toEqual(['olga']);
    expect((await send(fx, 'GET', `/groups/intra/members/${U.ann}`, 'olga-api')).status).toBe(404);
    expect((await send(fx, 'GET', `/groups/intra/members/all/${U.ann}`, 'olga-api')).status).toBe(404);
    // A project made private inside the group stays hidden from the requester.
    await send(fx, 'PUT', '/projects/intra%2Ftool', 'root-api', { visibility: 'private' });
    expect(await send(fx, 'GET', '/projects/intra%2Ftool', 'ann-api')).toMatchObject({
      status: 404,
      body: { message: '404 Project Not Found' },
    });
    expect((await send(fx, 'GET', '/projects/intra%2Ftool', 'olga-api')).status).toBe(200);
  });

  it('request_access: refused to members, admins, a second request, where disabled; hidden is 404', async () => {
    const fx = pendingFx();
    const forbidden = { status: 403, body: { message: '403 Forbidden' } };
    // Members of the group (and, for its project, of the group above it) and admins may not ask.
    expect(await send(fx, 'POST', GAR, 'dora-api')).toMatchObject(forbidden);
    expect(await send(fx, 'POST', GAR, 'root-api')).toMatchObject(forbidden);
    expect(await send(fx, 'POST', PAR, 'dora-api')).toMatchObject(forbidden);
    expect(await send(fx, 'POST', PAR, 'mark-api')).toMatchObject(forbidden);
    expect(await send(fx, 'POST', PAR, 'root-api')).toMatchObject(forbidden);
    // The project's maintainer is no member of the group: they may ask for the group.
    expect((await send(fx, 'POST', GAR, 'mark-api')).status).toBe(201);
    // A second request fails the member model's uniqueness.
    expect(await send(fx, 'POST', GAR, 'mark-api')).toMatchObject({
      status: 400,
      body: { message: { user_id: ['already exists in source'] } },
    });
    // A requester of the project's group counts as its member (`project_group_member?`).
    expect((await send(fx, 'POST', GAR, 'ann-api')).status).toBe(201);
    expect(await send(fx, 'POST', PAR, 'ann-api')).toMatchObject(forbidden);
    // `request_access_enabled: false`.
    await disable(fx, '/groups/intra');
    expect(await send(fx, 'POST', '/groups/intra/access_requests', 'ben-api')).toMatchObject(forbidden);
    await disable(fx, '/projects/intra%2Ftool');
    expect(await send(fx, 'POST', '/projects/intra%2Ftool/access_requests', 'ben-api')).toMatchObject(
      forbidden,
    );
    // Hidden sources are the 404 of any other route; anonymous callers the 401 first.
    expect(await send(fx, 'POST', '/groups/priv/access_requests', 'ben-api')).toMatchObject({
      status: 404,
      body: { message: '404 Group Not Found' },
    });
    expect(await send(fx, 'POST', '/groups/intra/access_requests', 'ext-api')).toMatchObject({
      status: 404,
    });
    expect((await send(fx, 'POST', GAR)).status).toBe(401);
  });
});

describe('PUT /:source/:id/access_requests/:user_id/approve', () => {
  it('makes the requester a member at the level given (Developer by default): 201 Entities::Member', async () => {
    const fx = pendingFx();
    await send(fx, 'POST', GAR, 'ann-api');
    await send(fx, 'POST', PAR, 'ben-api');
    const approved = await send(fx, 'PUT', `${GAR}/${U.ann}/approve`, 'olga-api', { access_level: 20 });
    expect(approved.status).toBe(201);
    expect(approved.body).toMatchObject({ id: U.ann, username: 'ann', access_level: 20, expires_at: null });
    expect(Object.keys(approved.body)).toEqual([
      'id',
      'name',
      'username',
      'state',
      'avatar_url',
      'web_url',
      'access_level',
      'expires_at',
    ]);
    expect((await send(fx, 'GET', GAR, 'olga-api')).body).toEqual([]);
    expect((await send(fx, 'GET', `/groups/pub/members/${U.ann}`, 'olga-api')).body.access_level).toBe(20);
    // Through the group, the new member reaches its project.
    expect((await send(fx, 'GET', `${APP}/members/all/${U.ann}`, 'ann-api')).body.access_level).toBe(20);
    const dev = await send(fx, 'PUT', `${PAR}/${U.ben}/approve`, 'mark-api');
    expect(dev).toMatchObject({ status: 201, body: { username: 'ben', access_level: 30 } });
    expect((await send(fx, 'GET', `${APP}/members/${U.ben}`, 'ben-api')).body.access_level).toBe(30);
  });

  it('find_by! first (404), then update_*_member (403); a refused level saves nothing and answers 201', async () => {
    const fx = pendingFx();
    await send(fx, 'POST', PAR, 'ann-api');
    expect(await send(fx, 'PUT', `${PAR}/${U.ben}/approve`, 'dora-api')).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    });
    expect(await send(fx, 'PUT', `${PAR}/${U.ann}/approve`, 'dora-api')).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden' },
    });
    expect(await send(fx, 'PUT', `${PAR}/${U.ann}/approve`, 'ann-api')).toMatchObject({ status: 403 });
    expect(await send(fx, 'PUT', `${PAR}/x/approve`, 'mark-api')).toMatchObject({
      status: 400,
      body: { error: 'user_id is invalid' },
    });
    // Owner is no project level: `accept_request` fails its validation, the service presents the record.
    const refused = await send(fx, 'PUT', `${PAR}/${U.ann}/approve`, 'mark-api', { access_level: 50 });
    expect(refused).toMatchObject({ status: 201, body: { username: 'ann', access_level: 50 } });
    expect(usernames((await send(fx, 'GET', PAR, 'mark-api')).body)).toEqual(['ann']);
    expect((await send(fx, 'GET', `${APP}/members/${U.ann}`, 'mark-api')).status).toBe(404);
  });

  it('POST /members takes over a pending request (Member.add_user)', async () => {
    const fx = pendingFx();
    await send(fx, 'POST', GAR, 'ann-api');
    const added = await send(fx, 'POST', '/groups/pub/members', 'olga-api', {
      user_id: U.ann,
      access_level: 40,
    });
    expect(added.status).toBe(201);
    expect((await send(fx, 'GET', GAR, 'olga-api')).body).toEqual([]);
    expect((await send(fx, 'PUT', `${GAR}/${U.ann}/approve`, 'olga-api')).status).toBe(404);
  });
});

describe('DELETE /:source/:id/access_requests/:user_id', () => {
  it('the approvers deny, the requester withdraws (204); others are refused', async () => {
    const fx = pendingFx();
    await send(fx, 'POST', GAR, 'ann-api');
    await send(fx, 'POST', GAR, 'ben-api');
    expect((await send(fx, 'DELETE', `${GAR}/${U.ann}`, 'ben-api')).status).toBe(403);
    expect((await send(fx, 'DELETE', `${GAR}/${U.ann}`, 'dora-api')).status).toBe(403);
    expect((await send(fx, 'DELETE', `${GAR}/${U.ann}`, 'ann-api')).status).toBe(204);
    expect((await send(fx, 'DELETE', `${GAR}/${U.ben}`, 'olga-api')).status).toBe(204);
    expect(await send(fx, 'DELETE', `${GAR}/${U.ben}`, 'olga-api')).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    });
    expect((await send(fx, 'GET', GAR, 'olga-api')).body).toEqual([]);
    // Denied, the requester may ask again.
    expect((await send(fx, 'POST', GAR, 'ann-api')).status).toBe(201);
    const stale = await fx.app.request(`http://localhost/api/v4${GAR}/${U.ann}`, {
      method: 'DELETE',
      headers: { 'PRIVATE-TOKEN': 'olga-api', 'If-Unmodified-Since': 'Sun, 28 Feb 2021 00:00:00 GMT' },
    });
    expect(stale.status).toBe(412);
  });

  it('a deleted requester, project or group takes the requests along', async () => {
    const fx = pendingFx();
    await send(fx, 'POST', GAR, 'ann-api');
    await send(fx, 'POST', GAR, 'ben-api');
    await send(fx, 'POST', '/projects/intra%2Ftool/access_requests', 'ben-api');
    expect((await send(fx, 'DELETE', `/users/${U.ann}`, 'root-api')).status).toBe(204);
    expect(usernames((await send(fx, 'GET', GAR, 'olga-api')).body)).toEqual(['ben']);
    expect(tvalues(fx.state.access_requests.requests)).toHaveLength(2);
    await send(fx, 'DELETE', '/projects/intra%2Ftool', 'root-api');
    await send(fx, 'GET', '/projects', 'root-api');
    expect(tvalues(fx.state.access_requests.requests).map((r) => r.user_id)).toEqual([U.ben]);
  });
});
