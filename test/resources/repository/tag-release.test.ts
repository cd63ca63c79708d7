/**
 * A tag's release notes through the tags API (`POST`/`PUT /projects/:id/repository/tags/:tag_name/release`,
 * deprecated in 11.7, served by 13.12): `Entities::TagRelease`, the release the releases API shows, and
 * the order of the platform's refusals (download_code, params, the release abilities, the tag).
 */
import { describe, expect, it } from 'vitest';
import { APP, call, SITE, world } from './world.js';

const TAGS = `${APP}/repository/tags`;

async function tagged(name = 'v1.0') {
  const fx = world();
  const made = await call(fx, 'POST', TAGS, 'owner', { tag_name: name, ref: 'master' });
  expect(made.status).toBe(201);
  return fx;
}

describe('POST /projects/:id/repository/tags/:tag_name/release', () => {
  it('adds the release of an existing tag: 201 {tag_name, description}, seen by the tags and releases APIs', async () => {
    const fx = await tagged();
    const out = await call(fx, 'POST', `${TAGS}/v1.0/release`, 'dev', { description: 'First *release*' });
    expect(out).toMatchObject({ status: 201, body: { tag_name: 'v1.0', description: 'First *release*' } });
    expect(Object.keys(out.body)).toEqual(['tag_name', 'description']);
    expect((await call(fx, 'GET', `${TAGS}/v1.0`, 'rep')).body.release).toEqual({
      tag_name: 'v1.0',
      description: 'First *release*',
    });
    const rel = await call(fx, 'GET', `${APP}/releases/v1.0`, 'rep');
    expect(rel).toMatchObject({
      status: 200,
      body: { tag_name: 'v1.0', name: 'v1.0', description: 'First *release*', author: { username: 'dev' } },
    });
    // A second one: `Releases::CreateService`'s 409.
    expect(await call(fx, 'POST', `${TAGS}/v1.0/release`, 'dev', { description: 'Again' })).toMatchObject({
      status: 409,
      body: { message: 'Release already exists' },
    });
  });

  it('refusals in order: download_code, params, create_release, the tag, the release model', async () => {
    const fx = await tagged();
    expect(await call(fx, 'POST', `${TAGS}/v1.0/release`, 'outsider', {})).toMatchObject({
      status: 404,
      body: { message: '404 Project Not Found' },
    });
    expect(await call(fx, 'POST', `${TAGS}/v1.0/release`, 'guest', {})).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden' },
    });
    expect(await call(fx, 'POST', `${TAGS}/v1.0/release`, 'rep', {})).toMatchObject({
      status: 400,
      body: { error: 'description is missing' },
    });
    expect(await call(fx, 'POST', `${TAGS}/v1.0/release`, 'rep', { description: 'x' })).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden' },
    });
    // The legacy route makes no tag.
    expect(await call(fx, 'POST', `${TAGS}/v9/release`, 'dev', { description: 'x' })).toMatchObject({
      status: 404,
      body: { message: '404 Tag Not Found' },
    });
    expect(await call(fx, 'POST', `${TAGS}/v1.0/release`, 'dev', { description: ' ' })).toMatchObject({
      status: 400,
      body: { message: "Validation failed: Description can't be blank" },
    });
    expect((await call(fx, 'GET', `${APP}/releases`, 'dev')).body).toEqual([]);
  });
});

describe('PUT /projects/:id/repository/tags/:tag_name/release', () => {
  it("changes the release's description; a tag without a release is a 403 for everybody", async () => {
    const fx = await tagged('v2/rc');
    const path = `${TAGS}/v2%2Frc/release`;
    expect(await call(fx, 'PUT', path, 'root', { description: 'x' })).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden' },
    });
    await call(fx, 'POST', path, 'dev', { description: 'Before' });
    fx.clock.advance(60_000);
    expect(await call(fx, 'PUT', path, 'rep', { description: 'x' })).toMatchObject({ status: 403 });
    expect(await call(fx, 'PUT', path, 'maint', {})).toMatchObject({
      status: 400,
      body: { error: 'description is missing' },
    });
    expect(await call(fx, 'PUT', path, 'maint', { description: '' })).toMatchObject({
      status: 400,
      body: { message: { description: ["can't be blank"] } },
    });
    const out = await call(fx, 'PUT', path, 'maint', { description: 'After' });
    expect(out).toMatchObject({ status: 200, body: { tag_name: 'v2/rc', description: 'After' } });
    const rel = (await call(fx, 'GET', `${APP}/releases/v2%2Frc`, 'dev')).body;
    expect(rel).toMatchObject({ description: 'After', author: { username: 'dev' } });
    // An anonymous write is the 401 of the other tags writes.
    expect(
      await call(fx, 'PUT', `${SITE}/repository/tags/v1/release`, undefined, { description: 'x' }),
    ).toMatchObject({
      status: 401,
    });
  });
});
