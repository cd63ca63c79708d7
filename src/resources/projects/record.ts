/** The project record's type: the core's fields and the ones the projects area adds. */
import type { ProjectRecord } from '../../core/state.js';

/** A feature's access level (`ProjectFeature`): who may use issues, the repository, the wiki, .... */
export type FeatureAccess = 'enabled' | 'private' | 'disabled' | 'public';

/** The container registry cleanup policy as a new project gets it. */
export interface ExpirationPolicy {
  cadence: string;
  enabled: boolean;
  keep_n: number | null;
  older_than: string | null;
  name_regex: string | null;
  name_regex_keep: string | null;
  /** null: a day after the project's creation. */
  next_run_at: string | null;
}

/**
 * The fields a project record carries beyond the core's, with the platform's defaults (see
 * `createProject`). The entity functions read them; API writes set them.
 */
export interface ProjectExtra {
  /** Sorted topic names (the 13.x `tag_list`). */
  tag_list: readonly string[];
  forked_from_project_id: number | null;
  /** The day an adjourned deletion was requested (paid tiers); the project is purged `deletion_adjourned_period` days later. */
  marked_for_deletion_on: string | null;
  avatar_url: string | null;
  issues_access_level: FeatureAccess;
  repository_access_level: FeatureAccess;
  merge_requests_access_level: FeatureAccess;
  forking_access_level: FeatureAccess;
  wiki_access_level: FeatureAccess;
  builds_access_level: FeatureAccess;
  snippets_access_level: FeatureAccess;
  pages_access_level: FeatureAccess;
  operations_access_level: FeatureAccess;
  analytics_access_level: FeatureAccess;
  packages_enabled: boolean;
  resolve_outdated_diff_discussions: boolean;
  container_registry_enabled: boolean;
  container_expiration_policy: Readonly<ExpirationPolicy>;
  service_desk_enabled: boolean;
  emails_disabled: boolean | null;
  shared_runners_enabled: boolean;
  lfs_enabled: boolean;
  import_status: string;
  import_error: string | null;
  import_url: string | null;
  runners_token: string;
  ci_default_git_depth: number | null;
  public_jobs: boolean;
  build_git_strategy: 'fetch' | 'clone';
  build_timeout: number;
  auto_cancel_pending_pipelines: 'enabled' | 'disabled';
  build_coverage_regex: string | null;
  ci_config_path: string | null;
  only_allow_merge_if_pipeline_succeeds: boolean;
  allow_merge_on_skipped_pipeline: boolean | null;
  request_access_enabled: boolean;
  only_allow_merge_if_all_discussions_are_resolved: boolean;
  remove_source_branch_after_merge: boolean;
  printing_merge_request_link_enabled: boolean;
  merge_method: 'merge' | 'rebase_merge' | 'ff';
  suggestion_commit_message: string | null;
  /** null: follow the instance setting. */
  auto_devops_enabled: boolean | null;
  auto_devops_deploy_strategy: 'continuous' | 'manual' | 'timed_incremental';
  autoclose_referenced_issues: boolean;
  repository_storage: string;
  star_count: number;
  forks_count: number;
  open_issues_count: number;
  approvals_before_merge: number;
  mirror: boolean;
  mirror_user_id: number | null;
  mirror_trigger_builds: boolean;
  only_mirror_protected_branches: boolean | null;
  mirror_overwrites_diverged_branches: boolean | null;
  external_authorization_classification_label: string | null;
  custom_attributes: Readonly<Record<string, string>>;
}

/** A project record with its typed extra fields. */
export type Project = ProjectRecord & ProjectExtra;
