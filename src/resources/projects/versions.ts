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

/**
 * `topics` (`topic_names`) beside `tag_list`, which stays as its deprecated alias; the `topics` param
 * of `POST /projects` and `PUT /projects/:id` sets them as `tag_list` does.
 */
export const PROJECT_TOPICS = versioned({
  kind: 'field',
  name: 'project.topics',
  what: '`topics` after `tag_list` (the same names; `tag_list` stays, deprecated)',
  since: '14.0',
  source:
    'doc/api/projects.md (14.0: `tag_list` deprecated in favour of `topics`); lib/api/entities/basic_project_details.rb',
});

export const PROJECT_TOPICS_PARAM = versioned({
  kind: 'param',
  name: 'POST /projects, PUT /projects/:id topics',
  what: '`topics` (an array or comma-separated) sets the topics as the deprecated `tag_list` does, and counts as an update',
  since: '14.0',
  source:
    'doc/api/projects.md (14.0: `topics` added, `tag_list` deprecated); lib/api/helpers/projects_helpers.rb',
});

/**
 * Paid tiers delay a project's deletion only where delayed project deletion is on: the instance's
 * `delayed_project_deletion` (14.2, the default of new groups' `delayed_project_removal`); before,
 * whenever `deletion_adjourned_period` is positive.
 */
export const PROJECT_DELETION_BY_SETTING = versioned({
  kind: 'behaviour',
  name: 'projects: adjourned deletion follows delayed_project_deletion',
  what: 'paid tiers mark a deleted project for deletion only while `delayed_project_deletion` is on (before: whenever `deletion_adjourned_period` > 0)',
  since: '14.2',
  source:
    'doc/api/settings.md delayed_project_deletion; "Add instance setting for delayed project deletion", gitlab!67230 (14.2)',
});
