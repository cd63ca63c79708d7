import { createFauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { ciWorld } from '../ci/world.js';

export { APP, body, call, NOW } from '../ci/world.js';

export const SHOP = '/api/v4/projects/acme%2Fshop';

/**
 * The CI world plus `acme/shop` (private), whose pipeline 8 (master, pending at `now`, by dev) builds
 * (10s, log of four lines), tests (20s) and deploys: `staging` at once (5s), `production` by hand
 * (manual, 5s). `staging` is also listed with its URL; one deployment made through the API before.
 */
export const deployWorld: ScenarioFile = {
  ...ciWorld,
  projects: [
    ...(ciWorld.projects ?? []),
    {
      path: 'acme/shop',
      visibility: 'private',
      creator: 'owner',
      tags: ['v1.0'],
      environments: [{ name: 'staging', external_url: 'https://staging.example.com' }],
      deployments: [
        {
          environment: 'staging',
          status: 'success',
          user: 'maint',
          created_at: '2021-03-01T09:00:00Z',
          updated_at: '2021-03-01T09:05:00Z',
        },
      ],
      pipelines: [
        {
          status: 'pending',
          user: 'dev',
          stages: ['build', 'test', 'deploy'],
          jobs: [
            { name: 'compile', stage: 'build', duration: 10, log: 'one\ntwo\nthree\nfour\n' },
            { name: 'unit', stage: 'test', duration: 20, log: 'ok\n' },
            { name: 'stage', stage: 'deploy', duration: 5, environment: 'staging' },
            { name: 'ship', stage: 'deploy', when: 'manual', duration: 5, environment: 'production' },
          ],
        },
      ],
    },
  ],
};

export const deployFx = () => createFauxlab({ scenario: deployWorld });
