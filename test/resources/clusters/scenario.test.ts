/**
 * Scenario files' `clusters` and `metrics_dashboard_annotations`: loaded as the API shows them, exported
 * with the token kept (as a CI variable's value is), and refused when they name what is not listed.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario, loadScenario, ScenarioError } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { apiPath, json, request } from '../helpers.js';
import { CERT, clustersWorld } from './world.js';

const scenario: ScenarioFile = {
  ...clustersWorld,
  clusters: [
    {
      project: 'acme/app',
      name: 'prod',
      user: 'maint',
      management_project: 'acme/ops',
      platform_kubernetes: { api_url: 'https://k8s.example.com', token: 'kept-token', ca_cert: CERT },
    },
    {
      type: 'group_type',
      group: 'acme',
      name: 'shared',
      platform_kubernetes: { api_url: 'https://g.example.com', token: 'g' },
    },
  ],
  metrics_dashboard_annotations: [
    {
      project: 'acme/app',
      environment: 'production',
      dashboard_path: 'config/prometheus/common_metrics.yml',
      starting_at: '2021-03-01T10:00:00Z',
      description: 'loaded',
    },
    { cluster: 0, dashboard_path: 'd.yml', starting_at: '2021-03-01T10:00:00Z', description: 'on a cluster' },
  ],
};

describe('scenario: clusters', () => {
  it('loaded clusters are served; export keeps the token and loads back to the same records', async () => {
    const fx = createFauxlab({ scenario });
    const res = await request(fx, 'GET', apiPath('/projects/acme%2Fapp/clusters/1'), { token: 'maint' });
    expect(await json(res)).toMatchObject({
      name: 'prod',
      user: { username: 'maint' },
      management_project: { path_with_namespace: 'acme/ops' },
      platform_kubernetes: { api_url: 'https://k8s.example.com', ca_cert: CERT.trim() },
    });
    const out = exportScenario(fx.state, { now: fx.clock.iso() });
    expect(out.clusters).toHaveLength(2);
    expect((out.clusters as { platform_kubernetes: { token: string } }[])[0]!.platform_kubernetes.token).toBe(
      'kept-token',
    );
    expect(out.metrics_dashboard_annotations).toMatchObject([
      { project: 'acme/app', environment: 'production', description: 'loaded' },
      { cluster: 0, description: 'on a cluster' },
    ]);
    const again = createFauxlab({ scenario: out });
    expect(exportScenario(again.state, { now: again.clock.iso() })).toEqual(out);
    expect(again.state.clusters.annotations.size).toBe(2);
  });

  it('an owner, user or management project not listed, a bad certificate, a duplicated scope are named', () => {
    let problems: string[] = [];
    try {
      loadScenario({
        ...clustersWorld,
        clusters: [
          { project: 'acme/nope', name: 'a', platform_kubernetes: { api_url: 'https://a', token: 't' } },
          {
            type: 'group_type',
            name: 'b',
            user: 'nobody',
            management_project: 'x/y',
            platform_kubernetes: { api_url: 'https://b', token: 't', ca_cert: 'junk' },
          },
          { group: 'acme', name: 'c', platform_kubernetes: { api_url: 'https://c', token: 't' } },
          { project: 'acme/app', name: 'd', platform_kubernetes: { api_url: 'https://d', token: 't' } },
          { project: 'acme/app', name: 'e', platform_kubernetes: { api_url: 'https://e', token: 't' } },
        ],
        metrics_dashboard_annotations: [
          { cluster: 9, dashboard_path: 'x', starting_at: '2021-03-01T10:00:00Z', description: 'x' },
          {
            project: 'acme/app',
            environment: 'nope',
            dashboard_path: 'x',
            starting_at: '2021-03-01T10:00:00Z',
            description: 'x',
          },
        ],
      });
    } catch (e) {
      problems = e instanceof ScenarioError ? e.problems : [String(e)];
    }
    expect(problems).toEqual([
      'clusters[0].project: no project "acme/nope"',
      'clusters[1].group: a group_type cluster needs its group',
      'clusters[1].user: no user "nobody"',
      'clusters[1].management_project: no project "x/y"',
      'clusters[1].platform_kubernetes.ca_cert: must be a valid PEM certificate',
      'clusters[2].project: a project_type cluster needs its project',
      'clusters[2].group: only a group_type cluster has a group',
      'clusters[4].environment_scope: cannot add duplicated environment scope',
      'metrics_dashboard_annotations[0].cluster: no cluster 9',
      'metrics_dashboard_annotations[1].environment: no environment "nope" in acme/app',
    ]);
  });
});
