import { createFauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { ciWorld } from '../ci/world.js';

export { APP, NOW, body, call } from '../ci/world.js';

/** The instance's registration token in these tests. */
export const REGISTRATION = 'instance-registration-token';

/**
 * The CI tests' world with runners, by id:
 * 1 instance `shared-1`, registered 11:59, last contact 11:59:30 (online)
 * 2 group (acme) `acme-group`, registered in February, last contact 11:00 (online until 13:00)
 * 3 project (acme/app) `app-docker`: locked, paused, tags docker and linux, no untagged jobs, never contacted
 * 4 project (acme/app, acme/site) `shared-specific`: last contact 09:00 (offline)
 * Jobs that started before 11:59 ran on runner 2, later ones on runner 1 (the oldest that may take them).
 */
export const runnersWorld: ScenarioFile = {
  ...ciWorld,
  runners_registration_token: REGISTRATION,
  runners: [
    {
      description: 'shared-1',
      token: 'sharedtoken0000000001',
      ip_address: '10.0.0.1',
      name: 'gitlab-runner',
      version: '13.12.0',
      revision: '7a6612da',
      platform: 'linux',
      architecture: 'amd64',
      created_at: '2021-03-01T11:59:00Z',
      contacted_at: '2021-03-01T11:59:30Z',
    },
    {
      type: 'group_type',
      group: 'acme',
      description: 'acme-group',
      token: 'grouptoken00000000002',
      created_at: '2021-02-01T00:00:00Z',
      contacted_at: '2021-03-01T11:00:00Z',
    },
    {
      type: 'project_type',
      projects: ['acme/app'],
      description: 'app-docker',
      token: 'apptoken0000000000003',
      locked: true,
      active: false,
      run_untagged: false,
      tag_list: ['docker', 'linux'],
      access_level: 'ref_protected',
      maximum_timeout: 3600,
      created_at: '2021-02-01T00:00:00Z',
    },
    {
      type: 'project_type',
      projects: ['acme/app', 'acme/site'],
      description: 'shared-specific',
      token: 'twotoken0000000000004',
      created_at: '2021-02-02T00:00:00Z',
      contacted_at: '2021-03-01T09:00:00Z',
    },
  ],
};

export const runnersFx = () => createFauxlab({ scenario: runnersWorld });
