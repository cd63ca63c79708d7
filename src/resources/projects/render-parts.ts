/** The JSON pieces project entities are joined from: namespaces, shared default-valued fields, per-record strings and link templates, each cached. */
import { type GroupRecord, type PlatformState, type ProjectRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { PROJECT_DEFAULTS, type ExpirationPolicy, type Project } from './model.js';
import type { CacheEntry, RenderCache } from '../../core/render-cache.js';
import type { RenderSlot, View } from './render-types.js';
import type { Minor } from '../../core/versions.js';

const q = JSON.stringify;

export function flat(s: string): string {
  // Reading a character makes V8 flatten a cons string in place.
  s.charCodeAt(0);
  return s;
}

/**
 * Short JSON fragments that many records share (flag combinations, the default container policy): one
 * copy each. Bounded, so that a world of unusual values cannot grow it without end.
 */
const interned = new Map<string, string>();
export function intern(s: string): string {
  const hit = interned.get(s);
  if (hit !== undefined) return hit;
  if (interned.size < 4096) interned.set(s, s);
  return s;
}

export const groupAvatar = (base: string, g: GroupRecord) => {
  const a = g.avatar_url;
  return typeof a === 'string' && a !== '' ? (a.startsWith('/') ? base + a : a) : null;
};

/** Whether a group and its ancestors are still the records `deps` lists. */
export function sameChain(st: PlatformState, group: GroupRecord, deps: readonly object[]): boolean {
  let i = 0;
  for (
    let g: GroupRecord | undefined = group;
    g;
    g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id), i++
  )
    if (deps[i] !== g) return false;
  return i === deps.length;
}

/** Per namespace record (group or user), base URL and settings: its `namespace` JSON and full name. */
export interface NamespaceJson {
  base: string;
  settings: object;
  /** What the JSON was made from: the group chain (nearest first) or the owning user. */
  deps: readonly object[];
  /**
   * The groups or users table it was last found valid in: while the table is the same object, no record
   * in it changed, so the chain needs no walk.
   */
  table: object;
  json: string;
  fullName: string;
  owner: string;
}
export const namespaceCache = new WeakMap<object, NamespaceJson>();

/** Pieces whose JSON most projects share: built once for the default values. */
export const SHARED_FIELDS = {
  b: ['service_desk_enabled'],
  c: [
    'issues_access_level',
    'repository_access_level',
    'merge_requests_access_level',
    'forking_access_level',
    'wiki_access_level',
    'builds_access_level',
    'snippets_access_level',
    'pages_access_level',
    'operations_access_level',
    'analytics_access_level',
    'emails_disabled',
    'shared_runners_enabled',
    'lfs_enabled',
  ],
  d: ['import_status'],
  importError: ['import_error'],
  openIssues: ['open_issues_count'],
  e: ['ci_default_git_depth', 'public_jobs'],
  gitStrategy: ['build_git_strategy'],
  f: ['build_timeout', 'auto_cancel_pending_pipelines', 'build_coverage_regex'],
  ciConfig: ['ci_config_path'],
  g: [
    'only_allow_merge_if_pipeline_succeeds',
    'allow_merge_on_skipped_pipeline',
    'request_access_enabled',
    'only_allow_merge_if_all_discussions_are_resolved',
    'remove_source_branch_after_merge',
    'printing_merge_request_link_enabled',
    'merge_method',
    'suggestion_commit_message',
  ],
  h: ['auto_devops_enabled', 'auto_devops_deploy_strategy', 'autoclose_referenced_issues'],
  storage: ['repository_storage'],
  ee: [
    'approvals_before_merge',
    'mirror',
    'mirror_user_id',
    'mirror_trigger_builds',
    'only_mirror_protected_branches',
    'mirror_overwrites_diverged_branches',
    'external_authorization_classification_label',
    'marked_for_deletion_on',
  ],
} satisfies Record<string, readonly (keyof typeof PROJECT_DEFAULTS)[]>;

export type SharedPiece = keyof typeof SHARED_FIELDS;

export function isDefault(p: Project, fields: readonly string[]): boolean {
  const d = PROJECT_DEFAULTS as Record<string, unknown>;
  for (let i = 0; i < fields.length; i++)
    if ((p as Record<string, unknown>)[fields[i]!] !== d[fields[i]!]) return false;
  return true;
}

const D = PROJECT_DEFAULTS;

/**
 * `isDefault(p, SHARED_FIELDS[piece])` with each field read by name: a cold record is read once, and a
 * loop over field names makes every read a generic keyed lookup (a tenth of a cold page's rendering).
 */
