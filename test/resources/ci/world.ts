import { createFauxlab, type FauxlabOptions } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { apiPath, request, tok } from '../helpers.js';

export const NOW = '2021-03-01T12:00:00.000Z';

/**
 * The CI tests' world: one member of each role in the group that holds the projects, an outsider, and a
 * private project (`acme/app`) with branches, a tag, variables and pipelines in every kind of state.
 * `acme/app` pipelines, by id:
 * 1 master success (owner, 10:00, 300s, coverage, test report)
 * 2 feature failed (dev, 10:30, 120s, yaml errors)
 * 3 v1.0 (tag) canceled (maint, 11:00)
 * 4 master running (dev, since 11:58, 300s: success at 12:03)
 * 5 feature pending (owner, at 12:00; 90s, outcome failed)
 * 6 master manual (rep, 11:30)
 * 7 master skipped (creator, 11:40)
 */
export const ciWorld: ScenarioFile = {
  now: NOW,
  // These tests follow a pipeline's run, not the runner queue (jobs.test.ts covers the queue time).
  ci: { queue_time: 0 },
  users: [
    { username: 'root', name: 'Administrator', admin: true, tokens: tok('root') },
    { username: 'owner', name: 'Olive Owner', tokens: tok('owner') },
    { username: 'maint', name: 'Max Maintainer', tokens: tok('maint') },
    { username: 'dev', name: 'Dev User', tokens: tok('dev') },
    { username: 'rep', name: 'Rex Reporter', tokens: tok('rep') },
    { username: 'guest', name: 'Gus Guest', tokens: tok('guest') },
    { username: 'outsider', name: 'Otto Outsider', tokens: tok('outsider') },
  ],
  groups: [
    {
      path: 'acme',
      visibility: 'public',
      members: [
        { username: 'owner', access_level: 'owner' },
        { username: 'maint', access_level: 'maintainer' },
        { username: 'dev', access_level: 'developer' },
        { username: 'rep', access_level: 'reporter' },
        { username: 'guest', access_level: 'guest' },
      ],
    },
  ],
  projects: [
    {
      path: 'acme/app',
      visibility: 'private',
      creator: 'owner',
      branches: ['feature', { name: 'hotfix', sha: 'a'.repeat(40) }],
      tags: ['v1.0'],
      variables: [
        { key: 'DEPLOY_TOKEN', value: 'sekret-value', masked: true, protected: true },
        { key: 'REGION', value: 'eu', environment_scope: 'production' },
        { key: 'REGION', value: 'us', environment_scope: 'staging' },
        { key: 'CONFIG', value: 'a: 1', variable_type: 'file' },
      ],
      pipelines: [
        {
          ref: 'master',
          status: 'success',
          user: 'owner',
          created_at: '2021-03-01T10:00:00Z',
          duration: 300,
          coverage: 87.5,
          variables: [
            { key: 'NIGHTLY', value: 'true', variable_type: 'env_var' },
            { key: 'foo', value: 'bar' },
          ],
          test_report: {
            test_suites: [
              {
                name: 'rspec',
                test_cases: [
                  { name: 'works', classname: 'spec.app', status: 'success', execution_time: 0.5 },
                  {
                    name: 'breaks',
                    classname: 'spec.app',
                    status: 'failed',
                    execution_time: 1.25,
                    system_output: 'expected 1, got 2',
                  },
                  { name: 'later', classname: 'spec.app', status: 'skipped' },
                  { name: 'boom', classname: 'spec.app', status: 'error', stack_trace: 'at line 3' },
                ],
              },
              {
                name: 'jest',
                test_cases: [{ name: 'renders', classname: 'ui', status: 'success', execution_time: 0.25 }],
              },
            ],
          },
        },
        {
          ref: 'feature',
          status: 'failed',
          user: 'dev',
          created_at: '2021-03-01T10:30:00Z',
          duration: '2m',
          yaml_errors: 'jobs config should contain at least one visible job',
        },
        { ref: 'v1.0', tag: true, status: 'canceled', user: 'maint', created_at: '2021-03-01T11:00:00Z' },
        { ref: 'master', status: 'running', user: 'dev', created_at: '2021-03-01T11:58:00Z', duration: 300 },
        { ref: 'feature', status: 'pending', user: 'owner', duration: 90, outcome: 'failed' },
        { ref: 'master', status: 'manual', user: 'rep', created_at: '2021-03-01T11:30:00Z' },
        { ref: 'master', status: 'skipped', created_at: '2021-03-01T11:40:00Z' },
      ],
    },
    { path: 'acme/site', visibility: 'public' },
    { path: 'acme/closed', visibility: 'public', public_jobs: false },
    { path: 'acme/nojobs', visibility: 'public', builds_access_level: 'disabled' },
  ],
};

export function world(options: FauxlabOptions = {}) {
  return createFauxlab({ scenario: ciWorld, ...options });
}

export const APP = '/api/v4/projects/acme%2Fapp';

/** A request with a token (or none), a JSON body when given. */
export function call(
  fx: ReturnType<typeof world>,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
) {
  return request(fx, method, apiPath(path), { token, body });
}

export { json as body } from '../helpers.js';
