/** Time tracking of acme/website's issues and merge requests (erin reporter, dave developer, gus guest). */
import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { get, issuablesFx, issuablesWorld, refused, send, WEB } from './world.js';

const stats = (estimate: number, spent: number, human: string | null, humanSpent: string | null) => ({
  time_estimate: estimate,
  total_time_spent: spent,
  human_time_estimate: human,
  human_total_time_spent: humanSpent,
});

describe('time tracking', () => {
  it('POST /projects/:id/issues/:issue_iid/time_estimate: human durations with 8-hour days and 5-day weeks', async () => {
    const fx = issuablesFx();
    const r = await send(fx, 'POST', `${WEB}/issues/1/time_estimate`, 'erin-api', {
      duration: '1w 2d 3h 30m',
    });
    expect(r).toEqual({ status: 200, body: stats(214200, 0, '1w 2d 3h 30m', null) });
    expect(
      (await send(fx, 'POST', `${WEB}/issues/1/time_estimate`, 'erin-api', { duration: '90m' })).body,
    ).toEqual(stats(5400, 0, '1h 30m', null));
    // A bare number is hours.
    expect(
      (await send(fx, 'POST', `${WEB}/issues/1/time_estimate`, 'erin-api', { duration: '3' })).body
        .time_estimate,
    ).toBe(10800);
    expect((await get(fx, `${WEB}/issues/1`, 'bob-api')).body.time_stats).toEqual(
      stats(10800, 0, '3h', null),
    );
    const notes = (await get(fx, `${WEB}/issues/1/notes`, 'erin-api')).body.map((n: any) => n.body);
    expect(notes[0]).toBe('changed time estimate to 3h');
    const reset = await send(fx, 'POST', `${WEB}/issues/1/reset_time_estimate`, 'erin-api');
    expect(reset).toEqual({ status: 200, body: stats(0, 0, null, null) });
  });

  it('POST /projects/:id/issues/:issue_iid/time_estimate: 400 for an unreadable or negative duration, 403 for a guest', async () => {
    const fx = issuablesFx();
    const invalid = { message: { time_estimate: ['has an invalid format'] } };
    await refused(
      fx,
      'POST',
      `${WEB}/issues/1/time_estimate`,
      'erin-api',
      { duration: 'soon' },
      400,
      invalid,
    );
    await refused(fx, 'POST', `${WEB}/issues/1/time_estimate`, 'erin-api', { duration: '-1h' }, 400, invalid);
    await refused(fx, 'POST', `${WEB}/issues/1/time_estimate`, 'erin-api', {}, 400, {
      error: 'duration is missing',
    });
    await refused(fx, 'POST', `${WEB}/issues/1/time_estimate`, 'gus-api', { duration: '1h' }, 403, {
      message: '403 Forbidden',
    });
  });

  it('POST /projects/:id/merge_requests/:merge_request_iid/add_spent_time: 201; subtracting; reset; developers only', async () => {
    const fx = issuablesFx();
    const path = `${WEB}/merge_requests/1`;
    expect(await send(fx, 'POST', `${path}/add_spent_time`, 'dave-api', { duration: '2h' })).toEqual({
      status: 201,
      body: stats(0, 7200, null, '2h'),
    });
    expect((await send(fx, 'POST', `${path}/add_spent_time`, 'dave-api', { duration: '-30m' })).body).toEqual(
      stats(0, 5400, null, '1h 30m'),
    );
    await refused(fx, 'POST', `${path}/add_spent_time`, 'dave-api', { duration: '-1d' }, 400, {
      message: { base: ['Time to subtract exceeds the total time spent'] },
    });
    await refused(fx, 'POST', `${path}/add_spent_time`, 'erin-api', { duration: '1h' }, 403, {
      message: '403 Forbidden',
    });
    const notes = (await get(fx, `${path}/notes?sort=asc`, 'dave-api')).body.map((n: any) => n.body);
    expect(notes).toEqual(['added 2h of time spent', 'subtracted 30m of time spent']);
    expect(await send(fx, 'POST', `${path}/reset_spent_time`, 'dave-api')).toEqual({
      status: 200,
      body: stats(0, 0, null, null),
    });
    expect((await get(fx, `${path}/time_stats`, 'bob-api')).body).toEqual(stats(0, 0, null, null));
  });

  it('GET /projects/:id/issues/:issue_iid/time_stats: readers; 404 for a hidden issue, 401 anonymous', async () => {
    const fx = issuablesFx();
    expect((await get(fx, `${WEB}/issues/1/time_stats`, 'bob-api')).body).toEqual(stats(0, 0, null, null));
    expect((await get(fx, `${WEB}/issues/4/time_stats`, 'carol-api')).status).toBe(404);
    expect((await get(fx, `${WEB}/issues/1/time_stats`)).status).toBe(401);
  });

  it('projects[].issues[].time_estimate and total_time_spent: loaded, shown and exported', async () => {
    const scenario: ScenarioFile = {
      ...issuablesWorld,
      projects: issuablesWorld.projects!.map((p) =>
        p.path === 'acme/website'
          ? {
              ...p,
              issues: p.issues!.map((i, k) =>
                k === 0 ? { ...i, time_estimate: 7200, total_time_spent: 1800 } : i,
              ),
            }
          : p,
      ),
    };
    const fx = createFauxlab({ scenario });
    expect((await get(fx, `${WEB}/issues/1/time_stats`, 'bob-api')).body).toEqual(
      stats(7200, 1800, '2h', '30m'),
    );
    const file = exportScenario(fx.state, { now: fx.clock.iso() });
    expect(file.projects!.find((p) => p.path === 'acme/website')!.issues![0]).toMatchObject({
      time_estimate: 7200,
      total_time_spent: 1800,
    });
  });
});
