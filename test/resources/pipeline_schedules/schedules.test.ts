import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario, loadScenario, ScenarioError } from '../../../src/index.js';
import { nextTime, parseCron } from '../../../src/resources/pipeline_schedules/cron.js';
import { nextRunAt } from '../../../src/resources/pipeline_schedules/model.js';
import { APP, body, call, ciWorld, NOW, world } from '../ci/world.js';

const NIGHTLY = { description: 'nightly', ref: 'master', cron: '0 4 * * *', cron_timezone: 'Europe/Berlin' };
const S = `${APP}/pipeline_schedules`;

type Fx = ReturnType<typeof world>;
const make = async (fx: Fx, who = 'dev', b: Record<string, unknown> = NIGHTLY) => {
  const res = await call(fx, 'POST', S, who, b);
  return [res.status, await body(res)] as const;
};
const get = async (fx: Fx, id = 1, who = 'dev') => body(await call(fx, 'GET', `${S}/${id}`, who));

describe('pipeline schedules: cron', () => {
  it('cron lines: ranges, steps, lists and names; five fields or invalid', () => {
    const at = (line: string, from: string, zone = 'UTC') =>
      new Date(nextTime(parseCron(line)!, zone, Date.parse(from))!).toISOString();
    expect(at('*/15 * * * *', '2021-03-01T12:07:00Z')).toBe('2021-03-01T12:15:00.000Z');
    expect(at('0 9-17/4 * * mon-fri', '2021-03-05T18:00:00Z')).toBe('2021-03-08T09:00:00.000Z');
    expect(at('30 1 1,15 jan,jul *', '2021-03-01T00:00:00Z')).toBe('2021-07-01T01:30:00.000Z');
    expect(at('0 0 * * 7', '2021-03-01T00:00:00Z')).toBe('2021-03-07T00:00:00.000Z');
    // A day of month and a day of week: either.
    expect(at('0 0 13 * fri', '2021-03-01T00:00:00Z')).toBe('2021-03-05T00:00:00.000Z');
    // Local time: 04:00 in Berlin is 03:00 UTC in winter and 02:00 in summer.
    expect(at('0 4 * * *', '2021-03-01T12:00:00Z', 'Europe/Berlin')).toBe('2021-03-02T03:00:00.000Z');
    expect(at('0 4 * * *', '2021-06-01T12:00:00Z', 'Europe/Berlin')).toBe('2021-06-02T02:00:00.000Z');
    // Fugit's extensions: the last day, a day counted back from it, a weekday's nth of the month.
    expect(at('0 0 L * *', '2021-02-03T00:00:00Z')).toBe('2021-02-28T00:00:00.000Z');
    expect(at('0 0 L * *', '2024-02-03T00:00:00Z')).toBe('2024-02-29T00:00:00.000Z');
    expect(at('0 0 1,-2 * *', '2021-04-02T00:00:00Z')).toBe('2021-04-29T00:00:00.000Z');
    expect(at('0 9 * * mon#2', '2021-03-01T00:00:00Z')).toBe('2021-03-08T09:00:00.000Z');
    expect(at('0 9 * * 5#L', '2021-03-01T00:00:00Z')).toBe('2021-03-26T09:00:00.000Z');
    expect(at('0 9 * * fri#-2,sun', '2021-03-15T00:00:00Z')).toBe('2021-03-19T09:00:00.000Z');
    for (const bad of [
      '@daily',
      '0 0 -31 * *',
      '0 0 LW * *',
      '0 0 ? * *',
      '0 9 * * mon#6',
      '0 9 * * mon#0',
      '0 9 * * mon-fri#2',
      '* * * *',
      '60 * * * *',
      '* 24 * * *',
      '* * 0 * *',
      '5-1 * * * *',
      '*/0 * * * *',
      'x * * * *',
    ])
      expect(parseCron(bad)).toBeNull();
  });

  it('next_run_at: the line’s next time, moved onto the schedule worker’s hourly run at minute 19', () => {
    const from = Date.parse('2021-03-01T12:00:00Z');
    const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
    // A time on a later worker run than the next one moves on to the worker's run after it (Fugit's
    // next time is strictly after the time it starts from).
    expect(iso(nextRunAt({ cron: '19 13 * * *', cron_timezone: 'UTC' }, from))).toBe(
      '2021-03-01T14:19:00.000Z',
    );
    expect(iso(nextRunAt({ cron: '19 12 * * *', cron_timezone: 'UTC' }, from))).toBe(
      '2021-03-01T12:19:00.000Z',
    );
    expect(iso(nextRunAt({ cron: '*/5 * * * *', cron_timezone: 'UTC' }, from))).toBe(
      '2021-03-01T12:19:00.000Z',
    );
    expect(iso(nextRunAt({ cron: '0 14 * * *', cron_timezone: 'UTC' }, from))).toBe(
      '2021-03-01T14:19:00.000Z',
    );
  });
});