export const IS_DEFAULT: Record<SharedPiece, (p: Project) => boolean> = {
  b: (p) => p.service_desk_enabled === D.service_desk_enabled,
  c: (p) =>
    p.issues_access_level === D.issues_access_level &&
    p.repository_access_level === D.repository_access_level &&
    p.merge_requests_access_level === D.merge_requests_access_level &&
    p.forking_access_level === D.forking_access_level &&
    p.wiki_access_level === D.wiki_access_level &&
    p.builds_access_level === D.builds_access_level &&
    p.snippets_access_level === D.snippets_access_level &&
    p.pages_access_level === D.pages_access_level &&
    p.operations_access_level === D.operations_access_level &&
    p.analytics_access_level === D.analytics_access_level &&
    p.emails_disabled === D.emails_disabled &&
    p.shared_runners_enabled === D.shared_runners_enabled &&
    p.lfs_enabled === D.lfs_enabled,
  d: (p) => p.import_status === D.import_status,
  importError: (p) => p.import_error === D.import_error,
  openIssues: (p) => p.open_issues_count === D.open_issues_count,
  e: (p) => p.ci_default_git_depth === D.ci_default_git_depth && p.public_jobs === D.public_jobs,
  gitStrategy: (p) => p.build_git_strategy === D.build_git_strategy,
  f: (p) =>
    p.build_timeout === D.build_timeout &&
    p.auto_cancel_pending_pipelines === D.auto_cancel_pending_pipelines &&
    p.build_coverage_regex === D.build_coverage_regex,
  ciConfig: (p) => p.ci_config_path === D.ci_config_path,
  g: (p) =>
    p.only_allow_merge_if_pipeline_succeeds === D.only_allow_merge_if_pipeline_succeeds &&
    p.allow_merge_on_skipped_pipeline === D.allow_merge_on_skipped_pipeline &&
    p.request_access_enabled === D.request_access_enabled &&
    p.only_allow_merge_if_all_discussions_are_resolved ===
      D.only_allow_merge_if_all_discussions_are_resolved &&
    p.remove_source_branch_after_merge === D.remove_source_branch_after_merge &&
    p.printing_merge_request_link_enabled === D.printing_merge_request_link_enabled &&
    p.merge_method === D.merge_method &&
    p.suggestion_commit_message === D.suggestion_commit_message,
  h: (p) =>
    p.auto_devops_enabled === D.auto_devops_enabled &&
    p.auto_devops_deploy_strategy === D.auto_devops_deploy_strategy &&
    p.autoclose_referenced_issues === D.autoclose_referenced_issues,
  storage: (p) => p.repository_storage === D.repository_storage,
  ee: (p) =>
    p.approvals_before_merge === D.approvals_before_merge &&
    p.mirror === D.mirror &&
    p.mirror_user_id === D.mirror_user_id &&
    p.mirror_trigger_builds === D.mirror_trigger_builds &&
    p.only_mirror_protected_branches === D.only_mirror_protected_branches &&
    p.mirror_overwrites_diverged_branches === D.mirror_overwrites_diverged_branches &&
    p.external_authorization_classification_label === D.external_authorization_classification_label &&
    p.marked_for_deletion_on === D.marked_for_deletion_on,
};

export const SHARED_PIECES = Object.keys(SHARED_FIELDS) as SharedPiece[];

/** What a shared piece reads of the request's renderer. */
interface SharedContext {
  readonly paid: boolean;
  autoDevops(p: Project): boolean;
}

