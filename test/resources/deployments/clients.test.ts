/**
 * Real clients through MSW: gitbeaker's Deployments, PipelineSchedules, PipelineScheduleVariables and
 * DeployKeys against the delivery world.
 */
import { Gitlab } from '@gitbeaker/rest';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createFauxlab } from '../../../src/index.js';
import { fauxlabHandlers } from '../../../src/msw/index.js';
import { statusOf } from '../../clients/status.js';
import { sshKey } from '../../reliability/matrix.js';
import { deployWorld } from './world.js';

const HOST = 'http://gitlab.delivery.test';
const fx = createFauxlab({ scenario: deployWorld });
const server = setupServer(...fauxlabHandlers(fx, { baseUrl: HOST }));

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => fx.reset());
afterAll(() => server.close());

const api = (token: string) => new Gitlab({ host: HOST, token });

describe('gitbeaker delivery resources through MSW', () => {
  it('Deployments: all with filters, create, show, edit, allMergeRequests', async () => {
    const gl = api('dev');
    const all = await gl.Deployments.all('acme/shop', { orderBy: 'id', sort: 'desc' });
    expect(all.map((d) => d.id)).toEqual([3, 2, 1]);
    const made = await gl.Deployments.create('acme/shop', 'canary', 'e'.repeat(40), 'master', false, {
      status: 'running',
    });
    expect(made).toMatchObject({ id: 4, status: 'running', environment: { name: 'canary' } });
    const done = await gl.Deployments.edit('acme/shop', 4, 'success');
    expect(done.status).toBe('success');
    expect((await gl.Deployments.show('acme/shop', 4)).status).toBe('success');
    expect(await gl.Deployments.allMergeRequests('acme/shop', 4)).toEqual([]);
    expect(await statusOf(gl.Deployments.edit('acme/shop', 1, 'success'))).toBe(403);
    // Grape checks the params before the ability: a reporter's complete request is the 403.
    const rep = api('rep').Deployments;
    expect(await statusOf(rep.create('acme/shop', 'x', 'e'.repeat(40), 'master', false))).toBe(400);
    const full = rep.create('acme/shop', 'x', 'e'.repeat(40), 'master', false, { status: 'success' });
    expect(await statusOf(full)).toBe(403);
  });

  it('PipelineSchedules and their variables: create, show, edit, run, remove', async () => {
    const gl = api('maint');
    const s = await gl.PipelineSchedules.create('acme/shop', 'nightly', 'master', '0 1 * * *', {
      cronTimezone: 'UTC',
    });
    expect(s).toMatchObject({ id: 1, next_run_at: '2021-03-02T01:19:00.000Z', owner: { username: 'maint' } });
    await gl.PipelineScheduleVariables.create('acme/shop', 1, 'TARGET', 'eu');
    await gl.PipelineScheduleVariables.edit('acme/shop', 1, 'TARGET', 'us');
    const edited = await gl.PipelineSchedules.edit('acme/shop', 1, { active: false });
    expect(edited.active).toBe(false);
    const shown = await gl.PipelineSchedules.show('acme/shop', 1);
    expect(shown.variables).toEqual([{ variable_type: 'env_var', key: 'TARGET', value: 'us' }]);
    await gl.PipelineSchedules.run('acme/shop', 1);
    expect((await gl.PipelineSchedules.show('acme/shop', 1)).last_pipeline).toMatchObject({ ref: 'master' });
    await gl.PipelineScheduleVariables.remove('acme/shop', 1, 'TARGET');
    expect(await gl.PipelineSchedules.all('acme/shop')).toHaveLength(1);
    await gl.PipelineSchedules.remove('acme/shop', 1);
    expect(await gl.PipelineSchedules.all('acme/shop')).toEqual([]);
    expect(await statusOf(gl.PipelineSchedules.create('acme/shop', 'bad', 'master', 'every day'))).toBe(400);
  });

  it('DeployKeys: create, all, edit, enable', async () => {
    const gl = api('maint');
    const k = await gl.DeployKeys.create('acme/shop', 'ci', sshKey(60), { canPush: true });
    expect(k).toMatchObject({ title: 'ci', can_push: true });
    expect((await gl.DeployKeys.all({ projectId: 'acme/shop' })).map((x) => x.id)).toEqual([k.id]);
    const edited = await gl.DeployKeys.edit('acme/shop', k.id, { title: 'deployer' });
    expect(edited).toMatchObject({ title: 'deployer', can_push: true });
    const enabled = await gl.DeployKeys.enable('acme/app', k.id);
    expect(enabled).toMatchObject({ id: k.id, title: 'deployer' });
    expect(await statusOf(api('dev').DeployKeys.all({ projectId: 'acme/shop' }))).toBe(403);
  });
});