describe('pipeline schedules: API', () => {
  it('POST /projects/:id/pipeline_schedules: 201 with the details, owned by the creator', async () => {
    const fx = world();
    const [status, s] = await make(fx);
    expect(status).toBe(201);
    expect(Object.keys(s)).toEqual([
      'id',
      'description',
      'ref',
      'cron',
      'cron_timezone',
      'next_run_at',
      'active',
      'created_at',
      'updated_at',
      'owner',
      'last_pipeline',
      'variables',
    ]);
    expect(s).toMatchObject({
      id: 1,
      description: 'nightly',
      cron_timezone: 'Europe/Berlin',
      next_run_at: '2021-03-02T03:19:00.000Z',
      active: true,
      created_at: NOW,
      owner: { username: 'dev' },
      last_pipeline: null,
      variables: [],
    });
  });

  it('POST /projects/:id/pipeline_schedules: the validators’ errors (with their leading space) and Grape’s', async () => {
    const fx = world();
    expect(
      await make(fx, 'dev', { ...NIGHTLY, cron: '61 * * * *', cron_timezone: 'Mars/Base', description: ' ' }),
    ).toEqual([
      400,
      {
        message: {
          cron: [' is invalid syntax'],
          cron_timezone: [' is invalid syntax'],
          description: ["can't be blank"],
        },
      },
    ]);
    const { cron: _c, ...noCron } = NIGHTLY;
    expect(await make(fx, 'dev', noCron)).toEqual([400, { error: 'cron is missing' }]);
    expect(await make(fx, 'rep')).toEqual([403, { message: '403 Forbidden' }]);
    const anonymous = await call(fx, 'POST', S, undefined, NIGHTLY);
    expect([anonymous.status, await body(anonymous)]).toEqual([401, { message: '401 Unauthorized' }]);
    expect(await body(await call(fx, 'GET', S, 'dev'))).toEqual([]);
  });

  it('GET /projects/:id/pipeline_schedules: scope; a schedule of another project is the Pipeline Schedule 404', async () => {
    const fx = world();
    await make(fx);
    await make(fx, 'dev', { ...NIGHTLY, description: 'off', active: false });
    const ids = async (q: string) =>
      ((await body(await call(fx, 'GET', `${S}${q}`, 'rep'))) as { id: number }[]).map((s) => s.id);
    expect(await ids('')).toEqual([1, 2]);
    expect(await ids('?scope=active')).toEqual([1]);
    expect(await ids('?scope=inactive')).toEqual([2]);
    const missing = await call(fx, 'GET', `${S}/9`, 'dev');
    expect([missing.status, await body(missing)]).toEqual([
      404,
      { message: '404 Pipeline Schedule Not Found' },
    ]);
    const list = (await body(await call(fx, 'GET', S, 'rep'))) as Record<string, unknown>[];
    expect(list[0]!.last_pipeline).toBeUndefined();
  });

  it('scheduled pipelines start on the instance clock, as the owner; play starts one now and keeps next_run_at', async () => {
    const fx = world();
    await make(fx);
    fx.clock.advance(2 * 86_400_000);
    const s = await get(fx);
    expect(s.next_run_at).toBe('2021-03-04T03:19:00.000Z');
    expect(s.last_pipeline).toMatchObject({ id: 9, ref: 'master', created_at: '2021-03-03T03:19:00.000Z' });
    const pl = await body(await call(fx, 'GET', `${APP}/pipelines/8`, 'dev'));
    expect(pl).toMatchObject({
      created_at: '2021-03-02T03:19:00.000Z',
      user: { username: 'dev' },
      status: 'success',
    });
    const play = await call(fx, 'POST', `${S}/1/play`, 'maint');
    expect([play.status, await body(play)]).toEqual([201, { message: '201 Created' }]);
    const after = await get(fx);
    expect(after.next_run_at).toBe('2021-03-04T03:19:00.000Z');
    expect(after.last_pipeline).toMatchObject({
      id: 10,
      status: 'pending',
      created_at: '2021-03-03T12:00:00.000Z',
    });
    expect((await body(await call(fx, 'GET', `${APP}/pipelines/10`, 'dev'))).user.username).toBe('maint');
    expect((await call(fx, 'POST', `${S}/1/play`, 'rep')).status).toBe(403);
  });

  it('a clock far ahead: at most 50 catch-up runs, then the next time after the clock', async () => {
    const fx = world();
    await make(fx, 'dev', { ...NIGHTLY, cron: '19 * * * *', cron_timezone: 'UTC' });
    fx.clock.advance(100 * 3_600_000);
    const s = await get(fx);
    const pipelines = (await body(
      await call(fx, 'GET', `${APP}/pipelines?per_page=100`, 'dev'),
    )) as unknown[];
    expect(pipelines.length).toBe(7 + 50);
    expect(s.next_run_at).toBe('2021-03-05T16:19:00.000Z');
  });

  it('an inactive schedule does not run; activating it works its next run out again', async () => {
    const fx = world();
    await make(fx, 'dev', { ...NIGHTLY, active: false });
    fx.clock.advance(2 * 86_400_000);
    expect((await get(fx)).last_pipeline).toBeNull();
    const put = await call(fx, 'PUT', `${S}/1`, 'dev', { active: true, cron: '30 5 * * *' });
    expect(await body(put)).toMatchObject({
      active: true,
      cron: '30 5 * * *',
      next_run_at: '2021-03-04T05:19:00.000Z',
      updated_at: '2021-03-03T12:00:00.000Z',
    });
    const bad = await call(fx, 'PUT', `${S}/1`, 'dev', { cron: '' });
    expect(await body(bad)).toEqual({ message: { cron: [' is invalid syntax', "can't be blank"] } });
  });

  it('PUT, take_ownership and DELETE: the owner (a developer) or maintainers', async () => {
    const fx = world();
    await make(fx, 'maint');
    expect((await call(fx, 'PUT', `${S}/1`, 'dev', { description: 'x' })).status).toBe(403);
    const take = await call(fx, 'POST', `${S}/1/take_ownership`, 'owner');
    expect([take.status, (await body(take)).owner.username]).toEqual([201, 'owner']);
    expect((await call(fx, 'POST', `${S}/1/take_ownership`, 'dev')).status).toBe(403);
    expect((await call(fx, 'DELETE', `${S}/1`, 'dev')).status).toBe(403);
    expect((await call(fx, 'DELETE', `${S}/1`, 'maint')).status).toBe(204);
    expect((await call(fx, 'GET', `${S}/1`, 'maint')).status).toBe(404);
  });

  it('variables: create, the model’s errors, update, delete (202 with the variable)', async () => {
    const fx = world();
    await make(fx);
    const V = `${S}/1/variables`;
    const add = await call(fx, 'POST', V, 'dev', { key: 'TARGET', value: 'eu' });
    expect([add.status, await body(add)]).toEqual([
      201,
      { variable_type: 'env_var', key: 'TARGET', value: 'eu' },
    ]);
    const dup = await call(fx, 'POST', V, 'dev', { key: 'TARGET', value: 'us' });
    expect([dup.status, await body(dup)]).toEqual([
      400,
      { message: { key: ['(TARGET) has already been taken'] } },
    ]);
    const badKey = await call(fx, 'POST', V, 'dev', { key: 'a-b', value: 'x' });
    expect(await body(badKey)).toEqual({ message: { key: ["can contain only letters, digits and '_'."] } });
    const put = await call(fx, 'PUT', `${V}/TARGET`, 'dev', { value: 'us', variable_type: 'file' });
    expect(await body(put)).toEqual({ variable_type: 'file', key: 'TARGET', value: 'us' });
    expect((await get(fx)).variables).toEqual([{ variable_type: 'file', key: 'TARGET', value: 'us' }]);
    const none = await call(fx, 'PUT', `${V}/NOPE`, 'dev', { value: 'x' });
    expect([none.status, await body(none)]).toEqual([
      404,
      { message: '404 Pipeline Schedule Variable Not Found' },
    ]);
    const del = await call(fx, 'DELETE', `${V}/TARGET`, 'dev');
    expect([del.status, await body(del)]).toEqual([
      202,
      { variable_type: 'file', key: 'TARGET', value: 'us' },
    ]);
    expect((await get(fx)).variables).toEqual([]);
    expect((await call(fx, 'POST', V, 'rep', { key: 'X', value: 'y' })).status).toBe(403);
  });
});

