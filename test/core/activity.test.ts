import { describe, expect, it } from 'vitest';
import { findUser } from '../../src/core/auth.js';
import { jsonResponse } from '../../src/core/respond.js';
import { APP, body, call, contentWorld, world, type World } from '../resources/settings/world.js';

const activity = (fx: World, username: string) => findUser(fx.state, username)?.last_activity_on ?? null;

describe('user activity (Users::ActivityService after each API endpoint)', () => {
  it('GET /user/activities: a user who called the API is listed with the instance date', async () => {
    const fx = world();
    expect((await call(fx, 'GET', '/user', 'alice')).status).toBe(200);
    const list = await body(await call(fx, 'GET', '/user/activities', 'root'));
    expect(list).toEqual([
      { username: 'alice', last_activity_on: '2021-03-01', last_activity_at: '2021-03-01' },
    ]);
    // The admin's own call is recorded after its answer, as the platform's `after` block is (same day: id order).
    expect(
      (await body(await call(fx, 'GET', '/user/activities', 'root'))).map((a: any) => a.username),
    ).toEqual(['root', 'alice']);
  });

  it('API activity: anonymous requests and requests answered with an error record nothing', async () => {
    const fx = world();
    const before = fx.state;
    expect((await call(fx, 'GET', '/projects')).status).toBe(200);
    expect((await call(fx, 'GET', `${APP}/issues/999`, 'outsider')).status).toBe(404);
    expect((await call(fx, 'POST', '/projects', 'dev', {})).status).toBe(400);
    expect(fx.state).toBe(before);
    expect(activity(fx, 'outsider')).toBeNull();
    expect(activity(fx, 'dev')).toBeNull();
  });

  it('API activity: one write a user and day; the next day writes again', async () => {
    const fx = world();
    await call(fx, 'GET', '/user', 'dev');
    expect(activity(fx, 'dev')).toBe('2021-03-01');
    const recorded = fx.state;
    await call(fx, 'GET', '/user', 'dev');
    await call(fx, 'GET', `${APP}/issues`, 'dev');
    expect(fx.state).toBe(recorded);
    fx.clock.advance(24 * 3_600_000);
    await call(fx, 'GET', `${APP}/issues`, 'dev');
    expect(activity(fx, 'dev')).toBe('2021-03-02');
  });

  it('API activity: an answer kept by the response cache and sent again the next day records that day', async () => {
    const fx = world();
    await call(fx, 'GET', `${APP}/issues`, 'dev');
    await call(fx, 'GET', `${APP}/issues`, 'dev');
    fx.clock.advance(24 * 3_600_000);
    await call(fx, 'GET', `${APP}/issues`, 'dev');
    expect(activity(fx, 'dev')).toBe('2021-03-02');
  });

  it('API activity: with sudo it is the impersonated user who is recorded', async () => {
    const users = contentWorld.users!.map((u) =>
      u.username === 'root'
        ? { ...u, tokens: [{ token: 'root-sudo', scopes: ['api', 'sudo'] as ('api' | 'sudo')[] }] }
        : u,
    );
    const fx = world({}, { users });
    expect((await call(fx, 'GET', '/user?sudo=dev', 'root-sudo')).status).toBe(200);
    expect(activity(fx, 'dev')).toBe('2021-03-01');
    expect(activity(fx, 'root')).toBeNull();
  });

  it('API activity: reading the date for it does not make an answer depend on the instant (a running clock still replays)', async () => {
    let runs = 0;
    const fx = world({
      realtimeClock: true,
      routes: (r) => {
        r.get('/counted', () => {
          runs++;
          return jsonResponse('{}');
        });
      },
    });
    for (let i = 0; i < 4; i++) {
      expect((await fx.app.request('/api/v4/counted', { headers: { 'PRIVATE-TOKEN': 'dev' } })).status).toBe(
        200,
      );
      await new Promise((r) => setTimeout(r, 3));
    }
    // The first answer wrote dev's activity (so it was not kept); the second was kept and replayed since.
    expect(runs).toBe(2);
    expect(activity(fx, 'dev')).not.toBeNull();
  });
});
