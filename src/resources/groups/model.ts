/**
 * Group records beyond the core's fields, and the group writes the API needs on top of the projects
 * model's `createGroup` / `deleteGroup` / `setMember` / `removeMember`: validation as the platform's
 * Namespace, Group and Route models report it, renames that keep every path below in step, and the
 * member rules (inherited levels, last owners).
 */
import type { Draft } from 'immer';
import { VISIBILITY_LEVEL } from '../../core/access.js';
import type { GroupRecord, PlatformState, ProjectRecord, Visibility } from '../../core/state.js';
import { idelete, iget, iset, mget, tget } from '../../core/table.js';
import { setting, visibilityRestricted as restricted } from '../settings/model.js';

type S = Draft<PlatformState>;

export type ProjectCreationLevel = 'noone' | 'maintainer' | 'developer';
export type SubgroupCreationLevel = 'owner' | 'maintainer';
export type SharedRunnersSetting = 'enabled' | 'disabled_with_override' | 'disabled_and_unoverridable';

export const PROJECT_CREATION_LEVELS: readonly ProjectCreationLevel[] = ['noone', 'maintainer', 'developer'];
export const SUBGROUP_CREATION_LEVELS: readonly SubgroupCreationLevel[] = ['owner', 'maintainer'];
export const SHARED_RUNNERS_SETTINGS: readonly SharedRunnersSetting[] = [
  'disabled_and_unoverridable',
  'disabled_with_override',
  'enabled',
];

/** The fields a group record carries beyond the core's, with the platform's defaults (see `newGroupRecord`). */
export interface GroupExtra {
  /** `Parent / Child`: the route name, kept in step with renames like `full_path`. */
  full_name: string;
  share_with_group_lock: boolean;
  require_two_factor_authentication: boolean;
  two_factor_grace_period: number;
  project_creation_level: ProjectCreationLevel;
  /** null: follow the parent, then the instance setting. */
  auto_devops_enabled: boolean | null;
  subgroup_creation_level: SubgroupCreationLevel;
  emails_disabled: boolean | null;
  mentions_disabled: boolean | null;
  lfs_enabled: boolean;
  default_branch_protection: number;
  /** An uploaded avatar's path (`/uploads/...`, the renderer adds the base URL) or an absolute URL. */
  avatar_url: string | null;
  request_access_enabled: boolean;
  shared_runners_setting: SharedRunnersSetting;
  /** Paid tiers from here on. */
  membership_lock: boolean;
  ldap_cn: string | null;
  ldap_access: number | null;
  file_template_project_id: number | null;
  /** The day an adjourned deletion was requested (`YYYY-MM-DD`). */
  marked_for_deletion_on: string | null;
  shared_runners_minutes_limit: number | null;
  extra_shared_runners_minutes_limit: number | null;
  runners_token: string;
  custom_attributes: Readonly<Record<string, string>>;
}

/** A group record with its typed extra fields. */
export type Group = GroupRecord & GroupExtra;

/** What `createGroup` takes: the core's input plus any extra field to override a default. */
export interface GroupInput {
  path: string;
  name?: string;
  parent_id?: number | null;
  description?: string;
  visibility?: Visibility;
  [field: string]: unknown;
}

const NO_ATTRIBUTES: Readonly<Record<string, string>> = Object.freeze({});

/** Fields `newGroupRecord` computes, which an input's own copies may not replace. */
const COMPUTED = new Set([
  'id',
  'name',
  'path',
  'full_path',
  'full_name',
  'parent_id',
  'description',
  'visibility',
  'created_at',
  'updated_at',
]);

const TOKEN_CHARS = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ123456789-_';

/** A group's runners token: 20 characters that depend only on its id (no crypto: creation is a hot path). */
export function groupRunnersToken(id: number): string {
  let s = (Math.imul(id, 0x85ebca6b) ^ 0x27d4eb2f) >>> 0;
  let out = '';
  for (let i = 0; i < 20; i++) {
    s = (Math.imul(s ^ (s >>> 16), 0x7feb352d) + 0x68e31da4) >>> 0;
    out += TOKEN_CHARS[((s ^ (s >>> 15)) >>> 0) % TOKEN_CHARS.length];
  }
  return out;
}

const LEVEL_OF_CREATION: Record<number, ProjectCreationLevel> = {
  0: 'noone',
  1: 'maintainer',
  2: 'developer',
};

/**
 * A new group record: every field in one literal, so that all records share one hidden class (creation
 * runs 100k times when a world is generated), then the input's extra fields over the defaults. Defaults
 * that follow instance settings take the setting's value at creation.
 */
