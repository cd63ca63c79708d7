/**
 * The one list of API areas. The route table, the empty state, the saved-state completion and the
 * control plane iterate it; nothing else names an area. The order is the routes' registration order
 * (an earlier route wins a path both match).
 */
import type { Area } from '../core/area.js';
import { registerCascades } from '../core/cascade.js';
import { registerMergeChecks } from '../core/merge-checks.js';
import { registerPushHooks } from '../core/push.js';
import { emptyState, type PlatformState, type Tier } from '../core/state.js';
import type { ApiRouter } from '../core/router.js';
import type { Minor } from '../core/versions.js';
import { usersArea } from './users/area.js';
import { groupsArea } from './groups/area.js';
import { projectsArea } from './projects/area.js';
import { ciArea } from './ci/area.js';
import { featuresArea } from './features/area.js';
import { oauthArea } from './oauth/area.js';
import { applicationsArea } from './applications/area.js';
import { tokensArea } from './tokens/area.js';
import { scimArea } from './scim/area.js';
import { issuablesArea } from './issuables/area.js';
import { settingsArea } from './settings/area.js';
import { snippetsArea } from './snippets/area.js';
import { templatesArea } from './templates/area.js';
import { markdownArea } from './markdown/area.js';
import { integrationsArea } from './integrations/area.js';
import { importExportArea } from './import_export/area.js';
import { metadataArea } from './metadata/area.js';
import { topicsArea } from './topics/area.js';
import { deployTokensArea } from './deploy_tokens/area.js';
import { adminVariablesArea } from './admin_variables/area.js';
import { userProfileArea } from './user_profile/area.js';
import { triggersArea } from './triggers/area.js';
import { runnersArea } from './runners/area.js';
import { resourceAccessTokensArea } from './resource_access_tokens/area.js';
import { namespacesArea } from './namespaces/area.js';
import { searchArea } from './search/area.js';
import { badgesArea } from './badges/area.js';
import { broadcastMessagesArea } from './broadcast_messages/area.js';
import { customAttributesArea } from './custom_attributes/area.js';
import { notificationSettingsArea } from './notification_settings/area.js';
import { projectSnippetsArea } from './project_snippets/area.js';
import { keysArea } from './keys/area.js';
import { forksArea } from './forks/area.js';
import { housekeepingArea } from './housekeeping/area.js';
import { transfersArea } from './transfers/area.js';
import { pagesDomainsArea } from './pages_domains/area.js';
import { avatarsArea } from './avatars/area.js';
import { groupExportArea } from './group_export/area.js';
import { environmentsArea } from './environments/area.js';
import { sidekiqArea } from './sidekiq/area.js';
import { releasesArea } from './releases/area.js';
import { wikisArea } from './wikis/area.js';
import { boardsArea } from './boards/area.js';
import { remoteMirrorsArea } from './remote_mirrors/area.js';
import { hooksArea } from './hooks/area.js';
import { eventsArea } from './events/area.js';
import { jobsArea } from './jobs/area.js';
import { repositoryArea } from './repository/area.js';
import { gitHttpArea } from './git_http/area.js';
import { packagesArea } from './packages/area.js';
import { deploymentsArea } from './deployments/area.js';
import { pipelineSchedulesArea } from './pipeline_schedules/area.js';
import { approvalsArea } from './approvals/area.js';
import { vulnerabilitiesArea } from './vulnerabilities/area.js';
import { deployKeysArea } from './deploy_keys/area.js';
import { pushRulesArea } from './push_rules/area.js';
import { terraformArea } from './terraform/area.js';
import { protectedTagsArea } from './protected_tags/area.js';
import { freezePeriodsArea } from './freeze_periods/area.js';
import { projectStatisticsArea } from './project_statistics/area.js';
import { jobTokenScopeArea } from './job_token_scope/area.js';
import { accessRequestsArea } from './access_requests/area.js';
import { featureFlagsArea } from './feature_flags/area.js';
import { clustersArea } from './clusters/area.js';
import { containerRegistryArea } from './container_registry/area.js';
import { repositoryStorageMovesArea } from './repository_storage_moves/area.js';
import { userFollowsArea } from './user_follows/area.js';
import { userPreferencesArea } from './user_preferences/area.js';
import { userCountsArea } from './user_counts/area.js';
import { appearanceArea } from './appearance/area.js';
import { planLimitsArea } from './plan_limits/area.js';

const LIST = [
  usersArea,
  groupsArea,
  projectsArea,
  ciArea,
  featuresArea,
  oauthArea,
  applicationsArea,
  tokensArea,
  scimArea,
  issuablesArea,
  settingsArea,
  snippetsArea,
  templatesArea,
  markdownArea,
  integrationsArea,
  importExportArea,
  metadataArea,
  topicsArea,
  deployTokensArea,
  adminVariablesArea,
  userProfileArea,
  triggersArea,
  runnersArea,
  resourceAccessTokensArea,
  environmentsArea,
  sidekiqArea,
  wikisArea,
  boardsArea,
  remoteMirrorsArea,
  hooksArea,
  eventsArea,
  jobsArea,
  repositoryArea,
  releasesArea,
  namespacesArea,
  searchArea,
  badgesArea,
  broadcastMessagesArea,
  customAttributesArea,
  notificationSettingsArea,
  projectSnippetsArea,
  keysArea,
  forksArea,
  housekeepingArea,
  transfersArea,
  pagesDomainsArea,
  avatarsArea,
  groupExportArea,
  gitHttpArea,
  packagesArea,
  deploymentsArea,
  pipelineSchedulesArea,
  deployKeysArea,
  pushRulesArea,
  protectedTagsArea,
  freezePeriodsArea,
  projectStatisticsArea,
  jobTokenScopeArea,
  featureFlagsArea,
  containerRegistryArea,
  repositoryStorageMovesArea,
  userFollowsArea,
  userPreferencesArea,
  userCountsArea,
  appearanceArea,
  planLimitsArea,
  approvalsArea,
  terraformArea,
  accessRequestsArea,
  clustersArea,
  vulnerabilitiesArea,
] as const;

/** The list with each descriptor's own type: the scenario schema's type is built from their fields. */
export type AreaList = typeof LIST;

export const AREAS: readonly Area[] = LIST;

// Deleting a project or group reaches every area's records through the descriptors' cleanups.
registerCascades(AREAS.flatMap((a) => (a.cascade ? [a.cascade] : [])));
registerPushHooks(AREAS.flatMap((a) => (a.push ? [a.push] : [])));
registerMergeChecks(AREAS.flatMap((a) => (a.mergeCheck ? [a.mergeCheck] : [])));

/** Every area's routes and job runners, registered on one router (mounted at `/api/v4`). */
export function registerApi(r: ApiRouter): void {
  for (const a of AREAS) {
    a.routes?.(r);
    a.jobs?.(r);
  }
}

/** An empty world: the core tables and every area's slice. */
export const emptyWorld = (tier: Tier = 'free', version?: Minor): PlatformState =>
  emptyState(AREAS, tier, version);
