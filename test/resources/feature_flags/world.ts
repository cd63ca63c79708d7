/**
 * The feature flag tests' world: the repository tests' users and group, a private `acme/app` with an
 * Unleash instance id, a user list and flags given by the scenario, a public `acme/site`, and a
 * public project whose operations feature is disabled.
 */
import { createFauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { repoWorld } from '../repository/world.js';

export const INSTANCE_ID = 'ff-client-token-app';

export const flagsWorld: ScenarioFile = {
  ...repoWorld,
  projects: [
    {
      ...repoWorld.projects![0]!,
      feature_flags_instance_id: INSTANCE_ID,
      feature_flags_user_lists: [{ name: 'beta testers', user_xids: 'alice,bob' }],
      feature_flags: [
        {
          name: 'new_checkout',
          description: 'The new checkout page',
          strategies: [
            { name: 'gitlabUserList', scopes: ['production'], user_list: 'beta testers' },
            {
              name: 'flexibleRollout',
              parameters: { groupId: 'default', rollout: '25', stickiness: 'DEFAULT' },
              scopes: ['review/*'],
            },
          ],
        },
        {
          name: 'dark_mode',
          active: false,
          strategies: [{ name: 'default', scopes: ['*'] }],
        },
        {
          name: 'old_banner',
          version: 'legacy_flag',
          scopes: [
            { environment_scope: '*', active: false, strategies: [{ name: 'default', parameters: {} }] },
            {
              environment_scope: 'production',
              active: true,
              strategies: [{ name: 'userWithId', parameters: { userIds: 'carol' } }],
            },
          ],
        },
      ],
    },
    ...repoWorld.projects!.slice(1, 2),
    { path: 'acme/ops-off', visibility: 'public', operations_access_level: 'disabled' },
  ],
};

export const flagsFx = () => createFauxlab({ scenario: flagsWorld });
