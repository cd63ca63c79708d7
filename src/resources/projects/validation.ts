/**
 * The Project model's validations and the project params shared by create, update and fork, with the
 * platform's messages.
 */
import { ACCESS, VISIBILITY_LEVEL, groupAccess } from '../../core/access.js';
import { ApiError, grapeError } from '../../core/errors.js';
import { p, parseParams, type Parsed, type RawParams } from '../../core/params.js';
import type { GroupRecord, PlatformState, UserRecord, Visibility } from '../../core/state.js';
import { projectNameKey, projectNameTaken } from '../../core/project-names.js';
import { iget, mcount, mget, tget } from '../../core/table.js';
import type { Project } from './model.js';
import { setting as appSetting, visibilityRestricted } from '../settings/model.js';

export type Errors = Record<string, string[]>;

const LEVELS = ['disabled', 'private', 'enabled'] as const;

/** `optional_project_params` (create and update), in declaration order. */
export const projectAttributes = {
  description: p.str(),
  build_git_strategy: p.str().values(['fetch', 'clone']),
  build_timeout: p.int(),
  auto_cancel_pending_pipelines: p.str().values(['disabled', 'enabled']),
  build_coverage_regex: p.str(),
  ci_config_path: p.str(),
  service_desk_enabled: p.bool(),
  issues_enabled: p.bool(),
  merge_requests_enabled: p.bool(),
  wiki_enabled: p.bool(),
  jobs_enabled: p.bool(),
  snippets_enabled: p.bool(),
  issues_access_level: p.str().values(LEVELS),
  repository_access_level: p.str().values(LEVELS),
  merge_requests_access_level: p.str().values(LEVELS),
  forking_access_level: p.str().values(LEVELS),
  wiki_access_level: p.str().values(LEVELS),
  builds_access_level: p.str().values(LEVELS),
  snippets_access_level: p.str().values(LEVELS),
  pages_access_level: p.str().values([...LEVELS, 'public']),
  operations_access_level: p.str().values(LEVELS),
  analytics_access_level: p.str().values(LEVELS),
  emails_disabled: p.bool(),
  show_default_award_emojis: p.bool(),
  shared_runners_enabled: p.bool(),
  resolve_outdated_diff_discussions: p.bool(),
  remove_source_branch_after_merge: p.bool(),
  container_registry_enabled: p.bool(),
  container_expiration_policy_attributes: p.hash(),
  lfs_enabled: p.bool(),
  visibility: p.str().values(['private', 'internal', 'public']),
  public_builds: p.bool(),
  request_access_enabled: p.bool(),
  only_allow_merge_if_pipeline_succeeds: p.bool(),
  allow_merge_on_skipped_pipeline: p.bool(),
  only_allow_merge_if_all_discussions_are_resolved: p.bool(),
  tag_list: p.strArray({ commaSeparated: true }),
  avatar: p.file(),
  printing_merge_request_link_enabled: p.bool(),
  merge_method: p.str().values(['ff', 'rebase_merge', 'merge']),
  suggestion_commit_message: p.str(),
  initialize_with_readme: p.bool(),
  ci_default_git_depth: p.int(),
  auto_devops_enabled: p.bool(),
  auto_devops_deploy_strategy: p.str().values(['continuous', 'manual', 'timed_incremental']),
  autoclose_referenced_issues: p.bool(),
  repository_storage: p.str(),
  packages_enabled: p.bool(),
};

/** EE's `optional_project_params_ee`: declared on paid tiers only. */
export const paidProjectAttributes = {
  approvals_before_merge: p.int(),
  mirror: p.bool(),
  mirror_user_id: p.int(),
  mirror_trigger_builds: p.bool(),
  only_mirror_protected_branches: p.bool(),
  mirror_overwrites_diverged_branches: p.bool(),
  external_authorization_classification_label: p.str(),
};

/** 14.0's `topics` (PROJECT_TOPICS_PARAM), declared at the releases that have it. */
export const topicsAttributes = { topics: p.strArray({ commaSeparated: true }) };

