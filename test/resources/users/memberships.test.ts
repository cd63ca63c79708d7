import { describe, expect, it } from 'vitest';
import { send, usersFx } from './world.js';

/** Alice (id 2) owns `acme` and `shared`; projects are added to her below. */
const ALICE = 2;

describe('GET /users/:user_id/memberships', () => {
  it("lists a user's group and project memberships in the order they were made", async () => {
    const fx = usersFx();
    const add = await send(fx, 'POST', '/projects/bob%2Fnotes/members', 'root-api', {
      user_id: ALICE,
      access_level: 30,
    });
    expect(add.res.status).toBe(201);
    const { res, body } = await send(fx, 'GET', `/users/${ALICE}/memberships`, 'root-api');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total')).toBe('3');
    const acme = (await send(fx, 'GET', '/groups/acme', 'root-api')).body.id;
    const notes = (await send(fx, 'GET', '/projects/bob%2Fnotes', 'root-api')).body.id;
    expect(body[0]).toEqual({
      source_id: acme,
      source_name: 'acme',
      source_type: 'Namespace',
      access_level: 50,
    });
    expect(body.map((m: { source_type: string }) => m.source_type)).toEqual([
      'Namespace',
      'Namespace',
      'Project',
    ]);
    expect(body[2]).toEqual({
      source_id: notes,
      source_name: 'notes',
      source_type: 'Project',
      access_level: 30,
    });
  });

  it('type=Project and type=Namespace filter; another type is a 400', async () => {
    const fx = usersFx();
    await send(fx, 'POST', '/projects/bob%2Fnotes/members', 'root-api', { user_id: ALICE, access_level: 30 });
    const projects = await send(fx, 'GET', `/users/${ALICE}/memberships?type=Project`, 'root-api');
    expect(projects.body.map((m: { source_name: string }) => m.source_name)).toEqual(['notes']);
    const groups = await send(fx, 'GET', `/users/${ALICE}/memberships?type=Namespace`, 'root-api');
    expect(groups.body.map((m: { source_name: string }) => m.source_name)).toEqual(['acme', 'shared']);
    const bad = await send(fx, 'GET', `/users/${ALICE}/memberships?type=Group`, 'root-api');
    expect([bad.res.status, bad.body]).toEqual([400, { error: 'type does not have a valid value' }]);
  });

  it('paginates', async () => {
    const fx = usersFx();
    const page = await send(fx, 'GET', `/users/${ALICE}/memberships?per_page=1&page=2`, 'root-api');
    expect(page.body).toHaveLength(1);
    expect(page.body[0].source_name).toBe('shared');
    expect(page.res.headers.get('x-total-pages')).toBe('2');
  });

  it('params first, then admins only, then the user', async () => {
    const fx = usersFx();
    const bad = await send(fx, 'GET', '/users/alice/memberships', 'alice-api');
    expect([bad.res.status, bad.body]).toEqual([400, { error: 'user_id is invalid' }]);
    expect((await send(fx, 'GET', `/users/${ALICE}/memberships`)).res.status).toBe(401);
    expect((await send(fx, 'GET', `/users/${ALICE}/memberships`, 'alice-api')).res.status).toBe(403);
    const none = await send(fx, 'GET', '/users/999/memberships', 'root-api');
    expect([none.res.status, none.body]).toEqual([404, { message: '404 User Not Found' }]);
  });
});