describe('pipeline schedules: scenario', () => {
  it('projects[].pipeline_schedules: built, exported and loaded back; bad entries are named', async () => {
    const scenario = {
      ...ciWorld,
      projects: ciWorld.projects!.map((p) =>
        p.path === 'acme/app'
          ? {
              ...p,
              pipeline_schedules: [
                {
                  description: 'weekly',
                  cron: '0 6 * * 1',
                  cron_timezone: 'America/New_York',
                  owner: 'maint',
                  variables: [{ key: 'MODE', value: 'full', variable_type: 'file' as const }],
                  created_at: '2021-02-01T00:00:00Z',
                },
                { description: 'paused', ref: 'feature', cron: '* * * * *', active: false },
              ],
            }
          : p,
      ),
    };
    const fx = createFauxlab({ scenario });
    expect(await get(fx, 1)).toMatchObject({
      description: 'weekly',
      next_run_at: '2021-03-08T11:19:00.000Z',
      owner: { username: 'maint' },
      created_at: '2021-02-01T00:00:00.000Z',
      variables: [{ key: 'MODE', value: 'full', variable_type: 'file' }],
    });
    const out = exportScenario(fx.state, { now: fx.clock.iso() });
    const app = out.projects!.find((p) => p.path === 'acme/app') as Record<string, unknown>;
    expect(app.pipeline_schedules).toEqual([
      {
        description: 'weekly',
        cron: '0 6 * * 1',
        cron_timezone: 'America/New_York',
        owner: 'maint',
        variables: [{ key: 'MODE', value: 'full', variable_type: 'file' }],
        created_at: '2021-02-01T00:00:00.000Z',
      },
      { description: 'paused', ref: 'feature', cron: '* * * * *', active: false, created_at: NOW },
    ]);
    let problems: string[] = [];
    try {
      loadScenario({
        users: [{ username: 'a' }],
        projects: [
          {
            path: 'a/p',
            pipeline_schedules: [
              {
                description: 'x',
                cron: '* *',
                owner: 'ghost',
                variables: [
                  { key: 'K', value: '1' },
                  { key: 'K', value: '2' },
                ],
              },
            ],
          },
        ],
      });
    } catch (e) {
      problems = e instanceof ScenarioError ? e.problems : [];
    }
    expect(problems).toEqual(
      expect.arrayContaining([
        'projects[0].pipeline_schedules[0].cron: is invalid syntax',
        'projects[0].pipeline_schedules[0].owner: no user "ghost"',
        'projects[0].pipeline_schedules[0].variables[1].key: (K) has already been taken',
      ]),
    );
  });
});