export const SHARED_BUILDERS: Record<SharedPiece, (p: Project, r: SharedContext) => string> = {
  b: (p) => `,"service_desk_enabled":${p.service_desk_enabled},"service_desk_address":null`,
  c: (p) =>
    `,"issues_access_level":"${p.issues_access_level}","repository_access_level":"${p.repository_access_level}","merge_requests_access_level":"${p.merge_requests_access_level}","forking_access_level":"${p.forking_access_level}","wiki_access_level":"${p.wiki_access_level}","builds_access_level":"${p.builds_access_level}","snippets_access_level":"${p.snippets_access_level}","pages_access_level":"${p.pages_access_level}","operations_access_level":"${p.operations_access_level}","analytics_access_level":"${p.analytics_access_level}"` +
    `,"emails_disabled":${p.emails_disabled},"shared_runners_enabled":${p.shared_runners_enabled},"lfs_enabled":${p.lfs_enabled}`,
  d: (p) => `,"import_status":${q(p.import_status)}`,
  importError: (p) => `,"import_error":${q(p.import_error)}`,
  openIssues: (p) => `,"open_issues_count":${p.open_issues_count}`,
  e: (p) => `,"ci_default_git_depth":${p.ci_default_git_depth},"public_jobs":${p.public_jobs}`,
  gitStrategy: (p) => `,"build_git_strategy":"${p.build_git_strategy}"`,
  f: (p) =>
    `,"build_timeout":${p.build_timeout},"auto_cancel_pending_pipelines":"${p.auto_cancel_pending_pipelines}","build_coverage_regex":${q(p.build_coverage_regex)}`,
  ciConfig: (p) => `,"ci_config_path":${q(p.ci_config_path)}`,
  g: (p) =>
    `,"only_allow_merge_if_pipeline_succeeds":${p.only_allow_merge_if_pipeline_succeeds},"allow_merge_on_skipped_pipeline":${p.allow_merge_on_skipped_pipeline},"request_access_enabled":${p.request_access_enabled},"only_allow_merge_if_all_discussions_are_resolved":${p.only_allow_merge_if_all_discussions_are_resolved},"remove_source_branch_after_merge":${p.remove_source_branch_after_merge},"printing_merge_request_link_enabled":${p.printing_merge_request_link_enabled},"merge_method":"${p.merge_method}","suggestion_commit_message":${q(p.suggestion_commit_message)}`,
  h: (p, r) =>
    `,"auto_devops_enabled":${r.autoDevops(p)},"auto_devops_deploy_strategy":"${p.auto_devops_deploy_strategy}","autoclose_referenced_issues":${p.autoclose_referenced_issues}`,
  storage: (p) => `,"repository_storage":${q(p.repository_storage)}`,
  ee: (p, r) => {
    if (!r.paid) return '';
    const mirror = p.mirror === true;
    const marked = q(p.marked_for_deletion_on ?? null);
    return (
      `,"approvals_before_merge":${p.approvals_before_merge},"mirror":${mirror}` +
      (mirror
        ? `,"mirror_user_id":${p.mirror_user_id},"mirror_trigger_builds":${p.mirror_trigger_builds},"only_mirror_protected_branches":${p.only_mirror_protected_branches},"mirror_overwrites_diverged_branches":${p.mirror_overwrites_diverged_branches}`
        : '') +
      `,"external_authorization_classification_label":${q(p.external_authorization_classification_label)},"marked_for_deletion_at":${marked},"marked_for_deletion_on":${marked}`
    );
  },
};

/**
 * The shared pieces for one settings object and tier, and the runs of them that a default-valued record
 * renders between its own values, joined once per variant of the viewer-dependent flags in them.
 */
export interface Shared {
  pieces: Record<SharedPiece, string>;
  /** `}` closing the container policy .. `,"creator_id":`, by feature bits | canMr << 5. */
  afterPolicy: (string | undefined)[];
  /** import_status .. (before runners_token), by canAdmin | issues << 1. */
  beforeRunners: (string | undefined)[];
  /** (after runners_token) .. `,"shared_with_groups":`, by canAdmin | download << 1. */
  afterRunners: (string | undefined)[];
  /** only_allow_merge_if_pipeline_succeeds .. the EE fields, by admin (no statistics between). */
  afterShares: (string | undefined)[];
}
export const sharedCache = new WeakMap<object, { free?: Shared; paid?: Shared }>();

export const NO_CUSTOM: Partial<Record<SharedPiece, string>> = {};

/**
 * What one record's JSON needs beyond the shared pieces, for one namespace JSON (so one base URL and
 * settings) and tier. Kept small: a record's own text once, everything shared by reference.
 */
export class RecordJson {
  constructor(
    readonly record: ProjectRecord,
    readonly ns: NamespaceJson,
    readonly paid: boolean,
    /** The release it was made for: its fields differ by release (projects/versions.ts). */
    readonly minor: Minor,
    /** BasicProjectDetails up to `"namespace":` (default_branch included). */
    readonly text: string,
    /** Where `,"default_branch":…` lies in `text`. */
    readonly branchStart: number,
    readonly branchEnd: number,
    /** Where `license_url` and `license` go in `text`. */
    readonly licenseAt: number,
    /** `,"packages_enabled":…,"visibility":…` */
    readonly flags: string,
    /** `,"resolve_outdated_diff_discussions":…,"container_registry_enabled":…` */
    readonly registry: string,
    /** `,"container_expiration_policy":{…,"next_run_at":` and the quoted time that follows. */
    readonly policyHead: string,
    readonly nextRun: string,
    /** The pieces in which this record differs from the defaults. */
    readonly custom: Partial<Record<SharedPiece, string>>,
    /**
     * Copies of the record's fields a rendering reads, so that rendering for an admin touches this object
     * and not the (much larger) record: its namespace kind, which features are disabled (issues 1,
     * merge requests 2, wiki 4, builds 8, snippets 16, repository 32), archived, creator and fork parent.
     */
    readonly userNamespace: boolean,
    readonly disabled: number,
    readonly archived: boolean,
    readonly creatorId: number | null,
    readonly forkedFrom: number | null,
    readonly id: number,
    readonly namespaceId: number,
    readonly ownerId: number | null,
  ) {}

