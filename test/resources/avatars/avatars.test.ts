/**
 * Avatars: uploaded with the user, group and project writes (multipart `avatar`), checked as
 * `Avatarable` checks them, and served at the `avatar_url` the entities show; `GET /avatar?email=`.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { json, tok } from '../helpers.js';

const world: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  users: [
    { username: 'root', admin: true, tokens: tok('root-api') },
    {
      username: 'alice',
      email: 'alice@example.com',
      public_email: 'alice@example.com',
      tokens: tok('alice-api'),
    },
  ],
  groups: [
    { path: 'acme', visibility: 'public', members: [{ username: 'alice', access_level: 'owner' }] },
    { path: 'hidden', visibility: 'private', members: [{ username: 'alice', access_level: 'owner' }] },
  ],
  projects: [{ path: 'acme/site', visibility: 'public' }],
};

const fx0 = () => createFauxlab({ scenario: world });
type Fx = ReturnType<typeof fx0>;

/** A tiny PNG (1x1). */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

async function upload(
  fx: Fx,
  method: string,
  path: string,
  token: string,
  file: File,
  fields: Record<string, string> = {},
) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  form.set('avatar', file);
  const res = await fx.app.request(`/api/v4${path}`, {
    method,
    headers: { 'PRIVATE-TOKEN': token },
    body: form,
  });
  return { status: res.status, body: await json(res) };
}

const png = (name = 'face.png', bytes: BlobPart = PNG) => new File([bytes], name, { type: 'image/png' });

async function fetchAvatar(fx: Fx, url: string, token?: string) {
  const res = await fx.app.request(new URL(url).pathname, {
    headers: token ? { 'PRIVATE-TOKEN': token } : {},
  });
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    bytes: Buffer.from(await res.arrayBuffer()),
  };
}

describe('avatar uploads', () => {
  it('PUT /users/:id: the avatar is stored and served at its avatar_url', async () => {
    const fx = fx0();
    const r = await upload(fx, 'PUT', '/users/2', 'root-api', png());
    expect(r.status).toBe(200);
    expect(r.body.avatar_url).toBe('http://localhost/uploads/-/system/user/avatar/2/face.png');
    const got = await fetchAvatar(fx, r.body.avatar_url);
    expect(got.status).toBe(200);
    expect(got.type).toBe('image/png');
    expect(got.bytes.equals(PNG)).toBe(true);
  });

  it('POST /groups: a group avatar is served to whoever may read the group', async () => {
    const fx = fx0();
    const pub = await upload(fx, 'PUT', '/groups/acme', 'alice-api', png('logo.gif'));
    expect(pub.status).toBe(200);
    expect((await fetchAvatar(fx, pub.body.avatar_url)).type).toBe('image/gif');
    const made = await upload(fx, 'POST', '/groups', 'alice-api', png('team.png'), {
      name: 'Team',
      path: 'team',
      visibility: 'private',
    });
    expect(made.status).toBe(201);
    expect((await fetchAvatar(fx, made.body.avatar_url, 'alice-api')).status).toBe(200);
    expect((await fetchAvatar(fx, made.body.avatar_url)).status).toBe(404);
  });

  it('PUT /projects/:id: a new avatar replaces the old one, whose URL stops serving', async () => {
    const fx = fx0();
    const first = await upload(fx, 'PUT', '/projects/acme%2Fsite', 'root-api', png('one.png'));
    expect(first.status).toBe(200);
    const second = await upload(fx, 'PUT', '/projects/acme%2Fsite', 'root-api', png('two.png'));
    expect(second.body.avatar_url).toMatch(/\/uploads\/-\/system\/project\/avatar\/1\/two\.png$/);
    expect((await fetchAvatar(fx, second.body.avatar_url)).status).toBe(200);
    expect((await fetchAvatar(fx, first.body.avatar_url)).status).toBe(404);
  });

  it('PUT /users/:id: 400 for an avatar of a type the uploader refuses, or too big', async () => {
    const fx = fx0();
    const before = fx.state;
    expect(await upload(fx, 'PUT', '/users/2', 'root-api', png('face.svg'))).toEqual({
      status: 400,
      body: {
        message: {
          avatar: [
            'file format is not supported. Please try one of the following supported formats: png, jpg, jpeg, gif, bmp, tiff, ico',
          ],
        },
      },
    });
    expect(
      await upload(fx, 'POST', '/projects', 'alice-api', png('big.png', new Uint8Array(205_000)), {
        name: 'x',
      }),
    ).toEqual({
      status: 400,
      body: { message: { avatar: ['is too big (should be at most 200 KB)'], limit_reached: [] } },
    });
    expect(fx.state).toBe(before);
  });
  it('PUT /users/:id: 400 for an avatar whose extension names an object property (constructor, __proto__)', async () => {
    const fx = fx0();
    const before = fx.state;
    for (const name of ['face.constructor', 'face.__proto__', 'face.toString']) {
      const r = await upload(fx, 'PUT', '/users/2', 'root-api', png(name));
      expect(r.status).toBe(400);
      expect(Object.keys(r.body.message)).toEqual(['avatar']);
    }
    expect(fx.state).toBe(before);
  });
});

describe('GET /avatar', () => {
  it('GET /avatar: the uploaded avatar of the user with that public email, else the Gravatar URL', async () => {
    const fx = fx0();
    await upload(fx, 'PUT', '/users/2', 'root-api', png());
    const own = await fx.app.request('/api/v4/avatar?email=alice@example.com');
    expect(await json(own)).toEqual({
      avatar_url: 'http://localhost/uploads/-/system/user/avatar/2/face.png',
    });
    const other = await fx.app.request('/api/v4/avatar?email=Someone@Example.com&size=32');
    const hash = createHash('md5').update('someone@example.com').digest('hex');
    expect(await json(other)).toEqual({
      avatar_url: `https://www.gravatar.com/avatar/${hash}?s=64&d=identicon`,
    });
    const missing = await fx.app.request('/api/v4/avatar');
    expect(missing.status).toBe(400);
    expect(await json(missing)).toEqual({ error: 'email is missing' });
  });
});
