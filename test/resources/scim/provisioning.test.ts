import { describe, expect, it } from 'vitest';
import { json, newUser, patch, scim, scimFx, type Fx } from './world.js';

const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** An impersonation token for a user, so that the test can see what the user can see. */
async function tokenFor(fx: Fx, userId: number): Promise<string> {
  const res = await fx.app.request(`/api/v4/users/${userId}/impersonation_tokens`, {
    method: 'POST',
    headers: { 'PRIVATE-TOKEN': 'root-api', 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'probe', scopes: ['api'] }),
  });
  return (await json(res)).token;
}

const projectStatus = async (fx: Fx, token: string) =>
  (await fx.app.request('/api/v4/projects/acme%2Fsecret', { headers: { 'PRIVATE-TOKEN': token } })).status;

describe('SCIM provisioning flow', () => {
  it('SCIM: create, find by userName, deactivate by PATCH: the user loses the private project', async () => {
    const fx = scimFx();
    const created = await scim(fx, 'POST', 'acme/Users', newUser());
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toBe('application/scim+json');
    expect(await json(created)).toEqual({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      id: 'jane-uid',
      active: true,
      emails: [{ type: 'work', value: 'jane.doe@corp.example', primary: true }],
      name: { formatted: 'Jane Doe', givenName: 'Jane', familyName: 'Doe' },
      meta: { resourceType: 'User' },
      userName: 'jane.doe',
    });

    const found = await scim(fx, 'GET', `acme/Users?filter=${encodeURIComponent('userName eq "jane.doe"')}`);
    expect(found.status).toBe(200);
    expect(await json(found)).toEqual({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: 1,
      itemsPerPage: 20,
      startIndex: 1,
      Resources: [await json(await scim(fx, 'GET', 'acme/Users/jane-uid'))],
    });

    // The new user is a guest of the group and sees its private project.
    const jane = await json(
      await fx.app.request('/api/v4/users?username=jane.doe', { headers: { 'PRIVATE-TOKEN': 'root-api' } }),
    );
    expect(jane[0].identities).toEqual([
      { provider: 'group_saml', extern_uid: 'jane-uid', saml_provider_id: 1 },
    ]);
    const token = await tokenFor(fx, jane[0].id);
    expect(await projectStatus(fx, token)).toBe(200);

    const off = await scim(
      fx,
      'PATCH',
      'acme/Users/jane-uid',
      patch({ op: 'Replace', path: 'active', value: 'False' }),
    );
    expect(off.status).toBe(204);
    expect(await off.text()).toBe('');
    expect(await projectStatus(fx, token)).toBe(404);
    expect((await json(await scim(fx, 'GET', 'acme/Users/jane-uid'))).active).toBe(false);
    const admin = await json(
      await fx.app.request(`/api/v4/users/${jane[0].id}`, { headers: { 'PRIVATE-TOKEN': 'root-api' } }),
    );
    expect(admin.identities).toEqual([]);

    // active=True provisions the user again.
    const on = await scim(
      fx,
      'PATCH',
      'acme/Users/jane-uid',
      patch({ op: 'Replace', path: 'active', value: 'True' }),
    );
    expect(on.status).toBe(204);
    expect(await projectStatus(fx, token)).toBe(200);
  });

  it('SCIM: DELETE deprovisions (204): the membership goes', async () => {
    const fx = scimFx();
    const erin = await tokenFor(fx, 4);
    expect(await projectStatus(fx, erin)).toBe(200);
    const res = await scim(fx, 'DELETE', 'acme/Users/erin-uid');
    expect(res.status).toBe(204);
    expect(await projectStatus(fx, erin)).toBe(404);
  });

  it('SCIM: POST again with the same externalId is answered with the existing user (201)', async () => {
    const fx = scimFx();
    await scim(fx, 'POST', 'acme/Users', newUser());
    const again = await scim(fx, 'POST', 'acme/Users', newUser());
    expect(again.status).toBe(201);
    expect((await json(again)).userName).toBe('jane.doe');
    expect((await json(await scim(fx, 'GET', 'acme/Users'))).totalResults).toBe(2);
  });

  it('SCIM: POST for an existing e-mail links that user and makes them a member with the default role', async () => {
    const fx = scimFx();
    const res = await scim(
      fx,
      'POST',
      'other/Users',
      newUser({
        externalId: 'dave-1',
        userName: 'dlister',
        emails: [{ primary: true, value: 'DAVE@corp.example' }],
      }),
      'other-scim',
    );
    expect(res.status).toBe(201);
    expect(await json(res)).toMatchObject({
      id: 'dave-1',
      userName: 'dave',
      name: { formatted: 'Dave Lister' },
    });
    const members = await fx.app.request('/api/v4/groups/other/members/3', {
      headers: { 'PRIVATE-TOKEN': 'root-api' },
    });
    expect((await json(members)).access_level).toBe(30);
  });

  it('SCIM: a username already taken is made unique', async () => {
    const fx = scimFx();
    const res = await scim(
      fx,
      'POST',
      'acme/Users',
      newUser({ userName: 'alice', emails: [{ type: 'work', value: 'a2@corp.example' }] }),
    );
    expect((await json(res)).userName).toBe('alice1');
  });

  it('SCIM: POST without an e-mail is 412 with the params in the detail', async () => {
    const fx = scimFx();
    const res = await scim(fx, 'POST', 'acme/Users', { externalId: 'x1', userName: 'x' });
    expect(res.status).toBe(412);
    expect(await json(res)).toEqual({
      schemas: [ERROR],
      detail:
        'Error saving user with {"externalId"=>"x1", "userName"=>"x", "group"=>"acme"}: Missing params: [:email]',
      status: 412,
    });
  });

  it('SCIM: POST for a user who already has another identity in the group is a conflict (409)', async () => {
    const fx = scimFx();
    const res = await scim(fx, 'POST', 'acme/Users', {
      externalId: 'erin-2',
      userName: 'erin',
      emails: [{ type: 'work', value: 'erin@corp.example' }],
    });
    expect(res.status).toBe(409);
    expect(await json(res)).toEqual({
      schemas: [ERROR],
      detail:
        'Error saving user with {"externalId"=>"erin-2", "userName"=>"erin", "emails"=>[{"type"=>"work", "value"=>"erin@corp.example"}], "group"=>"acme"}: User has already been taken',
      status: 409,
    });
  });

  it('SCIM: POST with an invalid e-mail is 412 with the model errors', async () => {
    const fx = scimFx();
    const res = await scim(
      fx,
      'POST',
      'acme/Users',
      newUser({ emails: [{ type: 'work', value: 'not an email' }], name: { givenName: '' } }),
    );
    expect(res.status).toBe(412);
    expect((await json(res)).detail).toMatch(/: Email is invalid and Name can't be blank$/);
  });
});

describe('SCIM PATCH', () => {
  it('SCIM: PATCH replaces the name and the username', async () => {
    const fx = scimFx();
    const res = await scim(
      fx,
      'PATCH',
      'acme/Users/erin-uid',
      patch(
        { op: 'Replace', path: 'name.formatted', value: 'Erin Kelly' },
        { op: 'Add', path: 'userName', value: 'ekelly' },
      ),
    );
    expect(res.status).toBe(204);
    expect(await json(await scim(fx, 'GET', 'acme/Users/erin-uid'))).toMatchObject({
      name: { formatted: 'Erin Kelly', givenName: 'Erin', familyName: 'Kelly' },
      userName: 'ekelly',
    });
  });

  it('SCIM: PATCH of the externalId moves the identity', async () => {
    const fx = scimFx();
    expect(
      (
        await scim(
          fx,
          'PATCH',
          'acme/Users/erin-uid',
          patch({ op: 'Replace', path: 'externalId', value: 'erin-2' }),
        )
      ).status,
    ).toBe(204);
    expect((await scim(fx, 'GET', 'acme/Users/erin-uid')).status).toBe(404);
    expect((await json(await scim(fx, 'GET', 'acme/Users/ERIN-2'))).id).toBe('erin-2');
  });

  it('SCIM: PATCH to an e-mail another user has is 409', async () => {
    const fx = scimFx();
    const res = await scim(
      fx,
      'PATCH',
      'acme/Users/erin-uid',
      patch({ op: 'Replace', path: 'emails[type eq "work"].value', value: 'dave@corp.example' }),
    );
    expect(res.status).toBe(409);
    expect(await json(res)).toEqual({
      schemas: [ERROR],
      detail: 'Email has already been taken',
      status: 409,
    });
  });

  it('SCIM: PATCH that does not validate is 412 naming the user and the params', async () => {
    const fx = scimFx();
    const body = patch({ op: 'Replace', path: 'userName', value: 'alice' });
    const res = await scim(fx, 'PATCH', 'acme/Users/erin-uid', body);
    expect(res.status).toBe(412);
    expect((await json(res)).detail).toBe(
      'Error updating Erin Hannon with {"schemas"=>["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations"=>[{"op"=>"Replace", "path"=>"userName", "value"=>"alice"}], "group"=>"acme", "id"=>"erin-uid"}',
    );
  });

  it('SCIM: PATCH operations other than Replace and Add (or lower-case) are ignored', async () => {
    const fx = scimFx();
    const res = await scim(
      fx,
      'PATCH',
      'acme/Users/erin-uid',
      patch({ op: 'replace', path: 'active', value: false }),
    );
    expect(res.status).toBe(204);
    expect((await json(await scim(fx, 'GET', 'acme/Users/erin-uid'))).active).toBe(true);
  });

  it('SCIM: PATCH without Operations crashes as the platform does (500)', async () => {
    const res = await scim(scimFx({ logger: () => {} }), 'PATCH', 'acme/Users/erin-uid', { schemas: [] });
    expect(res.status).toBe(500);
    expect(await json(res)).toEqual({ message: '500 Internal Server Error' });
  });

  it('SCIM: PATCH and DELETE of an unknown id are 404', async () => {
    const fx = scimFx();
    for (const method of ['PATCH', 'DELETE', 'GET']) {
      const res = await scim(fx, method, 'acme/Users/nobody', method === 'PATCH' ? patch() : undefined);
      expect(res.status).toBe(404);
      expect(await json(res)).toEqual({ schemas: [ERROR], detail: 'Resource nobody not found', status: 404 });
    }
  });
});
