/**
 * Real clients through MSW: gitbeaker's Pipelines and ProjectVariables (it has no admin Features
 * resource, so features go through plain fetch).
 */
import { Gitlab } from '@gitbeaker/rest';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fauxlabHandlers } from '../../../src/msw/index.js';
import { statusOf } from '../../clients/status.js';
import { NOW, world } from './world.js';

const HOST = 'http://gitlab.ci.test';
const fx = world();
const server = setupServer(...fauxlabHandlers(fx, { baseUrl: HOST }));

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => fx.reset());
afterAll(() => server.close());

const api = (token: string) => new Gitlab({ host: HOST, token });

describe('gitbeaker Pipelines through MSW', () => {
  it('Pipelines.all with filters, and all pages', async () => {
    const gl = api('owner');
    const all = await gl.Pipelines.all('acme/app');
    expect(all.map((p) => p.id)).toEqual([7, 6, 5, 4, 3, 2, 1]);
    const feature = await gl.Pipelines.all('acme/app', { ref: 'feature', orderBy: 'id', sort: 'asc' });
    expect(feature.map((p) => p.id)).toEqual([2, 5]);
    const paged = await gl.Pipelines.all('acme/app', { perPage: 2 });
    expect(paged).toHaveLength(7);
    expect(paged[0]!.web_url).toBe(`${HOST}/acme/app/-/pipelines/7`);
  });

  it('Pipelines.create, show as the clock moves, retry, cancel, allVariables, remove', async () => {
    const gl = api('owner');
    const p = await gl.Pipelines.create('acme/app', 'master', {
      variables: [{ key: 'DEPLOY', value: 'yes', variable_type: 'env_var' }],
    });
    expect(p).toMatchObject({ status: 'pending', ref: 'master', created_at: NOW });
    fx.clock.advance(1000);
    expect((await gl.Pipelines.show('acme/app', p.id)).status).toBe('running');
    fx.clock.advance(60_000);
    const done = await gl.Pipelines.show('acme/app', p.id);
    expect(done).toMatchObject({ status: 'success', duration: 60 });
    expect((await gl.Pipelines.retry('acme/app', p.id)).status).toBe('pending');
    expect((await gl.Pipelines.cancel('acme/app', p.id)).status).toBe('canceled');
    expect(await gl.Pipelines.allVariables('acme/app', p.id)).toEqual([
      { key: 'DEPLOY', value: 'yes', variable_type: 'env_var' },
    ]);
    await gl.Pipelines.remove('acme/app', p.id);
    expect(await statusOf(gl.Pipelines.show('acme/app', p.id))).toBe(404);
  });

  it('Pipelines.showLatest and showTestReport behind its flag', async () => {
    const gl = api('owner');
    expect((await gl.Pipelines.showLatest('acme/app', { ref: 'feature' })).id).toBe(5);
    expect(await statusOf(gl.Pipelines.showTestReport('acme/app', 1))).toBe(404);
    const on = await fetch(`${HOST}/api/v4/features/junit_pipeline_view`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': 'root', 'Content-Type': 'application/json' },
      body: JSON.stringify({ value: true }),
    });
    expect(on.status).toBe(201);
    const report = await gl.Pipelines.showTestReport('acme/app', 1);
    expect(report).toMatchObject({ total_count: 5, failed_count: 1 });
  });

  it('Pipelines.create with an unknown ref is a 400 the client reports', async () => {
    const gl = api('dev');
    expect(await statusOf(gl.Pipelines.create('acme/app', 'nope'))).toBe(400);
    expect(await statusOf(api('rep').Pipelines.create('acme/app', 'master'))).toBe(403);
  });
});

describe('gitbeaker ProjectVariables through MSW', () => {
  it('ProjectVariables.all, create, show with a filter, edit with a filter, remove with a filter', async () => {
    const gl = api('maint');
    expect((await gl.ProjectVariables.all('acme/app')).map((v) => v.key)).toEqual([
      'DEPLOY_TOKEN',
      'REGION',
      'REGION',
      'CONFIG',
    ]);
    const created = await gl.ProjectVariables.create('acme/app', 'REGION', 'jp', {
      environmentScope: 'tokyo',
    });
    expect(created).toEqual({
      key: 'REGION',
      value: 'jp',
      protected: false,
      variable_type: 'env_var',
      masked: false,
      environment_scope: 'tokyo',
    });
    const shown = await gl.ProjectVariables.show('acme/app', 'REGION', {
      filter: { environment_scope: 'staging' },
    });
    expect(shown).toMatchObject({ value: 'us' });
    const edited = await gl.ProjectVariables.edit('acme/app', 'REGION', 'kr', {
      filter: { environment_scope: 'tokyo' },
      environmentScope: 'seoul',
    });
    expect(edited).toMatchObject({ value: 'kr', environment_scope: 'seoul' });
    await gl.ProjectVariables.remove('acme/app', 'REGION', { filter: { environment_scope: 'seoul' } });
    expect((await gl.ProjectVariables.all('acme/app')).filter((v) => v.key === 'REGION')).toHaveLength(2);
    expect(await statusOf(gl.ProjectVariables.show('acme/app', 'REGION'))).toBe(409);
    expect(await statusOf(api('dev').ProjectVariables.all('acme/app'))).toBe(403);
  });
});

describe('features through MSW (plain fetch)', () => {
  it('POST, GET and DELETE /features', async () => {
    const headers = { 'PRIVATE-TOKEN': 'root', 'Content-Type': 'application/json' };
    const post = await fetch(`${HOST}/api/v4/features/my_flag`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ value: 30, key: 'percentage_of_actors' }),
    });
    expect(post.status).toBe(201);
    const list = await (await fetch(`${HOST}/api/v4/features`, { headers })).json();
    expect(list).toEqual([
      {
        name: 'my_flag',
        state: 'conditional',
        gates: [
          { key: 'boolean', value: false },
          { key: 'percentage_of_actors', value: 30 },
        ],
      },
    ]);
    // python-gitlab's empty segment and a trailing slash reach the same routes.
    const del = await fetch(`${HOST}/api/v4/features//my_flag`, { method: 'DELETE', headers });
    expect(del.status).toBe(204);
    expect(await (await fetch(`${HOST}/api/v4/features/`, { headers })).json()).toEqual([]);
  });
});
