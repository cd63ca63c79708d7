import { describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { loadScenario, ScenarioError } from '../../../src/scenario/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { exportScenario } from '../../../src/scenario/export.js';
import { body, call } from './world.js';

const base = (project: Record<string, unknown>): ScenarioFile => ({
  now: '2021-03-01T12:00:00Z',
  users: [{ username: 'root', admin: true, tokens: [{ token: 'root' }] }],
  projects: [{ path: 'root/app', ...project }],
});

function problems(s: ScenarioFile): string[] {
  try {
    loadScenario(s);
  } catch (e) {
    if (e instanceof ScenarioError) return e.problems;
    throw e;
  }
  return [];
}

describe('scenario files: CI parts of projects', () => {
  it('variables are validated like the API validates them', () => {
    expect(
      problems(
        base({
          variables: [
            { key: 'OK', value: 'x' },
            { key: 'OK', value: 'y' },
            { key: 'bad-key', value: 'x' },
            { key: 'SECRET', value: 'short', masked: true },
            { key: 'OK', value: 'z', environment_scope: 'production' },
          ],
        }),
      ),
    ).toEqual([
      'projects[0].variables[1].key: (OK) has already been taken',
      "projects[0].variables[2].key: can contain only letters, digits and '_'.",
      'projects[0].variables[3].value: is invalid',
    ]);
  });

  it('pipelines name existing users, and need a ref when the project has no default branch', () => {
    expect(
      problems(base({ default_branch: null, pipelines: [{ user: 'nobody' }, { ref: 'main' }] })),
    ).toEqual([
      'projects[0].pipelines[0].user: no user "nobody"',
      'projects[0].pipelines[0].ref: the project has no default branch: give a ref',
    ]);
  });

  it('durations are seconds or duration strings', () => {
    expect(problems(base({ pipelines: [{ duration: 'soon' }] }))).toEqual([
      'projects[0].pipelines[0].duration: must be seconds or a duration such as 90s, 5m, 1h30m',
    ]);
    expect(problems(base({ pipelines: [{ duration: '1h30m' }, { duration: 12.5 }] }))).toEqual([]);
  });

  it('branches and tags, with or without shas; pipeline refs become branches (or tags)', async () => {
    const fx = createFauxlab({
      scenario: base({
        branches: ['develop', { name: 'pinned', sha: 'b'.repeat(40) }],
        tags: [{ name: 'v2', sha: 'c'.repeat(40) }],
        pipelines: [
          { ref: 'from-pipeline', status: 'success' },
          { ref: 'v3', tag: true, status: 'success' },
        ],
      }),
    });
    const create = (ref: string) => call(fx, 'POST', '/projects/root%2Fapp/pipeline', 'root', { ref });
    expect((await body(await create('pinned'))).sha).toBe('b'.repeat(40));
    expect(await body(await create('v2'))).toMatchObject({ sha: 'c'.repeat(40), tag: true });
    expect((await create('develop')).status).toBe(201);
    expect((await create('master')).status).toBe(201);
    expect((await create('from-pipeline')).status).toBe(201);
    expect(await body(await create('v3'))).toMatchObject({ tag: true });
    expect((await create('v9')).status).toBe(400);
    const tags = await body(await call(fx, 'GET', '/projects/root%2Fapp/pipelines?scope=tags', 'root'));
    expect(tags.map((p: { ref: string }) => p.ref)).toEqual(['v3', 'v2']);
  });

  it('a finished pipeline without a time ends at the start of the clock', async () => {
    const fx = createFauxlab({ scenario: base({ pipelines: [{ status: 'failed', duration: '5m' }] }) });
    expect(await body(await call(fx, 'GET', '/projects/root%2Fapp/pipelines/1', 'root'))).toMatchObject({
      status: 'failed',
      created_at: '2021-03-01T11:55:00.000Z',
      started_at: '2021-03-01T11:55:00.000Z',
      finished_at: '2021-03-01T12:00:00.000Z',
      duration: 300,
      user: { username: 'root' },
    });
  });

  it('pipelines without a status run on the clock for the default 60 seconds', async () => {
    const fx = createFauxlab({ scenario: base({ pipelines: [{}] }) });
    const get = async () => body(await call(fx, 'GET', '/projects/root%2Fapp/pipelines/1', 'root'));
    expect((await get()).status).toBe('pending');
    fx.clock.advance(59_999);
    expect((await get()).status).toBe('running');
    fx.clock.advance(1);
    expect((await get()).status).toBe('success');
  });

  it('a running pipeline without a time has started at the start of the clock', async () => {
    const fx = createFauxlab({ scenario: base({ pipelines: [{ status: 'running', duration: 30 }] }) });
    const get = async () => body(await call(fx, 'GET', '/projects/root%2Fapp/pipelines/1', 'root'));
    expect(await get()).toMatchObject({ status: 'running', started_at: '2021-03-01T12:00:00.000Z' });
    fx.clock.advance(30_000);
    expect(await get()).toMatchObject({ status: 'success', duration: 30 });
  });

  it('reset brings back the scenario pipelines, variables and flags', async () => {
    const fx = createFauxlab({ scenario: base({ variables: [{ key: 'A', value: '1' }], pipelines: [{}] }) });
    await call(fx, 'POST', '/projects/root%2Fapp/pipeline', 'root', { ref: 'master' });
    await call(fx, 'DELETE', '/projects/root%2Fapp/variables/A', 'root');
    await call(fx, 'POST', '/features/junit_pipeline_view', 'root', { value: true });
    fx.reset();
    expect(fx.state.pipelines.size).toBe(1);
    expect(fx.state.variables.size).toBe(1);
    expect(fx.state.features).toEqual({});
  });
});

describe('scenario files: a pipeline still queued', () => {
  it('keeps the rest of its queue time through export and load (pending_until)', async () => {
    const fx = createFauxlab({ scenario: { ...base({}), ci: { queue_time: 60 } } });
    const post = await fx.app.request('/api/v4/projects/1/pipeline?ref=master', {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'root' },
    });
    expect(post.status).toBe(201);
    fx.clock.advance(20_000);
    const out = exportScenario(fx.state, { now: fx.clock.iso() }) as ScenarioFile;
    expect(out.projects?.[0]?.pipelines?.[0]).toMatchObject({
      status: 'pending',
      pending_until: '2021-03-01T12:01:00.000Z',
    });
    const copy = createFauxlab({ scenario: out });
    const status = async (f: typeof fx) =>
      (
        (await (
          await f.app.request('/api/v4/projects/1/pipelines/1', { headers: { 'PRIVATE-TOKEN': 'root' } })
        ).json()) as {
          status: string;
        }
      ).status;
    for (const f of [fx, copy]) f.clock.advance(39_000);
    expect([await status(fx), await status(copy)]).toEqual(['pending', 'pending']);
    for (const f of [fx, copy]) f.clock.advance(2_000);
    expect([await status(fx), await status(copy)]).toEqual(['running', 'running']);
  });
});
