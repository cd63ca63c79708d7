/**
 * The clusters tests' world: the CI tests' users (one member of each role in the public group `acme`,
 * an admin `root`, an outsider), `acme/app` (private) with an environment, `acme/sub/tool` in a
 * subgroup, `acme/ops` with its operations feature disabled, `acme/old` archived, and `alice/own` in
 * another namespace.
 */
import { createFauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { ciWorld } from '../ci/world.js';
import { tok } from '../helpers.js';
import { CERT } from '../pages_domains/certs.js';

export { CERT };
export const NOW = '2021-03-01T12:00:00.000Z';

export const clustersWorld: ScenarioFile = {
  now: NOW,
  users: [...(ciWorld.users ?? []), { username: 'alice', tokens: tok('alice') }],
  groups: [...(ciWorld.groups ?? []), { path: 'acme/sub', visibility: 'public' }],
  projects: [
    {
      path: 'acme/app',
      visibility: 'private',
      creator: 'owner',
      environments: [{ name: 'production' }],
    },
    { path: 'acme/sub/tool', visibility: 'private', creator: 'owner' },
    { path: 'acme/ops', visibility: 'private', creator: 'owner', operations_access_level: 'disabled' },
    { path: 'acme/old', visibility: 'private', creator: 'owner', archived: true },
    { path: 'alice/own', visibility: 'private' },
  ],
};

export const world = () => createFauxlab({ scenario: clustersWorld });
export type World = ReturnType<typeof world>;

export const APP = '/projects/acme%2Fapp';
export const ACME = '/groups/acme';

/** A cluster as a client adds one. */
export const K8S = {
  name: 'production',
  platform_kubernetes_attributes: { api_url: 'https://35.111.51.20', token: 's3cr3t-k8s-token' },
};