export function newGroupRecord(
  st: PlatformState,
  id: number,
  input: GroupInput,
  parent: GroupRecord | undefined,
  now: string,
): Group {
  const p = parent as Group | undefined;
  const name = input.name ?? input.path;
  const protection = setting(st, 'default_branch_protection');
  const creation = setting(st, 'default_project_creation');
  const group: Group = {
    id,
    name,
    path: input.path,
    full_path: p ? `${p.full_path}/${input.path}` : input.path,
    full_name: p ? `${p.full_name ?? p.name} / ${name}` : name,
    parent_id: p?.id ?? null,
    description: input.description ?? '',
    visibility: input.visibility ?? 'private',
    created_at: now,
    updated_at: now,
    share_with_group_lock: false,
    require_two_factor_authentication: false,
    two_factor_grace_period: 48,
    project_creation_level: (typeof creation === 'number' && LEVEL_OF_CREATION[creation]) || 'developer',
    auto_devops_enabled: null,
    subgroup_creation_level: 'maintainer',
    emails_disabled: null,
    mentions_disabled: null,
    lfs_enabled: true,
    default_branch_protection: typeof protection === 'number' ? protection : 2,
    avatar_url: null,
    request_access_enabled: true,
    shared_runners_setting: 'enabled',
    membership_lock: false,
    ldap_cn: null,
    ldap_access: null,
    file_template_project_id: null,
    marked_for_deletion_on: null,
    shared_runners_minutes_limit: null,
    extra_shared_runners_minutes_limit: null,
    runners_token: groupRunnersToken(id),
    custom_attributes: NO_ATTRIBUTES,
  };
  for (const k in input) {
    if (COMPUTED.has(k)) continue;
    const v = input[k];
    if (v !== undefined) (group as Record<string, unknown>)[k] = v;
  }
  // A locked parent locks its new subgroups (`sync_share_with_group_lock_with_parent`).
  if (p?.share_with_group_lock) group.share_with_group_lock = true;
  return group;
}

// ---------------------------------------------------------------------------------------------------
// Tree walks

export const groupById = (st: PlatformState, id: number) => tget(st.groups, id) as Group | undefined;

/** The group and its ancestors, nearest first. */
export function selfAndAncestors(st: PlatformState, g: GroupRecord): Group[] {
  const out: Group[] = [];
  for (
    let x: GroupRecord | undefined = g;
    x;
    x = x.parent_id === null ? undefined : tget(st.groups, x.parent_id)
  )
    out.push(x as Group);
  return out;
}

