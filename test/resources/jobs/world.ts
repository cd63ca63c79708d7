import { createFauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { ciWorld } from '../ci/world.js';

export { APP, body, call, NOW } from '../ci/world.js';

export const WEB = '/api/v4/projects/acme%2Fweb';

/**
 * The CI world plus `acme/web` (private), whose pipelines describe their jobs:
 * 1 master, pending at `now`: compile (build, 10s, artifacts) -> lint (test, 5s, fails, allowed) and
 *   unit (test, 20s) -> deploy (deploy, manual, not allowed to fail, 5s). At +30s it waits for deploy.
 * 2 master, success at 10:00: compile with artifacts, downloadable by ref.
 */
export const jobsWorld: ScenarioFile = {
  ...ciWorld,
  projects: [
    ...(ciWorld.projects ?? []),
    {
      path: 'acme/web',
      visibility: 'private',
      creator: 'owner',
      pipelines: [
        {
          status: 'pending',
          user: 'dev',
          stages: ['build', 'test', 'deploy'],
          jobs: [
            {
              name: 'compile',
              stage: 'build',
              duration: 10,
              log: 'step 1\nstep 2\nstep 3\nstep 4\n',
              artifacts: [
                { path: 'bin/app.txt', content: 'hello' },
                { path: 'reports/result.json', content: '{"ok":true}' },
              ],
            },
            {
              name: 'lint',
              stage: 'test',
              duration: 5,
              outcome: 'failed',
              allow_failure: true,
              log: 'lint\n',
            },
            { name: 'unit', stage: 'test', duration: 20, log: 'unit\n' },
            { name: 'deploy', stage: 'deploy', when: 'manual', allow_failure: false, duration: 5 },
          ],
        },
        {
          status: 'success',
          user: 'owner',
          created_at: '2021-03-01T10:00:00Z',
          jobs: [
            {
              name: 'compile',
              stage: 'build',
              duration: 30,
              artifacts: [{ path: 'bin/app.txt', content: 'v0' }],
            },
          ],
        },
      ],
    },
  ],
};

export const jobsFx = () => createFauxlab({ scenario: jobsWorld });
