import { describe, expect, it } from 'vitest';
import { json, oauthFx, tokenRequest, type Fx } from './world.js';

const post = (fx: Fx, body: Record<string, unknown>, token = 'root-api') =>
  fx.app.request('/api/v4/applications', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token ? { 'PRIVATE-TOKEN': token } : {}) },
    body: JSON.stringify(body),
  });

const APP = { name: 'CI bot', redirect_uri: 'https://ci.example/cb', scopes: 'api read_user' };

describe('POST /applications', () => {
  it('POST /applications: 201 with the Application ID and the secret, shown this once', async () => {
    const fx = oauthFx();
    const res = await post(fx, APP);
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(Object.keys(body)).toEqual([
      'id',
      'application_id',
      'application_name',
      'callback_url',
      'confidential',
      'secret',
    ]);
    expect(body).toMatchObject({
      id: 5,
      application_name: 'CI bot',
      callback_url: 'https://ci.example/cb',
      confidential: true,
    });
    expect(body.application_id).toMatch(/^[0-9a-f]{64}$/);
    expect(body.secret).toMatch(/^[0-9a-f]{64}$/);
    // The new application works at once.
    const token = await tokenRequest(fx, {
      grant_type: 'password',
      username: 'alice',
      password: 'alicepass123',
      client_id: body.application_id,
      client_secret: body.secret,
      scope: 'read_user',
    });
    expect(token.status).toBe(200);
  });

  it('POST /applications: confidential=false makes a public client', async () => {
    const body = await json(await post(oauthFx(), { ...APP, confidential: false }));
    expect(body.confidential).toBe(false);
  });

  it('POST /applications: anonymous 401 and non-admin 403 come before params are checked', async () => {
    const fx = oauthFx();
    const anon = await post(fx, {}, '');
    expect(anon.status).toBe(401);
    expect(await json(anon)).toEqual({ message: '401 Unauthorized' });
    const alice = await post(fx, {}, 'alice-api');
    expect(alice.status).toBe(403);
    expect(await json(alice)).toEqual({ message: '403 Forbidden' });
  });

  it('POST /applications: missing params', async () => {
    const res = await post(oauthFx(), {});
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({ error: 'name is missing, redirect_uri is missing, scopes is missing' });
  });

  it('POST /applications: Doorkeeper validations', async () => {
    const fx = oauthFx();
    const relative = await post(fx, { ...APP, redirect_uri: '/callback' });
    expect(relative.status).toBe(400);
    expect(await json(relative)).toEqual({ message: { redirect_uri: ['must be an absolute URI.'] } });
    const fragment = await post(fx, {
      ...APP,
      name: '',
      redirect_uri: 'https://a.example/cb#x',
      scopes: 'api nope',
    });
    expect(await json(fragment)).toEqual({
      message: {
        name: ["can't be blank"],
        redirect_uri: ['cannot contain a fragment.'],
        scopes: ["doesn't match configured on the server."],
      },
    });
    const js = await post(fx, { ...APP, redirect_uri: 'javascript:alert(1)' });
    expect(await json(js)).toEqual({
      message: { redirect_uri: ['is forbidden by the server.', 'must specify a scheme.'] },
    });
    const blank = await post(fx, { ...APP, redirect_uri: '' });
    expect(await json(blank)).toEqual({ message: { redirect_uri: ["can't be blank"] } });
  });
});

describe('GET /applications', () => {
  it('GET /applications: instance-wide applications, without their secrets', async () => {
    const res = await oauthFx().app.request('/api/v4/applications', {
      headers: { 'PRIVATE-TOKEN': 'root-api' },
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual([
      {
        id: 1,
        application_id: 'app-uid',
        application_name: 'Test App',
        callback_url: 'http://127.0.0.1:9000/callback\nhttps://example.com/cb?tenant=1',
        confidential: true,
      },
      {
        id: 2,
        application_id: 'trusted-uid',
        application_name: 'Trusted App',
        callback_url: 'https://trusted.example/cb',
        confidential: true,
      },
      {
        id: 3,
        application_id: 'spa-uid',
        application_name: 'Reader SPA',
        callback_url: 'https://spa.example/cb',
        confidential: false,
      },
    ]);
  });

  it('GET /applications: paginated, with the pagination headers every array answer carries', async () => {
    const res = await oauthFx().app.request('/api/v4/applications?per_page=2&page=2', {
      headers: { 'PRIVATE-TOKEN': 'root-api' },
    });
    expect((await json(res)).map((a: any) => a.id)).toEqual([3]);
    expect([res.headers.get('X-Total'), res.headers.get('X-Page'), res.headers.get('X-Prev-Page')]).toEqual([
      '3',
      '2',
      '1',
    ]);
    expect(res.headers.get('Link')).toContain('rel="first"');
  });

  it('GET /applications: admins only', async () => {
    const res = await oauthFx().app.request('/api/v4/applications', {
      headers: { 'PRIVATE-TOKEN': 'alice-api' },
    });
    expect(res.status).toBe(403);
  });
});

describe('DELETE /applications/:id', () => {
  it('DELETE /applications/:id: 204, and the tokens issued to it stop working', async () => {
    const fx = oauthFx();
    const t = await json(
      await tokenRequest(fx, {
        grant_type: 'password',
        username: 'alice',
        password: 'alicepass123',
        client_id: 'app-uid',
        client_secret: 'app-secret',
      }),
    );
    const res = await fx.app.request('/api/v4/applications/1', {
      method: 'DELETE',
      headers: { 'PRIVATE-TOKEN': 'root-api' },
    });
    expect(res.status).toBe(204);
    expect((await fx.app.request(`/api/v4/user?access_token=${t.access_token}`)).status).toBe(401);
    const gone = await tokenRequest(fx, {
      grant_type: 'client_credentials',
      client_id: 'app-uid',
      client_secret: 'app-secret',
    });
    expect(gone.status).toBe(401);
  });

  it('DELETE /applications/:id: an unknown id is 404, a non-integer 400', async () => {
    const fx = oauthFx();
    const missing = await fx.app.request('/api/v4/applications/99', {
      method: 'DELETE',
      headers: { 'PRIVATE-TOKEN': 'root-api' },
    });
    expect(missing.status).toBe(404);
    expect(await json(missing)).toEqual({ message: '404 Application Not Found' });
    const bad = await fx.app.request('/api/v4/applications/abc', {
      method: 'DELETE',
      headers: { 'PRIVATE-TOKEN': 'root-api' },
    });
    expect(bad.status).toBe(400);
    expect(await json(bad)).toEqual({ error: 'id is invalid' });
  });
});
