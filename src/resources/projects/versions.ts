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
