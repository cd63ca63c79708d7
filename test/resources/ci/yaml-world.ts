import { createFauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { ciWorld } from './world.js';

export const YAML_PROJECT = '/api/v4/projects/acme%2Fyaml';

/** The main `.gitlab-ci.yml` of `acme/yaml` (master, and the branches made from it). */
export const MAIN_CI = `
stages: [build, test, deploy]
variables:
  GREETING: hello
include:
  - local: ci/extra.yml
.base:
  image: alpine
  before_script: [echo base]
compile:
  extends: .base
  stage: build
  script: make
unit:
  stage: test
  script:
    - make test
  allow_failure: true
lint:
  stage: test
  script: make lint
  except: [/^feature/]
deploy:
  stage: deploy
  script: make deploy
  environment:
    name: production
    url: https://example.com
  rules:
    - if: '$CI_COMMIT_BRANCH == "master" && $CI_PIPELINE_SOURCE == "api"'
      when: manual
    - if: '$FORCE_DEPLOY == "yes"'
release:
  stage: deploy
  script: make release
  only: [tags]
`;

/**
 * The CI world plus `acme/yaml` (private), whose repository carries a `.gitlab-ci.yml`:
 * - master: MAIN_CI with `ci/extra.yml` (job `docs`, stage test);
 * - branch `feature/x` from master; tag `v2.0` on master;
 * - branch `broken`: a job without script; branch `nothing`: only a job for tags;
 * - branch `badstage`: a job in a stage the file does not list; branch `needs`: a need of a later job.
 * One scenario pipeline (master, success) ran `unit` (fails after 7s, with a log) and `compile`.
 */
export const yamlWorld: ScenarioFile = {
  ...ciWorld,
  projects: [
    ...(ciWorld.projects ?? []),
    {
      path: 'acme/yaml',
      visibility: 'private',
      creator: 'owner',
      repository: {
        commits: [
          {
            id: 'main',
            branch: 'master',
            message: 'CI',
            author: 'owner',
            date: '2021-03-01T08:00:00Z',
            files: {
              '.gitlab-ci.yml': MAIN_CI,
              'ci/extra.yml': 'docs:\n  stage: test\n  script: make docs\n',
            },
          },
          {
            branch: 'broken',
            parents: ['main'],
            message: 'broken',
            author: 'owner',
            date: '2021-03-01T08:10:00Z',
            files: { '.gitlab-ci.yml': 'build:\n  stage: build\n' },
          },
          {
            branch: 'nothing',
            parents: ['main'],
            message: 'tags only',
            author: 'owner',
            date: '2021-03-01T08:20:00Z',
            files: { '.gitlab-ci.yml': 'release:\n  script: x\n  only: [tags]\n' },
          },
          {
            branch: 'badstage',
            parents: ['main'],
            message: 'bad stage',
            author: 'owner',
            date: '2021-03-01T08:30:00Z',
            files: { '.gitlab-ci.yml': 'stages: [build]\nunit:\n  stage: verify\n  script: x\n' },
          },
        ],
        branches: [{ name: 'feature/x', commit: 'main' }],
        tags: [{ name: 'v2.0', commit: 'main' }],
      },
      pipelines: [
        {
          ref: 'master',
          status: 'success',
          user: 'owner',
          created_at: '2021-03-01T09:00:00Z',
          jobs: [
            { name: 'compile', stage: 'build', duration: 3 },
            { name: 'unit', stage: 'test', duration: 7, outcome: 'failed', log: 'F.\n1 failure\n' },
          ],
        },
      ],
    },
  ],
};

export const yamlFx = () => createFauxlab({ scenario: yamlWorld });
