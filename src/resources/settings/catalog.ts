/**
 * Every application setting the API shows, in the order the platform's entity exposes them (`id`, then
 * the admin form's visible attributes, the external authorization ones, then the legacy aliases), with
 * its default on a fresh 13.x instance and the type `PUT /application/settings` declares for it.
 */
export type SettingKind =
  | 'bool'
  | 'int'
  | 'float'
  /** A decimal column: a number on input, a string in JSON, as Rails renders `BigDecimal` (`"1.0"`). */
  | 'decimal'
  | 'str'
  /** `private` / `internal` / `public` (stored as a level or a name, shown as a name). */
  | 'visibility'
  /** `restricted_visibility_levels`: levels or names, shown as names. */
  | 'levels'
  /** `Array[String]` coerced with `CommaSeparatedToArray`: a list, or one comma-separated string. */
  | 'list'
  /** `Array[String]` (no comma splitting). */
  | 'strings'
  | 'hash'
  /** `archive_builds_in_human_readable`: a duration such as `2 days`, stored in seconds. */
  | 'duration';

export interface SettingSpec {
  name: string;
  kind: SettingKind;
  default: unknown;
  /** Grape `values:`. */
  values?: readonly unknown[];
  /** Paid tiers only (EE settings): absent from responses and ignored on input below premium. */
  paid?: boolean;
  /** Shown but not accepted by `PUT` (the platform declares no param for it). */
  readOnly?: boolean;
  /** Accepted by `PUT` but never shown (secrets). */
  writeOnly?: boolean;
  /** The releases that have it (settings/versions.ts); none: every release. */
  span?: Versioned;
}

import { inSpan, type Minor, type Versioned } from '../../core/versions.js';
import {
  SETTING_CAN_CREATE_GROUP,
  SETTING_DELAYED_GROUP_DELETION,
  SETTING_DELAYED_PROJECT_DELETION,
  SETTING_DISABLE_ADMIN_OAUTH_SCOPES,
  SETTING_DISABLE_PERSONAL_ACCESS_TOKEN,
} from './versions.js';

const IMPORT_SOURCES = [
  'github',
  'bitbucket',
  'bitbucket_server',
  'gitlab',
  'google_code',
  'fogbugz',
  'git',
  'gitlab_project',
  'gitea',
  'manifest',
  'phabricator',
];

/** `KeyRestrictionValidator.supported_key_restrictions`: 0 (any size), the supported sizes, -1 (forbidden). */
const KEY_SIZES: Record<string, number[]> = {
  rsa: [1024, 2048, 3072, 4096],
  dsa: [1024, 2048, 3072],
  ecdsa: [256, 384, 521],
  ed25519: [256],
};
const keyRestriction = (type: string): SettingSpec => ({
  name: `${type}_key_restriction`,
  kind: 'int',
  default: 0,
  values: [0, ...KEY_SIZES[type]!, -1],
});

const s = (name: string, kind: SettingKind, def: unknown, extra: Partial<SettingSpec> = {}): SettingSpec => ({
  name,
  kind,
  default: def,
  ...extra,
});