/** Ids of the group's descendants (not itself), parents before children. */
export function descendantIds(st: PlatformState, id: number): number[] {
  const out: number[] = [];
  for (let i = -1; i < out.length; i++)
    for (const child of mget(st.idx.subgroups, String(i < 0 ? id : out[i]))) out.push(child);
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Validation, as the models report it

/** `Gitlab::PathRegex.namespace_format_message`. */
export const NAMESPACE_FORMAT_MESSAGE =
  "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.";
/** `Gitlab::Regex.group_name_regex_message`. */
export const GROUP_NAME_MESSAGE =
  "can contain only letters, digits, emojis, '_', '.', dash, space, parenthesis. It must start with letter, digit, emoji or '_'.";
export const HTML_SAFETY_MESSAGE =
  'cannot contain HTML/XML tags, including any word between angle brackets (&lt;,&gt;).';

const NAMESPACE_FORMAT = /^(?:[a-zA-Z0-9_.][a-zA-Z0-9_\-.]*[a-zA-Z0-9_-]|[a-zA-Z0-9_])(?<!\.git|\.atom)$/;
const GROUP_NAME = /^[\p{L}\p{N}_\u{00A9}-\u{1F9FF}][\p{L}\p{N}\p{Pd}_\u{00A9}-\u{1F9FF}(). ]*$/u;

/** `Gitlab::PathRegex::TOP_LEVEL_ROUTES`: no top-level namespace may take these. */
const TOP_LEVEL_ROUTES = [
  '-',
  '.well-known',
  '404.html',
  '422.html',
  '500.html',
  '502.html',
  '503.html',
  'abuse_reports',
  'admin',
  'api',
  'apple-touch-icon-precomposed.png',
  'apple-touch-icon.png',
  'assets',
  'autocomplete',
  'ci',
  'dashboard',
  'deploy.html',
  'explore',
  'favicon.ico',
  'files',
  'groups',
  'header_logo_dark.png',
  'header_logo_light.png',
  'health_check',
  'help',
  'import',
  'invites',
  'jwt',
  'koding',
  'notification_settings',
  'oauth',
  'profile',
  'projects',
  'public',
  'robots.txt',
  's',
  'search',
  'sent_notifications',
  'slash-command-logo.png',
  'snippets',
  'u',
  'unsubscribes',
  'uploads',
  'users',
];

/** `ILLEGAL_GROUP_PATH_WORDS` (project wildcard routes and group routes): not for a nested segment. */
const GROUP_PATH_WORDS = [
  '-',
  'badges',
  'blame',
  'blob',
  'builds',
  'commits',
  'create',
  'create_dir',
  'edit',
  'environments/folders',
  'files',
  'find_file',
  'gitlab-lfs/objects',
  'info/lfs/objects',
  'new',
  'preview',
  'raw',
  'refs',
  'tree',
  'update',
  'wikis',
];

/**
 * `full_namespace_path_regex`: a segment may not start a reserved word followed by `/` (case-insensitive;
 * some words span two segments, so the rest of the path counts).
 */
function reservedPath(fullPath: string): boolean {
  const segs = fullPath.toLowerCase().split('/');
  for (let i = 0; i < segs.length; i++) {
    const rest = `${segs.slice(i).join('/')}/`;
    const words = i === 0 ? TOP_LEVEL_ROUTES : GROUP_PATH_WORDS;
    if (words.some((w) => rest.startsWith(`${w}/`))) return true;
  }
  return false;
}

/** Rails' FullSanitizer changes any text holding markup or quote characters. */
const htmlUnsafe = (s: string) => /[<>"']/.test(s);

/** The route (full path) a namespace or project already holds, case-insensitively. */
export function routeTaken(st: PlatformState, fullPath: string, exceptGroup?: number): boolean {
  const key = fullPath.toLowerCase();
  const ns = iget(st.idx.namespaces, key);
  if (ns !== undefined && ns !== exceptGroup) return true;
  return iget(st.idx.projects, key) !== undefined;
}

export interface GroupChanges {
  name?: string;
  path?: string;
  description?: string;
  visibility?: Visibility;
  two_factor_grace_period?: number;
}

export type Errors = Record<string, string[]>;

const NUMBER_OF_ANCESTORS_ALLOWED = 20;

/**
 * The model's errors hash for a create (`existing` absent, `parent` the chosen parent) or an update, keys
 * in the order the Namespace, Group and Route validations add them. Route errors (a taken path) are moved
 * onto `path` after validation, so they come last among the path's messages.
 */
export function groupValidationErrors(
  st: PlatformState,
  ch: GroupChanges,
  parent: Group | undefined,
  existing?: Group,
): Errors {
  const errors: Errors = {};
  const add = (k: string, msg: string) => (errors[k] ??= []).push(msg);
  const name = ch.name ?? existing?.name ?? '';
  const path = ch.path ?? existing?.path ?? '';
  const description = ch.description ?? existing?.description ?? '';
  const nameChanged = existing ? ch.name !== undefined && ch.name !== existing.name : ch.name !== undefined;
  const pathChanged = existing ? ch.path !== undefined && ch.path !== existing.path : true;
  const fullPath = parent ? `${parent.full_path}/${path}` : path;

  if (name.trim() === '') add('name', "can't be blank");
  else if ([...name].length > 255) add('name', 'is too long (maximum is 255 characters)');
  if ([...description].length > 255) add('description', 'is too long (maximum is 255 characters)');
  if (path.trim() === '') add('path', "can't be blank");
  if (path.length > 255) add('path', 'is too long (maximum is 255 characters)');
  if (!NAMESPACE_FORMAT.test(path)) add('path', NAMESPACE_FORMAT_MESSAGE);
  else if (reservedPath(fullPath)) add('path', `${path} is a reserved name`);
  if (pathChanged && path.length < 2) add('path', 'is too short (minimum is 2 characters)');
  if (parent && selfAndAncestors(st, parent).length > NUMBER_OF_ANCESTORS_ALLOWED)
    add('parent_id', 'has too deep level of nesting');

  const visibility = ch.visibility ?? existing?.visibility ?? 'private';
  const level = VISIBILITY_LEVEL[visibility];
  if (existing) {
    for (const pid of mget(st.idx.projectsByNamespace, `group:${existing.id}`)) {
      const p = tget(st.projects, pid) as ProjectRecord | undefined;
      if (p && VISIBILITY_LEVEL[p.visibility] > level) {
        add(
          'visibility_level',
          `${visibility} is not allowed since this group contains projects with higher visibility.`,
        );
        break;
      }
    }
    for (const cid of mget(st.idx.subgroups, String(existing.id))) {
      const child = tget(st.groups, cid);
      if (child && VISIBILITY_LEVEL[child.visibility] > level) {
        add(
          'visibility_level',
          `${visibility} is not allowed since there are sub-groups with higher visibility.`,
        );
        break;
      }
    }
  }
  if (parent && level > VISIBILITY_LEVEL[parent.visibility])
    add(
      'visibility_level',
      `${visibility} is not allowed since the parent group has a ${parent.visibility} visibility.`,
    );
  const grace = ch.two_factor_grace_period;
  if (grace !== undefined && grace < 0) add('two_factor_grace_period', 'must be greater than or equal to 0');
  if (nameChanged) {
    if (name !== '' && htmlUnsafe(name)) add('name', HTML_SAFETY_MESSAGE);
    if (!GROUP_NAME.test(name)) add('name', GROUP_NAME_MESSAGE);
  }

  // The route: its own length and presence checks, then uniqueness, all reported on `path`.
  if (pathChanged) {
    const route: string[] = [];
    if (fullPath.length < 1) route.push('is too short (minimum is 1 character)');
    else if (fullPath.length > 255) route.push('is too long (maximum is 255 characters)');
    if (fullPath.trim() === '') route.push("can't be blank");
    else if (routeTaken(st, fullPath, existing?.id)) route.push('has already been taken');
    for (const msg of route) add('path', msg);
  }
  return errors;
}

/** Ruby's `String#inspect` for the messages of an errors hash. */
function rubyString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    const next = s[i + 1];
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '#' && (next === '{' || next === '$' || next === '@')) out += '\\#';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\u001b') out += '\\e';
    else if (ch < ' ' || ch === '\u007f')
      out += `\\x${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** An errors hash as Ruby 2.7 prints it (`{:path=>["has already been taken"]}`), for messages built by interpolation. */
export function rubyInspect(errors: Errors): string {
  const entries = Object.entries(errors).map(([k, msgs]) => `:${k}=>[${msgs.map(rubyString).join(', ')}]`);
  return `{${entries.join(', ')}}`;
}

/** Whether `visibility` is restricted for non-admins (`restricted_visibility_levels`). */
export function visibilityRestricted(st: PlatformState, visibility: Visibility): boolean {
  return restricted(st, visibility);
}

/** `default_group_visibility`, as a level name or number in the settings; private when unset. */
export function defaultGroupVisibility(st: PlatformState): Visibility {
  return setting(st, 'default_group_visibility');
}

// ---------------------------------------------------------------------------------------------------
// Updates

/** Attributes an update may set directly on the record. */
export type GroupUpdate = Partial<Omit<GroupExtra, 'full_name' | 'runners_token'>> & {
  name?: string;
  path?: string;
  description?: string;
  visibility?: Visibility;
};

/**
 * Applies an update. A new name or path renames the route of every group below and moves every project
 * below (`path_with_namespace` and its index entry), so that namespaces agree everywhere; a new share
 * lock is forced onto the descendants, as the platform does.
 */
export function updateGroup(st: S, id: number, changes: GroupUpdate, now: string): void {
  const g = tget(st.groups, id) as Draft<Group>;
  const oldFullPath = g.full_path;
  const oldFullName = g.full_name;
  for (const [k, v] of Object.entries(changes)) if (v !== undefined) (g as Record<string, unknown>)[k] = v;
  g.updated_at = now;
  const parent = g.parent_id === null ? undefined : (tget(st.groups, g.parent_id) as Group | undefined);
  const fullPath = parent ? `${parent.full_path}/${g.path}` : g.path;
  const fullName = parent ? `${parent.full_name} / ${g.name}` : g.name;
  if (fullPath !== oldFullPath || fullName !== oldFullName) moveTree(st, g, fullPath, fullName);
  if (changes.share_with_group_lock === true)
    for (const d of descendantIds(st, id)) (tget(st.groups, d) as Draft<Group>).share_with_group_lock = true;
}

function moveTree(st: S, g: Draft<Group>, fullPath: string, fullName: string): void {
  const oldPath = g.full_path;
  const oldName = g.full_name;
  const rename = (x: Draft<Group>) => {
    const path = fullPath + x.full_path.slice(oldPath.length);
    const name = fullName + x.full_name.slice(oldName.length);
    if (path !== x.full_path) {
      idelete(st.idx.namespaces, x.full_path.toLowerCase());
      x.full_path = path;
      iset(st.idx.namespaces, path.toLowerCase(), x.id);
      for (const pid of mget(st.idx.projectsByNamespace, `group:${x.id}`)) {
        const p = tget(st.projects, pid)!;
        idelete(st.idx.projects, p.path_with_namespace.toLowerCase());
        p.path_with_namespace = `${path}/${p.path}`;
        iset(st.idx.projects, p.path_with_namespace.toLowerCase(), pid);
      }
    }
    x.full_name = name;
  };
  rename(g);
  for (const d of descendantIds(st, g.id)) rename(tget(st.groups, d) as Draft<Group>);
}