  /** Its last renderings by viewer and options (`ProjectRenderer.#view`). */
  views?: View[];

  // Its place in the renderings' budget (src/core/render-cache.ts).
  get hash(): number {
    return this.id;
  }
  held = 0;
  older: CacheEntry | null = null;
  newer: CacheEntry | null = null;
  cached = false;
  owner: RenderCache | null = null;
  /** The list key that keeps it too (`RenderSlot.rendered`), forgotten with it. */
  slot: RenderSlot | undefined = undefined;

  /** Forgets the record's JSON and renderings wherever the renderer keeps them (the budget dropped it). */
  drop(): void {
    if (records.get(this.record) === this) records.delete(this.record);
    this.views = undefined;
    const slot = this.slot;
    if (slot && slot.rendered === this) {
      slot.rendered = undefined;
      slot.view = undefined;
    }
    this.slot = undefined;
  }
}

/** Bytes a record's JSON is charged besides its text: the object, its numbers and string headers. */
const RECORD_OVERHEAD = 400;
/** Bytes a kept rendering is charged besides its JSON: the view object and its buffer's bookkeeping. */
export const VIEW_OVERHEAD = 250;

/** What a record's JSON holds of its own (shared and interned pieces are held once for all). */
export function recordHeld(r: RecordJson): number {
  let n = RECORD_OVERHEAD + r.text.length + r.nextRun.length;
  if (r.custom !== NO_CUSTOM) for (const k in r.custom) n += r.custom[k as SharedPiece]!.length;
  return n;
}

export const viewHeld = (v: View) => VIEW_OVERHEAD + v.json.length;

/**
 * `Buffer.from(s)`: UTF-8 bytes. Project JSON is mostly ASCII (JSON.stringify leaves other characters as
 * they are), and an ASCII string's UTF-8 is its Latin-1, which is copied rather than encoded character by
 * character; the UTF-8 length equals the string's length exactly when every character is ASCII.
 */
export function utf8(s: string): Buffer<ArrayBuffer> {
  return Buffer.byteLength(s, 'utf8') === s.length ? Buffer.from(s, 'latin1') : Buffer.from(s, 'utf8');
}

export const OPEN = Buffer.from('[');
export const COMMA = Buffer.from(',');
export const CLOSE = Buffer.from(']');
export const EMPTY_ARRAY = Buffer.from('[]');
/** A list's punctuation as the bytes encoded once (undefined for any other text). */
export function punctuation(s: string): Buffer<ArrayBuffer> | undefined {
  return s === ',' ? COMMA : s === '[' ? OPEN : s === ']' ? CLOSE : undefined;
}

/** Renderings a record keeps: a list's and a single project's, for a couple of viewers. */
export const VIEWS_PER_RECORD = 4;

/** Which of a project's features are disabled, as `RecordJson.disabled` has them. */
export const disabledFeatures = (p: Project) =>
  +(p.issues_access_level === 'disabled') |
  (+(p.merge_requests_access_level === 'disabled') << 1) |
  (+(p.wiki_access_level === 'disabled') << 2) |
  (+(p.builds_access_level === 'disabled') << 3) |
  (+(p.snippets_access_level === 'disabled') << 4) |
  (+(p.repository_access_level === 'disabled') << 5);

/** Record JSON by record (gone with the record). Lists keep it on their keys as well (`RenderSlot`). */
export const records = new WeakMap<ProjectRecord, RecordJson>();

export const FEATURE_FLAGS: string[] = [];
for (let bits = 0; bits < 32; bits++) {
  const b = (i: number) => (bits & (1 << i)) !== 0;
  FEATURE_FLAGS.push(
    `,"issues_enabled":${b(0)},"merge_requests_enabled":${b(1)},"wiki_enabled":${b(2)},"jobs_enabled":${b(3)},"snippets_enabled":${b(4)}`,
  );
}