/** The catalog, in response order. `commit_email_hostname` depends on the host and is filled per request. */
export const SETTINGS: readonly SettingSpec[] = [
  s('performance_bar_allowed_group_id', 'int', null),
  s('created_at', 'str', null, { readOnly: true }),
  s('updated_at', 'str', null, { readOnly: true }),
  s('admin_notification_email', 'str', null),
  s('after_sign_out_path', 'str', null),
  s('after_sign_up_text', 'str', null),
  s('akismet_api_key', 'str', null),
  s('akismet_enabled', 'bool', false),
  s('allow_local_requests_from_web_hooks_and_services', 'bool', false),
  s('allow_local_requests_from_system_hooks', 'bool', true),
  s('dns_rebinding_protection_enabled', 'bool', true),
  s('archive_builds_in_human_readable', 'duration', null),
  s('asset_proxy_enabled', 'bool', false),
  s('asset_proxy_secret_key', 'str', null, { writeOnly: true }),
  s('asset_proxy_url', 'str', null),
  s('asset_proxy_whitelist', 'list', null),
  s('authorized_keys_enabled', 'bool', true),
  s('auto_devops_enabled', 'bool', true),
  s('auto_devops_domain', 'str', null),
  s('can_create_group', 'bool', true, { span: SETTING_CAN_CREATE_GROUP }),
  s('container_expiration_policies_enable_historic_entries', 'bool', false),
  s('container_registry_token_expire_delay', 'int', 5),
  s('default_artifacts_expire_in', 'str', '30 days'),
  s('default_branch_name', 'str', null),
  s('default_branch_protection', 'int', 2, { values: [0, 1, 2] }),
  s('default_ci_config_path', 'str', null),
  s('default_group_visibility', 'visibility', 'private'),
  s('default_project_creation', 'int', 2, { values: [0, 1, 2] }),
  s('default_project_visibility', 'visibility', 'private'),
  s('default_projects_limit', 'int', 100000),
  s('default_snippet_visibility', 'visibility', 'private'),
  s('disable_admin_oauth_scopes', 'bool', false, { span: SETTING_DISABLE_ADMIN_OAUTH_SCOPES }),
  s('disabled_oauth_sign_in_sources', 'strings', []),
  s('domain_blacklist', 'list', []),
  s('domain_blacklist_enabled', 'bool', false),
  s('domain_whitelist', 'list', null),
  s('outbound_local_requests_whitelist', 'list', []),
  /** The allowlist as one text (`array_to_string`), written as one (`strings_to_array`). */
  s('outbound_local_requests_allowlist_raw', 'str', null),
  keyRestriction('dsa'),
  keyRestriction('ecdsa'),
  keyRestriction('ed25519'),
  s('eks_integration_enabled', 'bool', false),
  s('eks_account_id', 'str', null),
  s('eks_access_key_id', 'str', null),
  s('eks_secret_access_key', 'str', null, { writeOnly: true }),
  s('email_additional_text', 'str', null, { paid: true }),
  s('email_author_in_body', 'bool', false),
  s('enabled_git_access_protocol', 'str', null, { values: ['ssh', 'http', 'nil'] }),
  s('enforce_namespace_storage_limit', 'bool', false),
  s('enforce_terms', 'bool', false),
  s('first_day_of_week', 'int', 0, { values: [0, 1, 6] }),
  s('force_pages_access_control', 'bool', false),
  s('gitaly_timeout_default', 'int', 55),
  s('gitaly_timeout_medium', 'int', 30),
  s('gitaly_timeout_fast', 'int', 10),
  s('grafana_enabled', 'bool', false),
  s('grafana_url', 'str', '/-/grafana'),
  s('gravatar_enabled', 'bool', true),
  s('hashed_storage_enabled', 'bool', true),
  s('help_page_hide_commercial_content', 'bool', false),
  s('help_page_support_url', 'str', null),
  s('help_page_text', 'str', null),
  s('hide_third_party_offers', 'bool', false),
  s('home_page_url', 'str', null),
  s('housekeeping_bitmaps_enabled', 'bool', true),
  s('housekeeping_enabled', 'bool', true),
  s('housekeeping_full_repack_period', 'int', 50),
  s('housekeeping_gc_period', 'int', 200),
  s('housekeeping_incremental_repack_period', 'int', 10),
  s('html_emails_enabled', 'bool', true),
  s('import_sources', 'strings', IMPORT_SOURCES, { values: IMPORT_SOURCES }),
  s('max_artifacts_size', 'int', 100),
  s('max_attachment_size', 'int', 10),
  s('max_import_size', 'int', 50),
  s('max_pages_size', 'int', 100),
  s('metrics_method_call_threshold', 'int', 10),
  s('minimum_password_length', 'int', 8),
  s('mirror_available', 'bool', true),
  s('pages_domain_verification_enabled', 'bool', true),
  s('password_authentication_enabled_for_web', 'bool', true),
  s('password_authentication_enabled_for_git', 'bool', true),
  s('plantuml_enabled', 'bool', false),
  s('plantuml_url', 'str', null),
  s('polling_interval_multiplier', 'decimal', 1),
  s('project_export_enabled', 'bool', true),
  s('prometheus_metrics_enabled', 'bool', true),
  s('recaptcha_enabled', 'bool', false),
  s('recaptcha_private_key', 'str', null),
  s('recaptcha_site_key', 'str', null),
  s('login_recaptcha_protection_enabled', 'bool', false),
  s('receive_max_input_size', 'int', null),
  s('repository_checks_enabled', 'bool', true),
  s('repository_storages', 'strings', ['default']),
  s('repository_storages_weighted', 'hash', { default: 100 }, { readOnly: true }),
  s('require_two_factor_authentication', 'bool', false),
  s('restricted_visibility_levels', 'levels', []),
  keyRestriction('rsa'),
  s('send_user_confirmation_email', 'bool', false),
  s('session_expire_delay', 'int', 10080),
  s('shared_runners_enabled', 'bool', true),
  s('shared_runners_text', 'str', null),
  s('sign_in_text', 'str', null),
  s('signup_enabled', 'bool', true),
  s('sourcegraph_enabled', 'bool', false),
  s('sourcegraph_url', 'str', null),
  s('sourcegraph_public_only', 'bool', true),
  s('spam_check_endpoint_enabled', 'bool', false),
  s('spam_check_endpoint_url', 'str', null),
  s('terminal_max_session_time', 'int', 0),
  s('terms', 'str', null),
  s('throttle_authenticated_api_enabled', 'bool', false),
  s('throttle_authenticated_api_period_in_seconds', 'int', 3600),
  s('throttle_authenticated_api_requests_per_period', 'int', 7200),
  s('throttle_authenticated_web_enabled', 'bool', false),
  s('throttle_authenticated_web_period_in_seconds', 'int', 3600),
  s('throttle_authenticated_web_requests_per_period', 'int', 7200),
  s('throttle_unauthenticated_enabled', 'bool', false),
  s('throttle_unauthenticated_period_in_seconds', 'int', 3600),
  s('throttle_unauthenticated_requests_per_period', 'int', 3600),
  s('throttle_protected_paths_enabled', 'bool', false),
  s('throttle_protected_paths_period_in_seconds', 'int', 60),
  s('throttle_protected_paths_requests_per_period', 'int', 10),
  s('time_tracking_limit_to_hours', 'bool', false),
  s('two_factor_grace_period', 'int', 48),
  s('unique_ips_limit_enabled', 'bool', false),
  s('unique_ips_limit_per_user', 'int', 10),
  s('unique_ips_limit_time_window', 'int', 3600),
  s('usage_ping_enabled', 'bool', true),
  s('instance_statistics_visibility_private', 'bool', false),
  s('user_default_external', 'bool', false),
  s('user_show_add_ssh_key_message', 'bool', true),
  s('user_default_internal_regex', 'str', null),
  s('user_oauth_applications', 'bool', true),
  s('version_check_enabled', 'bool', true),
  s('web_ide_clientside_preview_enabled', 'bool', false),
  s('diff_max_patch_bytes', 'int', 102400),
  s('commit_email_hostname', 'str', null),
  s('protected_ci_variables', 'bool', false),
  s('local_markdown_version', 'int', 0),
  s('snowplow_collector_hostname', 'str', null),
  s('snowplow_cookie_domain', 'str', null),
  s('snowplow_enabled', 'bool', false),
  s('snowplow_app_id', 'str', null),
  s('snowplow_iglu_registry_url', 'str', null),
  s('push_event_hooks_limit', 'int', 3),
  s('push_event_activities_limit', 'int', 3),
  s('custom_http_clone_url_root', 'str', null),
  s('snippet_size_limit', 'int', 52428800),
  s('email_restrictions_enabled', 'bool', false),
  s('email_restrictions', 'str', null),
  s('issues_create_limit', 'int', 300),
  s('raw_blob_request_limit', 'int', 300),
  s('wiki_page_max_content_bytes', 'int', 52428800),
  s('container_registry_delete_tags_service_timeout', 'int', 250),
  s('file_template_project_id', 'int', null, { paid: true }),
  s('geo_node_allowed_ips', 'str', '0.0.0.0/0, ::/0', { paid: true }),
  s('geo_status_timeout', 'int', 10, { paid: true }),
  s('deletion_adjourned_period', 'int', 7, { paid: true }),
  s('delayed_project_deletion', 'bool', false, { paid: true, span: SETTING_DELAYED_PROJECT_DELETION }),
  s('delayed_group_deletion', 'bool', true, { paid: true, span: SETTING_DELAYED_GROUP_DELETION }),
  s('disable_personal_access_token', 'bool', false, {
    paid: true,
    span: SETTING_DISABLE_PERSONAL_ACCESS_TOKEN,
  }),
  s('external_auth_client_cert', 'str', null),
  s('external_auth_client_key', 'str', null),
  s('external_auth_client_key_pass', 'str', null),
  s('external_authorization_service_default_label', 'str', null),
  s('external_authorization_service_enabled', 'bool', false),
  s('external_authorization_service_timeout', 'float', 0.5),
  s('external_authorization_service_url', 'str', null),
];

