/** What changes in the job token scope area between the GitLab releases fauxlab answers as (src/core/versions.ts). */
import { versioned } from '../../core/versions.js';

/**
 * The project job token scope API (`lib/api/project_job_token_scope.rb`): the settings
 * (`GET`/`PATCH /projects/:id/job_token_scope`) and the inbound allowlist of projects (`GET`/`POST`
 * `.../allowlist`, `DELETE .../allowlist/:target_project_id`), all on the 16.4 page (gitlab#351740).
 */
export const JOB_TOKEN_SCOPE_SOURCE =
  'doc/api/project_job_token_scopes.md (16.4: the settings and the inbound project allowlist; gitlab#351740, gitlab!117842, !118357, !119675)';

/**
 * The groups allowlist (`.../groups_allowlist`, `Ci::JobToken::GroupScopeLink`): on the 17.3 page;
 * its first merge (gitlab!151704) was reverted in June 2024 (17.1).
 */
export const JOB_TOKEN_GROUPS_SOURCE =
  'doc/api/project_job_token_scopes.md "Get a project\'s CI/CD job token allowlist of groups" (17.3; gitlab#435903, the revert of gitlab!151704 in 17.1)';

/**
 * From 18.0 an instance enforces every project's inbound allowlist: the instance setting
 * `enforce_ci_inbound_job_token_scope_enabled` (gitlab!166952) is on by default, and
 * `ProjectCiCdSetting#inbound_job_token_scope_enabled?` answers true while it is, whatever the project's
 * own switch (a `PATCH` to `enabled: false` is taken and changes nothing the API shows; gitlab#582271).
 */
export const INBOUND_SCOPE_ENFORCED = versioned({
  kind: 'behaviour',
  name: 'job token scope: the inbound allowlist is enforced for every project',
  what: "`inbound_enabled` is always `true` (the instance enforces the allowlist by default); before, it follows the project's switch",
  since: '18.0',
  source:
    'doc/ci/jobs/ci_job_token.md (18.0: the allowlist enforced by default); "Add instance level job token application settings", gitlab!166952; gitlab#582271',
});
