import { describe, expect, it } from 'vitest';
import { environmentSlug, guessTier } from '../../../src/resources/environments/model.js';
import { APP, NOW, body, call, world } from '../ci/world.js';

async function newEnv(fx: ReturnType<typeof world>, name: string, extra: Record<string, unknown> = {}) {
  const res = await call(fx, 'POST', `${APP}/environments`, 'dev', { name, ...extra });
  expect(res.status).toBe(201);
  return body(res);
}

describe('environments', () => {
  it('POST /projects/:id/environments: 201 with the slug, tier, project and state', async () => {
    const fx = world();
    const e = await newEnv(fx, 'production', { external_url: 'https://app.example.com' });
    expect(Object.keys(e)).toEqual(['id', 'name', 'slug', 'external_url', 'tier', 'project', 'state']);
    expect(e).toMatchObject({
      id: 1,
      name: 'production',
      slug: 'production',
      external_url: 'https://app.example.com',
      tier: 'production',
      state: 'available',
      project: { id: 1, path_with_namespace: 'acme/app' },
    });
    expect(e.project.permissions).toBeUndefined();
  });

  it('environment slugs: a name that is not its own slug is cut to 17 characters and gets a hash suffix', () => {
    expect(environmentSlug('staging')).toBe('staging');
    expect(environmentSlug('review/feature-login')).toMatch(/^review-feature-lo-[a-z0-9]{6}$/);
    expect(environmentSlug('Production')).toMatch(/^production-[a-z0-9]{6}$/);
    expect(environmentSlug('1st')).toMatch(/^env-1st-[a-z0-9]{6}$/);
    // The suffix depends on the name only.
    expect(environmentSlug('review/feature-login')).toBe(environmentSlug('review/feature-login'));
    expect(environmentSlug('Production')).not.toBe(environmentSlug('PRODUCTION'));
  });

  it('environment tiers: guessed from words in the name', () => {
    expect(['review/x', 'qa', 'pre-prod', 'prod', 'customer-portal'].map(guessTier)).toEqual([
      'development',
      'testing',
      'staging',
      'production',
      'other',
    ]);
  });

  it("POST /projects/:id/environments: the model's errors, and a slug is refused", async () => {
    const fx = world();
    await newEnv(fx, 'staging');
    const taken = await call(fx, 'POST', `${APP}/environments`, 'dev', {
      name: 'staging',
      external_url: 'ftp://x',
    });
    expect([taken.status, await body(taken)]).toEqual([
      400,
      {
        message: {
          name: ['has already been taken'],
          external_url: ['is blocked: Only allowed schemes are http, https'],
        },
      },
    ]);
    const slash = await call(fx, 'POST', `${APP}/environments`, 'dev', { name: '/x' });
    expect((await body(slash)).message.name).toEqual([
      "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'",
    ]);
    const slug = await call(fx, 'POST', `${APP}/environments`, 'dev', { name: 'x', slug: 'x' });
    expect([slug.status, await body(slug)]).toEqual([
      400,
      { error: 'slug is automatically generated and cannot be changed' },
    ]);
    expect(fx.state.environments.records.size).toBe(1);
  });

  it('GET /projects/:id/environments: anonymous 401 before params, reporters read, guests 403', async () => {
    const fx = world();
    await newEnv(fx, 'staging');
    const anon = await call(fx, 'GET', `${APP}/environments?page=x`);
    expect([anon.status, await body(anon)]).toEqual([401, { message: '401 Unauthorized' }]);
    expect((await call(fx, 'GET', `${APP}/environments`, 'rep')).status).toBe(200);
    expect((await call(fx, 'GET', `${APP}/environments`, 'guest')).status).toBe(403);
    expect((await call(fx, 'GET', `${APP}/environments`, 'outsider')).status).toBe(404);
    const both = await call(fx, 'GET', `${APP}/environments?name=a&search=b`, 'rep');
    expect([both.status, await body(both)]).toEqual([400, { error: 'name, search cannot be used together' }]);
  });

  it('GET /projects/:id/environments: name matches whole, search the beginning in any case, states', async () => {
    const fx = world();
    await newEnv(fx, 'review/one');
    await newEnv(fx, 'Review/two');
    const prod = await newEnv(fx, 'production');
    await call(fx, 'POST', `${APP}/environments/${prod.id}/stop`, 'dev');
    const names = async (q: string) =>
      (await body(await call(fx, 'GET', `${APP}/environments?${q}`, 'rep'))).map((e: any) => e.name);
    expect(await names('search=review')).toEqual(['review/one', 'Review/two']);
    expect(await names('name=review/one')).toEqual(['review/one']);
    expect(await names('search=view')).toEqual([]);
    expect(await names('states=stopped')).toEqual(['production']);
    const res = await call(fx, 'GET', `${APP}/environments?per_page=1`, 'rep');
    expect(res.headers.get('X-Total')).toBe('3');
  });

  it('GET /projects/:id/environments/:environment_id: no project, a null last deployment', async () => {
    const fx = world();
    const e = await newEnv(fx, 'staging');
    const res = await call(fx, 'GET', `${APP}/environments/${e.id}`, 'rep');
    expect(await body(res)).toEqual({
      id: e.id,
      name: 'staging',
      slug: 'staging',
      external_url: null,
      tier: 'staging',
      last_deployment: null,
      state: 'available',
    });
    const missing = await call(fx, 'GET', `${APP}/environments/99`, 'rep');
    expect([missing.status, await body(missing)]).toEqual([404, { message: '404 Not found' }]);
  });

  it('PUT /projects/:id/environments/:environment_id: renames keep the slug; a blank URL clears it', async () => {
    const fx = world();
    const e = await newEnv(fx, 'staging', { external_url: 'https://s.example.com' });
    fx.clock.advance(60_000);
    const res = await call(fx, 'PUT', `${APP}/environments/${e.id}`, 'dev', {
      name: 'stage-2',
      external_url: '',
    });
    expect(res.status).toBe(200);
    expect(await body(res)).toMatchObject({ name: 'stage-2', slug: 'staging', external_url: null });
    expect((await call(fx, 'PUT', `${APP}/environments/${e.id}`, 'rep', { name: 'x' })).status).toBe(403);
  });

  it('POST /projects/:id/environments/:environment_id/stop: 200 stopped; developers only; twice is fine', async () => {
    const fx = world();
    const e = await newEnv(fx, 'staging');
    expect((await call(fx, 'POST', `${APP}/environments/${e.id}/stop`, 'rep')).status).toBe(403);
    const res = await call(fx, 'POST', `${APP}/environments/${e.id}/stop`, 'dev');
    expect([res.status, (await body(res)).state]).toEqual([200, 'stopped']);
    const again = await call(fx, 'POST', `${APP}/environments/${e.id}/stop`, 'dev');
    expect([again.status, (await body(again)).state]).toEqual([200, 'stopped']);
  });

  it('DELETE /projects/:id/environments/:environment_id: 403 while available, 204 once stopped', async () => {
    const fx = world();
    const e = await newEnv(fx, 'staging');
    const live = await call(fx, 'DELETE', `${APP}/environments/${e.id}`, 'maint');
    expect([live.status, await body(live)]).toEqual([403, { message: '403 Forbidden' }]);
    await call(fx, 'POST', `${APP}/environments/${e.id}/stop`, 'dev');
    expect((await call(fx, 'DELETE', `${APP}/environments/${e.id}`, 'rep')).status).toBe(403);
    expect((await call(fx, 'DELETE', `${APP}/environments/${e.id}`, 'dev')).status).toBe(204);
    expect(fx.state.environments.records.size).toBe(0);
  });

  it('environments: read-only in an archived project, closed with the builds feature', async () => {
    const fx = world();
    const e = await newEnv(fx, 'staging');
    await call(fx, 'POST', `${APP}/archive`, 'owner');
    expect((await call(fx, 'GET', `${APP}/environments`, 'dev')).status).toBe(200);
    expect((await call(fx, 'POST', `${APP}/environments/${e.id}/stop`, 'dev')).status).toBe(403);
    expect((await call(fx, 'POST', `${APP}/environments`, 'root', { name: 'x' })).status).toBe(403);
    const off = await call(fx, 'GET', '/projects/acme%2Fnojobs/environments', 'root');
    expect(off.status).toBe(403);
    expect(NOW).toBe('2021-03-01T12:00:00.000Z');
  });
});
