/** What changes in the projects area between the GitLab releases fauxlab answers as (src/core/versions.ts). */
import { versioned } from '../../core/versions.js';

/**
 * A project created through the API without `default_branch_name` set gets `main`, not `master`
 * (`Gitlab::DefaultBranch.value`, the `main_branch_over_master` flag on by default in 14.0).
 */
export const DEFAULT_BRANCH_MAIN = versioned({
  kind: 'behaviour',
  name: 'projects: the default branch of a new project is main',
  what: "a new project's default branch is `main` (before: `master`) unless `default_branch_name` is set",
  since: '14.0',
  source: 'doc/user/project/repository/branches/default.md (14.0); lib/gitlab/default_branch.rb',
});