export const SETTING_SPECS: ReadonlyMap<string, SettingSpec> = new Map(SETTINGS.map((x) => [x.name, x]));

/** Whether release `minor` has the setting (an unknown name: as any stored key, kept). */
export const settingIn = (name: string, minor: Minor): boolean => {
  const span = SETTING_SPECS.get(name)?.span;
  return span === undefined || inSpan(minor, span);
};

/** Legacy input names (kept until v5) and the setting each writes. */
export const ALIASES: Readonly<Record<string, string>> = {
  signin_enabled: 'password_authentication_enabled_for_web',
  password_authentication_enabled: 'password_authentication_enabled_for_web',
  allow_local_requests_from_hooks_and_services: 'allow_local_requests_from_web_hooks_and_services',
};

/**
 * Grape `given x: ->(val) { val } do requires ... end`: when the switch is given as true, these params
 * must come in the same request, whatever is stored already.
 */
export const GIVEN_REQUIRES: ReadonlyArray<[string, readonly string[]]> = [
  ['akismet_enabled', ['akismet_api_key']],
  ['domain_blacklist_enabled', ['domain_blacklist']],
  ['eks_integration_enabled', ['eks_account_id', 'eks_access_key_id', 'eks_secret_access_key']],
  [
    'housekeeping_enabled',
    [
      'housekeeping_bitmaps_enabled',
      'housekeeping_full_repack_period',
      'housekeeping_gc_period',
      'housekeeping_incremental_repack_period',
    ],
  ],
  ['plantuml_enabled', ['plantuml_url']],
  ['recaptcha_enabled', ['recaptcha_site_key', 'recaptcha_private_key']],
  ['login_recaptcha_protection_enabled', ['recaptcha_site_key', 'recaptcha_private_key']],
  ['require_two_factor_authentication', ['two_factor_grace_period']],
  ['shared_runners_enabled', ['shared_runners_text']],
  ['sourcegraph_enabled', ['sourcegraph_url']],
  ['enforce_terms', ['terms']],
  [
    'external_authorization_service_enabled',
    [
      'external_authorization_service_url',
      'external_authorization_service_default_label',
      'external_authorization_service_timeout',
    ],
  ],
  ['snowplow_enabled', ['snowplow_collector_hostname']],
];
