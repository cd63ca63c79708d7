/**
 * Deploy freeze periods (`lib/api/freeze_periods.rb`): CRUD for maintainers with `Ci::FreezePeriod`'s
 * cron validations, and `CI_DEPLOY_FREEZE` in the variables of pipelines made inside a period. The
 * world's clock stands at Monday 2021-03-01 12:00 UTC.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { exportScenario } from '../../../src/scenario/export.js';
import { APP, call, commitFiles, repoWorld, world } from '../repository/world.js';

const FREEZES = `${APP}/freeze_periods`;
const WEEKEND = { freeze_start: '0 23 * * 5', freeze_end: '0 7 * * 1', cron_timezone: 'UTC' };

describe('freeze periods API', () => {
  it('POST, GET, PUT and DELETE: Entities::FreezePeriod, oldest first, cron lines stripped', async () => {
    const fx = world();
    const made = await call(fx, 'POST', FREEZES, 'maint', { ...WEEKEND, freeze_start: ' 0 23 * * 5 ' });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      id: made.body.id,
      freeze_start: '0 23 * * 5',
      freeze_end: '0 7 * * 1',
      cron_timezone: 'UTC',
      created_at: '2021-03-01T12:00:00.000Z',
      updated_at: '2021-03-01T12:00:00.000Z',
    });
    const second = await call(fx, 'POST', FREEZES, 'owner', {
      freeze_start: '0 0 24 12 *',
      freeze_end: '0 0 2 1 *',
      cron_timezone: 'Europe/Berlin',
    });
    const list = await call(fx, 'GET', FREEZES, 'maint');
    expect(list.headers.get('x-total')).toBe('2');
    expect(list.body.map((f: { id: number }) => f.id)).toEqual([made.body.id, second.body.id]);
    expect((await call(fx, 'GET', `${FREEZES}/${second.body.id}`, 'maint')).body.cron_timezone).toBe(
      'Europe/Berlin',
    );
    const put = await call(fx, 'PUT', `${FREEZES}/${made.body.id}`, 'maint', { freeze_end: '0 8 * * 1' });
    expect(put.body).toMatchObject({
      freeze_start: '0 23 * * 5',
      freeze_end: '0 8 * * 1',
      cron_timezone: 'UTC',
    });
    expect((await call(fx, 'DELETE', `${FREEZES}/${made.body.id}`, 'maint')).status).toBe(204);
    expect((await call(fx, 'GET', `${FREEZES}/${made.body.id}`, 'maint')).body).toEqual({
      message: '404 Not found',
    });
  });

  it("the model's validations as render_validation_error!, Grape's for missing params", async () => {
    const fx = world();
    expect(
      await call(fx, 'POST', FREEZES, 'maint', { freeze_start: 'nope', freeze_end: '0 7 * * 1' }),
    ).toMatchObject({
      status: 400,
      body: {
        message: {
          freeze_start: [' is invalid syntax'],
          cron_timezone: [' is invalid syntax', "can't be blank"],
        },
      },
    });
    expect(
      await call(fx, 'POST', FREEZES, 'maint', {
        ...WEEKEND,
        freeze_end: '  ',
        cron_timezone: 'Mars/Olympus',
      }),
    ).toMatchObject({
      status: 400,
      body: {
        message: {
          freeze_end: [' is invalid syntax', "can't be blank"],
          cron_timezone: [' is invalid syntax'],
        },
      },
    });
    expect(await call(fx, 'POST', FREEZES, 'maint', { freeze_start: '0 1 * * *' })).toMatchObject({
      status: 400,
      body: { error: 'freeze_end is missing' },
    });
    const made = await call(fx, 'POST', FREEZES, 'maint', WEEKEND);
    expect(
      await call(fx, 'PUT', `${FREEZES}/${made.body.id}`, 'maint', { freeze_start: '61 * * * *' }),
    ).toMatchObject({
      status: 400,
      body: { message: { freeze_start: [' is invalid syntax'] } },
    });
    expect((await call(fx, 'GET', `${FREEZES}/${made.body.id}`, 'maint')).body.freeze_start).toBe(
      '0 23 * * 5',
    );
  });

  it('maintainers only: 401 anonymous, 403 developers and below, 404 outsiders of a private project', async () => {
    const fx = world();
    const made = await call(fx, 'POST', FREEZES, 'maint', WEEKEND);
    expect((await call(fx, 'GET', FREEZES)).status).toBe(401);
    for (const token of ['dev', 'rep', 'guest']) {
      expect((await call(fx, 'GET', FREEZES, token)).status).toBe(403);
      expect((await call(fx, 'GET', `${FREEZES}/${made.body.id}`, token)).status).toBe(403);
      expect((await call(fx, 'POST', FREEZES, token, WEEKEND)).status).toBe(403);
      expect((await call(fx, 'PUT', `${FREEZES}/${made.body.id}`, token, WEEKEND)).status).toBe(403);
      expect((await call(fx, 'DELETE', `${FREEZES}/${made.body.id}`, token)).status).toBe(403);
    }
    expect((await call(fx, 'GET', FREEZES, 'outsider')).body).toEqual({ message: '404 Project Not Found' });
    expect((await call(fx, 'GET', FREEZES, 'root')).status).toBe(200);
    // Another project's period is not found through this one.
    expect(
      (await call(fx, 'GET', `/projects/acme%2Fsite/freeze_periods/${made.body.id}`, 'root')).status,
    ).toBe(404);
  });

  it('a scenario carries the periods; an export loads into the same ones', async () => {
    const fx = createFauxlab({
      scenario: {
        ...repoWorld,
        projects: [
          { ...repoWorld.projects![0]!, freeze_periods: [WEEKEND] },
          ...repoWorld.projects!.slice(1),
        ],
      },
    });
    const list = (await call(fx, 'GET', FREEZES, 'maint')).body;
    expect(list).toMatchObject([WEEKEND]);
    const again = createFauxlab({ scenario: exportScenario(fx.state, { now: fx.clock.iso() }) });
    expect((await call(again, 'GET', FREEZES, 'maint')).body).toEqual(list);
    expect(() =>
      createFauxlab({
        scenario: {
          ...repoWorld,
          projects: [{ ...repoWorld.projects![0]!, freeze_periods: [{ ...WEEKEND, freeze_start: 'x' }] }],
        },
      }),
    ).toThrow(/freeze_periods\[0\]\.freeze_start: is invalid syntax/);
  });
});

describe('CI_DEPLOY_FREEZE', () => {
  const CI = [
    'build:',
    '  script: [make]',
    'deploy:',
    '  script: [make deploy]',
    '  rules:',
    '    - if: $CI_DEPLOY_FREEZE == null',
    'frozen:',
    '  script: [echo frozen]',
    '  rules:',
    '    - if: $CI_DEPLOY_FREEZE == "true"',
    '',
  ].join('\n');

  const jobNames = async (fx: ReturnType<typeof world>) => {
    const made = await call(fx, 'POST', `${APP}/pipeline?ref=master`, 'maint');
    expect(made.status).toBe(201);
    const jobs = (await call(fx, 'GET', `${APP}/pipelines/${made.body.id}/jobs`, 'maint')).body;
    return (jobs as { name: string }[]).map((j) => j.name).sort();
  };

  it('a pipeline made inside a period sees CI_DEPLOY_FREEZE=true; outside, none', async () => {
    const fx = world();
    await commitFiles(fx, { '.gitlab-ci.yml': CI });
    // The weekend's freeze ended at 07:00 this Monday.
    await call(fx, 'POST', FREEZES, 'maint', WEEKEND);
    expect(await jobNames(fx)).toEqual(['build', 'deploy']);
    // 10:00 to 14:00 on Mondays in Berlin (09:00 to 13:00 UTC): 12:00 UTC is inside.
    await call(fx, 'POST', FREEZES, 'maint', {
      freeze_start: '0 10 * * 1',
      freeze_end: '0 14 * * 1',
      cron_timezone: 'Europe/Berlin',
    });
    expect(await jobNames(fx)).toEqual(['build', 'frozen']);
  });

  it('a push inside a period: its pipeline sees the freeze too', async () => {
    const fx = world();
    await call(fx, 'POST', FREEZES, 'maint', {
      freeze_start: '0 11 * * *',
      freeze_end: '0 13 * * *',
      cron_timezone: 'UTC',
    });
    await commitFiles(fx, { '.gitlab-ci.yml': CI });
    const pipelines = (await call(fx, 'GET', `${APP}/pipelines`, 'maint')).body as { id: number }[];
    expect(pipelines).toHaveLength(1);
    const jobs = (await call(fx, 'GET', `${APP}/pipelines/${pipelines[0]!.id}/jobs`, 'maint')).body;
    expect((jobs as { name: string }[]).map((j) => j.name).sort()).toEqual(['build', 'frozen']);
  });
});
