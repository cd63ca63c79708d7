/**
 * Metrics dashboard annotations (`lib/api/metrics/dashboard/annotations.rb`): developers annotate an
 * environment's or a cluster's dashboard; the dashboard must exist (a predefined one, or a file on the
 * default branch), then `Metrics::Dashboard::Annotation`'s validations.
 */
import { describe, expect, it } from 'vitest';
import { apiPath, json, request } from '../helpers.js';
import { cgiUnescape } from '../../../src/resources/clusters/annotations.js';
import { ACME, APP, K8S, world, type World } from './world.js';

async function call(fx: World, method: string, path: string, token?: string, body?: unknown) {
  const res = await request(fx, method, apiPath(path), { token, body });
  return { status: res.status, headers: res.headers, body: await json(res) };
}

const SYSTEM = 'config/prometheus/common_metrics.yml';
const NOTE = { dashboard_path: SYSTEM, starting_at: '2021-03-01T10:00:00Z', description: 'deploy v1' };

async function environmentId(fx: World): Promise<number> {
  return (await call(fx, 'GET', `${APP}/environments`, 'root')).body[0].id;
}

describe('metrics dashboard annotations API', () => {
  it('POST /environments/:id/...: Entities::Metrics::Dashboard::Annotation, 201', async () => {
    const fx = world();
    const env = await environmentId(fx);
    const made = await call(fx, 'POST', `/environments/${env}/metrics_dashboard/annotations`, 'dev', {
      ...NOTE,
      ending_at: '2021-03-01T11:00:00+01:00',
    });
    expect(made).toMatchObject({ status: 201 });
    expect(made.body).toEqual({
      id: 1,
      starting_at: '2021-03-01T10:00:00.000Z',
      ending_at: '2021-03-01T10:00:00.000Z',
      dashboard_path: SYSTEM,
      description: 'deploy v1',
      environment_id: env,
      cluster_id: null,
    });
    expect(fx.state.clusters.annotations.size).toBe(1);
  });

  it('the dashboard: a file on the default branch, percent-decoded; otherwise the service error', async () => {
    const fx = world();
    const env = await environmentId(fx);
    const at = `/environments/${env}/metrics_dashboard/annotations`;
    const missing = await call(fx, 'POST', at, 'dev', {
      ...NOTE,
      dashboard_path: '.gitlab/dashboards/custom.yml',
    });
    expect(missing).toMatchObject({
      status: 400,
      body: { message: 'Dashboard with requested path can not be found', status: 'error' },
    });
    const commit = await call(fx, 'POST', `${APP}/repository/commits`, 'owner', {
      branch: 'master',
      commit_message: 'dashboard',
      actions: [{ action: 'create', file_path: '.gitlab/dashboards/custom.yml', content: 'dashboard: x\n' }],
    });
    expect(commit.status).toBe(201);
    const ok = await call(fx, 'POST', at, 'dev', {
      ...NOTE,
      dashboard_path: '.gitlab%2Fdashboards%2Fcustom.yml',
    });
    expect(ok).toMatchObject({ status: 201, body: { dashboard_path: '.gitlab/dashboards/custom.yml' } });
    expect(cgiUnescape('a+b%2Fc%zz%E2%9C%93')).toBe('a b/c%zz✓');
  });

  it("the model's validations as the service's error; Grape's for missing params", async () => {
    const fx = world();
    const at = `/environments/${await environmentId(fx)}/metrics_dashboard/annotations`;
    expect(await call(fx, 'POST', at, 'dev', {})).toMatchObject({
      status: 400,
      body: { error: 'starting_at is missing, dashboard_path is missing, description is missing' },
    });
    expect(
      await call(fx, 'POST', at, 'dev', {
        ...NOTE,
        description: 'd'.repeat(256),
        ending_at: '2021-03-01T09:00:00Z',
      }),
    ).toEqual({
      status: 400,
      headers: expect.anything(),
      body: {
        message: {
          description: ['is too long (maximum is 255 characters)'],
          ending_at: ["can't be before starting_at time"],
        },
        status: 'error',
      },
    });
    // A blank path is the system dashboard for the finder, then the model's presence check.
    expect(
      (await call(fx, 'POST', at, 'dev', { ...NOTE, dashboard_path: '', description: ' ' })).body,
    ).toEqual({
      message: { description: ["can't be blank"], dashboard_path: ["can't be blank"] },
      status: 'error',
    });
    expect((await call(fx, 'POST', at, 'dev', { ...NOTE, starting_at: 'yesterday' })).body).toEqual({
      error: 'starting_at is invalid',
    });
  });

  it('permissions: developers of the project; 404 Not found for an unknown id; anonymous 401', async () => {
    const fx = world();
    const at = `/environments/${await environmentId(fx)}/metrics_dashboard/annotations`;
    expect((await call(fx, 'POST', at, undefined, NOTE)).status).toBe(401);
    for (const who of ['rep', 'guest', 'outsider'])
      expect(await call(fx, 'POST', at, who, NOTE)).toMatchObject({
        status: 403,
        body: { message: '403 Forbidden' },
      });
    for (const who of ['dev', 'maint', 'root'])
      expect((await call(fx, 'POST', at, who, NOTE)).status).toBe(201);
    expect(
      await call(fx, 'POST', '/environments/9999/metrics_dashboard/annotations', 'dev', NOTE),
    ).toMatchObject({
      status: 404,
      body: { message: '404 Not found' },
    });
  });

  it('POST /clusters/:id/...: project and group clusters by their developers; an instance cluster by nobody', async () => {
    const fx = world();
    const proj = (await call(fx, 'POST', `${APP}/clusters/user`, 'maint', K8S)).body.id;
    const group = (await call(fx, 'POST', `${ACME}/clusters/user`, 'maint', K8S)).body.id;
    const instance = (await call(fx, 'POST', '/admin/clusters/add', 'root', K8S)).body.id;
    const made = await call(fx, 'POST', `/clusters/${proj}/metrics_dashboard/annotations`, 'dev', NOTE);
    expect(made).toMatchObject({ status: 201, body: { environment_id: null, cluster_id: proj } });
    expect(
      (await call(fx, 'POST', `/clusters/${proj}/metrics_dashboard/annotations`, 'rep', NOTE)).status,
    ).toBe(403);
    expect(
      (
        await call(fx, 'POST', `/clusters/${group}/metrics_dashboard/annotations`, 'dev', {
          ...NOTE,
          dashboard_path: 'config/prometheus/cluster_metrics.yml',
        })
      ).status,
    ).toBe(201);
    expect(
      (await call(fx, 'POST', `/clusters/${instance}/metrics_dashboard/annotations`, 'root', NOTE)).status,
    ).toBe(403);
    // Deleting a cluster takes its annotations.
    expect((await call(fx, 'DELETE', `${APP}/clusters/${proj}`, 'maint')).status).toBe(204);
    expect(fx.state.clusters.annotations.size).toBe(1);
  });
});