export const LICENSE = ',"license_url":null,"license":null';

export const NO_PERMISSIONS = '{"project_access":null,"group_access":null}';
export const accessJson = (level: number) =>
  level > 0 ? `{"access_level":${level},"notification_level":3}` : 'null';

/** The text of a record without its `default_branch` (a viewer who may not download code). */
export const withoutBranch = (r: RecordJson, s: string) => s.slice(0, r.branchStart) + s.slice(r.branchEnd);

/**
 * `_links` of a project as the parts around its id (joined with the id, they are the JSON): per base URL,
 * by whether the issues (1) and merge requests (2) links are in.
 */
const linkCache = new Map<string, string[][]>();
export function linkTemplates(base: string): string[][] {
  let byFlags = linkCache.get(base);
  if (!byFlags) {
    if (linkCache.size >= 64) linkCache.clear();
    // Written inside JSON strings: escaped as JSON.stringify would (a configured base may hold any character).
    const api = JSON.stringify(`${base}/api/v4/projects/`).slice(1, -1);
    byFlags = [];
    for (let k = 0; k < 4; k++) {
      const parts = [`,"_links":{"self":"${api}`];
      let close = '"';
      if (k & 1) {
        parts.push(`${close},"issues":"${api}`);
        close = '/issues"';
      }
      if (k & 2) {
        parts.push(`${close},"merge_requests":"${api}`);
        close = '/merge_requests"';
      }
      parts.push(
        `${close},"repo_branches":"${api}`,
        `/repository/branches","labels":"${api}`,
        `/labels","events":"${api}`,
        `/events","members":"${api}`,
        '/members"}',
      );
      byFlags.push(parts);
    }
    linkCache.set(base, byFlags);
  }
  return byFlags;
}

const VISIBILITY_INDEX: Readonly<Record<string, number>> = Object.assign(Object.create(null) as object, {
  private: 0,
  internal: 1,
  public: 2,
});
const flagTexts: (string | undefined)[] = [];
const registryTexts: (string | undefined)[] = [];

/**
 * `,"packages_enabled":…,"visibility":…`: one of 24 texts, each made once, so that a record read once
 * makes no string for them (anything but booleans and the three visibilities is written out).
 */
export function flagsJson(p: Project): string {
  const v = VISIBILITY_INDEX[p.visibility];
  const packages = p.packages_enabled;
  const archived = p.archived;
  if (v === undefined || typeof packages !== 'boolean' || typeof archived !== 'boolean')
    return `,"packages_enabled":${packages},"empty_repo":${p.default_branch === null},"archived":${archived},"visibility":"${p.visibility}"`;
  const i = +packages | (+(p.default_branch === null) << 1) | (+archived << 2) | (v << 3);
  return (flagTexts[i] ??=
    `,"packages_enabled":${packages},"empty_repo":${p.default_branch === null},"archived":${archived},"visibility":"${p.visibility}"`);
}

/** `,"resolve_outdated_diff_discussions":…,"container_registry_enabled":…`, made once per pair of booleans. */
export function registryJson(p: Project): string {
  const a = p.resolve_outdated_diff_discussions;
  const b = p.container_registry_enabled;
  if (typeof a !== 'boolean' || typeof b !== 'boolean')
    return `,"resolve_outdated_diff_discussions":${a},"container_registry_enabled":${b}`;
  return (registryTexts[+a | (+b << 1)] ??=
    `,"resolve_outdated_diff_discussions":${a},"container_registry_enabled":${b}`);
}

/** `,"container_expiration_policy":{…,"next_run_at":` per policy object (records share the default one). */
const policyHeads = new WeakMap<ExpirationPolicy, string>();
export function policyHeadJson(policy: ExpirationPolicy): string {
  let out = policyHeads.get(policy);
  if (out === undefined) {
    out = intern(
      `,"container_expiration_policy":{"cadence":${q(policy.cadence)},"enabled":${policy.enabled},"keep_n":${policy.keep_n},"older_than":${q(policy.older_than)},"name_regex":${q(policy.name_regex)},"name_regex_keep":${q(policy.name_regex_keep)},"next_run_at":`,
    );
    policyHeads.set(policy, out);
  }
  return out;
}

/** Hosts of base URLs (`new URL` per request is a noticeable cost of a small response). */
const hosts = new Map<string, string>();
export function hostOf(base: string): string {
  let h = hosts.get(base);
  if (h === undefined) {
    if (hosts.size >= 64) hosts.clear();
    hosts.set(base, (h = new URL(base).hostname));
  }
  return h;
}
