/** What changes in the groups area between the GitLab releases fauxlab answers as (src/core/versions.ts). */
import { versioned } from '../../core/versions.js';

/**
 * Paid tiers delay a group's deletion only while the instance's `delayed_group_deletion` is on
 * (`Group#adjourned_deletion?`, which 15.0 made read the new setting); before, whenever
 * `deletion_adjourned_period` is positive.
 */
export const GROUP_DELETION_BY_SETTING = versioned({
  kind: 'behaviour',
  name: 'groups: adjourned deletion follows delayed_group_deletion',
  what: 'paid tiers mark a deleted group for deletion only while `delayed_group_deletion` is on (before: whenever `deletion_adjourned_period` > 0)',
  since: '15.0',
  source: 'doc/api/settings.md delayed_group_deletion (introduced in 15.0, gitlab#352959)',
});