export type Attributes = Partial<
  Parsed<typeof projectAttributes> & Parsed<typeof paidProjectAttributes> & Parsed<typeof topicsAttributes>
>;

/**
 * Runs Grape's validators in declaration order and reports every failure in one 400, as Grape does:
 * declared params and group validators (`at_least_one_of`, `all_or_none_of`) interleave. The projects,
 * groups and users APIs all validate this way.
 */
export function validate(steps: (() => void)[]): void {
  const problems: string[] = [];
  for (const step of steps) {
    try {
      step();
    } catch (e) {
      const body = e instanceof ApiError ? (e.body as { error?: unknown }) : null;
      if (e instanceof ApiError && e.status === 400 && typeof body?.error === 'string')
        problems.push(body.error);
      else throw e;
    }
  }
  if (problems.length) throw grapeError(400, problems.join(', '));
}

/** Parses the project attributes (and, on paid tiers, the EE ones) into `out`. */
export function attributeSteps(
  raw: RawParams,
  paid: boolean,
  out: { attrs: Attributes },
  topics: boolean,
): (() => void)[] {
  const steps = [() => void Object.assign(out.attrs, parseParams(projectAttributes, raw))];
  if (topics) steps.push(() => void Object.assign(out.attrs, parseParams(topicsAttributes, raw)));
  if (paid) steps.push(() => void Object.assign(out.attrs, parseParams(paidProjectAttributes, raw)));
  return steps;
}

// ---------------------------------------------------------------------------------------------------
// Model validations

const NAME_FORMAT = /^[\p{L}\p{M}\p{Nd}\u00A9-\u{1f9c0}_][\p{L}\p{M}\p{Nd}\p{Pd}\u00A9-\u{1f9c0}_. ]*$/u;
export const NAME_FORMAT_MESSAGE =
  "can contain only letters, digits, emojis, '_', '.', dash, space. It must start with letter, digit, emoji or '_'.";
/** `Gitlab::PathRegex.project_path_format_regex`. */
export const PATH_FORMAT = /^[a-zA-Z0-9_.][a-zA-Z0-9_\-.]*$/;
export const PATH_FORMAT_MESSAGE =
  "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'";

export const validPath = (path: string) => PATH_FORMAT.test(path) && !/\.(git|atom)$/.test(path);

/** `parameterize`: what a name becomes as a path when it is not one already. */
export function parameterize(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-zA-Z0-9\-_]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase();
}

/** The namespace a project lives in, as the validations need it. */
export type NamespaceRef = { kind: 'group'; group: GroupRecord } | { kind: 'user'; user: UserRecord };

export const namespaceKeyOf = (ns: NamespaceRef) =>
  ns.kind === 'group' ? `group:${ns.group.id}` : `user:${ns.user.id}`;

export const namespacePath = (ns: NamespaceRef) =>
  ns.kind === 'group' ? ns.group.full_path : ns.user.username;

/**
 * The model's errors for a project's name, path and visibility in a namespace, keys in the order the
 * model validates them (name, path, visibility_level). `self` is the project being updated, if any.
 */
export function projectErrors(
  st: PlatformState,
  ns: NamespaceRef,
  name: string,
  path: string,
  visibility: Visibility,
  self?: Project,
): Errors {
  const errors: Errors = {};
  const add = (k: string, msg: string) => (errors[k] ??= []).push(msg);
  if (name.trim() === '') add('name', "can't be blank");
  if (name.length > 255) add('name', 'is too long (maximum is 255 characters)');
  if (!NAME_FORMAT.test(name)) add('name', NAME_FORMAT_MESSAGE);
  const nsKey = namespaceKeyOf(ns);
  if (name !== '' && projectNameTaken(st.idx.projectNames, projectNameKey(nsKey, name), self?.id))
    add('name', 'has already been taken');
  if (path === '') add('path', "can't be blank");
  if (!validPath(path)) add('path', PATH_FORMAT_MESSAGE);
  if (path.length > 255) add('path', 'is too long (maximum is 255 characters)');
  if (path !== '' && pathTaken(st, ns, nsKey, path, self)) add('path', 'has already been taken');
  if (ns.kind === 'group' && VISIBILITY_LEVEL[visibility] > VISIBILITY_LEVEL[ns.group.visibility])
    add('visibility_level', `${visibility} is not allowed in a ${ns.group.visibility} group.`);
  return errors;
}

