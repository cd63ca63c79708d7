import { describe, expect, it } from 'vitest';
import { json, newUser, scim, scimFx, type Fx } from './world.js';

const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

async function world(): Promise<Fx> {
  const fx = scimFx();
  for (let i = 1; i <= 3; i++)
    await scim(
      fx,
      'POST',
      'acme/Users',
      newUser({
        externalId: `u${i}`,
        userName: `user${i}`,
        emails: [{ type: 'work', value: `user${i}@corp.example` }],
      }),
    );
  return fx;
}

const ids = async (fx: Fx, query: string) =>
  (await json(await scim(fx, 'GET', `acme/Users${query}`))).Resources.map((r: { id: string }) => r.id);

const filter = (f: string) => `?filter=${encodeURIComponent(f)}`;

describe('SCIM: authentication and tiers', () => {
  it('SCIM: on the free tier the endpoint does not exist', async () => {
    const res = await scim(scimFx({ tier: 'free' }), 'GET', 'acme/Users');
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ error: '404 Not Found' });
  });

  it('SCIM: no token, or another group’s token, is the platform 401', async () => {
    const fx = scimFx();
    for (const token of [null, 'other-scim', 'root-api']) {
      const res = await scim(fx, 'GET', 'acme/Users', undefined, token);
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toBe('application/scim+json');
      expect(await json(res)).toEqual({ message: '401 Unauthorized' });
    }
    const byParam = await fx.app.request('/api/scim/v2/groups/acme/Users?access_token=acme-scim');
    expect(byParam.status).toBe(200);
  });

  it('SCIM: an unknown group, or one without SAML, is a SCIM 404', async () => {
    const fx = scimFx();
    expect(await json(await scim(fx, 'GET', 'nope/Users'))).toEqual({
      schemas: [ERROR],
      detail: 'Group nope not found',
      status: 404,
    });
    expect(await json(await scim(fx, 'GET', 'plain/Users'))).toEqual({
      schemas: [ERROR],
      detail: 'Group plain does not have SAML SSO configured',
      status: 404,
    });
  });

  it('SCIM: the group may be given by id, and the path may end in a slash', async () => {
    const fx = scimFx();
    const group = await json(
      await fx.app.request('/api/v4/groups/acme', { headers: { 'PRIVATE-TOKEN': 'root-api' } }),
    );
    expect((await scim(fx, 'GET', `${group.id}/Users`)).status).toBe(200);
    expect((await scim(fx, 'GET', 'acme/Users/')).status).toBe(200);
  });
});

describe('SCIM GET /Users', () => {
  it('SCIM: without a filter every identity, in a ListResponse', async () => {
    const fx = await world();
    const body = await json(await scim(fx, 'GET', 'acme/Users'));
    expect(body.totalResults).toBe(4);
    expect(body.itemsPerPage).toBe(20);
    expect(body.startIndex).toBe(1);
    expect(body.Resources.map((r: { id: string }) => r.id)).toEqual(['erin-uid', 'u1', 'u2', 'u3']);
  });

  it('SCIM: startIndex and count page the list; startIndex is echoed as given', async () => {
    const fx = await world();
    const body = await json(await scim(fx, 'GET', 'acme/Users?startIndex=2&count=2'));
    expect(body).toMatchObject({ totalResults: 4, itemsPerPage: 2, startIndex: '2' });
    expect(body.Resources.map((r: { id: string }) => r.id)).toEqual(['u1', 'u2']);
    expect(await ids(fx, '?startIndex=0&count=1')).toEqual(['erin-uid']);
    expect((await json(await scim(fx, 'GET', 'acme/Users?count=0'))).itemsPerPage).toBe(20);
    expect((await json(await scim(fx, 'GET', 'acme/Users?count=500'))).itemsPerPage).toBe(100);
  });

  it('SCIM: id and externalId filters match the extern uid, case-insensitively', async () => {
    const fx = await world();
    expect(await ids(fx, filter('id eq "u2"'))).toEqual(['u2']);
    expect(await ids(fx, filter('externalId eq U3'))).toEqual(['u3']);
    expect(await ids(fx, filter('externalId eq "none"'))).toEqual([]);
  });

  it('SCIM: userName tries the extern uid, then the username, the e-mail and its local part', async () => {
    const fx = await world();
    expect(await ids(fx, filter('userName eq "u1"'))).toEqual(['u1']);
    expect(await ids(fx, filter('userName eq "USER2"'))).toEqual(['u2']);
    expect(await ids(fx, filter('userName eq "erin@corp.example"'))).toEqual(['erin-uid']);
    expect(await ids(fx, filter('userName eq "user3@elsewhere.example"'))).toEqual(['u3']);
    expect(await ids(fx, filter('userName eq "dave"'))).toEqual([]);
  });

  it('SCIM: other filters are 412 Unsupported Filter', async () => {
    const fx = await world();
    for (const f of ['displayName eq "Jane"', 'userName co "user"', 'emails eq x']) {
      const res = await scim(fx, 'GET', `acme/Users${filter(f)}`);
      expect(res.status).toBe(412);
      expect(await json(res)).toEqual({ schemas: [ERROR], detail: 'Unsupported Filter', status: 412 });
    }
  });

  it('SCIM: a group whose SAML is disabled lists nobody', async () => {
    const body = await json(await scim(scimFx(), 'GET', 'off/Users', undefined, 'off-scim'));
    expect(body).toMatchObject({ totalResults: 0, Resources: [] });
  });
});