/**
 * Whether a sibling of `self` in `ns` has `path`, compared case-insensitively: looked up in the full-path
 * index (`idx.projects`), which holds every project under its lower-cased `<namespace path>/<path>`. A
 * path with a `/` could name a project of a subgroup there, and an entry of another namespace would hide
 * nothing only if paths were unique: both are read from the siblings instead.
 */
function pathTaken(
  st: PlatformState,
  ns: NamespaceRef,
  nsKey: string,
  path: string,
  self?: Project,
): boolean {
  const lower = path.toLowerCase();
  if (!path.includes('/')) {
    const id = iget(st.idx.projects, `${namespacePath(ns)}/${path}`.toLowerCase());
    if (id === undefined || id === self?.id) return false;
    const hit = tget(st.projects, id);
    if (hit !== undefined && namespaceKeyOfProject(hit) === nsKey && hit.path.toLowerCase() === lower)
      return true;
  }
  for (const id of mget(st.idx.projectsByNamespace, nsKey))
    if (id !== self?.id && tget(st.projects, id)!.path.toLowerCase() === lower) return true;
  return false;
}

const namespaceKeyOfProject = (p: {
  namespace_kind: 'group' | 'user';
  namespace_id: number;
  owner_id: number | null;
}) => (p.namespace_kind === 'group' ? `group:${p.namespace_id}` : `user:${p.owner_id}`);

/** `Gitlab::VisibilityLevel.allowed_for?`: admins may use any level; others not a restricted one. */
export function visibilityAllowed(st: PlatformState, user: UserRecord, v: Visibility): boolean {
  return user.admin || !visibilityRestricted(st, v);
}

const LEVEL_NAMES: Record<Visibility, string> = {
  private: 'Private',
  internal: 'Internal',
  public: 'Public',
};
export const restrictedMessage = (v: Visibility) =>
  `${LEVEL_NAMES[v]} has been restricted by your GitLab administrator`;

/** `default_project_visibility` (a name or a level), else private. */
export function defaultVisibility(st: PlatformState): Visibility {
  return appSetting(st, 'default_project_visibility');
}

const CREATION_LEVELS: Record<string, number> = {
  noone: Infinity,
  maintainer: ACCESS.MAINTAINER,
  developer: ACCESS.DEVELOPER,
};

/** `create_projects` in a namespace: one's own personal namespace; a group per its project_creation_level. */
export function canCreateIn(st: PlatformState, user: UserRecord, ns: NamespaceRef): boolean {
  if (user.admin) return true;
  if (ns.kind === 'user') return ns.user.id === user.id;
  const setting = ns.group.project_creation_level;
  const fromSettings = appSetting(st, 'default_project_creation');
  const level =
    typeof setting === 'string' && setting in CREATION_LEVELS
      ? CREATION_LEVELS[setting]!
      : fromSettings === 0
        ? Infinity
        : fromSettings === 1
          ? ACCESS.MAINTAINER
          : ACCESS.DEVELOPER;
  return groupAccess(st, user, ns.group) >= level;
}

/** Personal projects left under the user's projects_limit (`can_create_project?`). */
export function projectsLimitMessage(st: PlatformState, user: UserRecord): string | null {
  const owned = mcount(st.idx.projectsByNamespace, `user:${user.id}`);
  if (user.projects_limit - owned > 0) return null;
  return user.projects_limit === 0
    ? 'Personal project creation is not allowed. Please contact your administrator with questions'
    : `Your project limit is ${user.projects_limit} projects! Please contact your administrator to increase it`;
}
