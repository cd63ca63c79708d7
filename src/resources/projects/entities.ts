/**
 * The project shapes of the API, in the platform's field order (Grape exposes fields in declaration
 * order, subclasses after their parents, EE additions after the CE ones):
 *
 * - basic (`BasicProjectDetails`): anonymous callers, `simple=true`, `forked_from_project`;
 * - full (`Project`): create, update, fork, star, archive; GroupDetail's `projects`;
 * - withAccess (`ProjectWithAccess`): lists and `GET /projects/:id` for signed-in callers.
 *
 * Rendering is the hot path of every project list, so what is particular to a record (its names, paths,
 * URLs, times) is built once into one flat string and cached by record identity (immer keeps unchanged
 * records identical, so the cache never goes stale); everything records share (default settings, flag
 * combinations, namespaces) is held once and referenced. A request joins those strings with what depends
 * on the viewer (permissions, members-only features, admin fields). A record costs about one copy of its
 * own text, so a world of 100,000 projects caches in about 100 MB.
 */
import { ACCESS, canReadProject, projectAccess } from '../../core/access.js';
import type { Ctx, Fx } from '../../core/context.js';
import { requestBase } from '../../core/pagination.js';
import type { GroupRecord, PlatformState, ProjectRecord, UserRecord } from '../../core/state.js';
import { iget, mget, tget } from '../../core/table.js';
import { setting } from '../settings/model.js';
import { userRenderer, type UserRenderer } from '../users/entities.js';
import {
  authorizationLevel,
  canDownloadCode,
  featureAvailable,
  highestGroupLevel,
  isPersonalOwner,
} from './access.js';
import { PROJECT_DEFAULTS, type Project } from './model.js';

export type ProjectShape = 'basic' | 'full' | 'withAccess';

/** A record with a place where the renderer may keep what it made of it (the list keys have one). */
export interface RenderSlot {
  readonly p: ProjectRecord;
  rendered?: unknown;
  view?: unknown;
}

/**
 * A rendering of a record with everything it was made from besides the record: the viewer and options
 * (`key`), the request's base URL, the tier and the tables it read. Records keep their last few; a list
 * key keeps its last one, so that a page checks one small object per entry instead of the record, its
 * cached JSON and its renderings (all cold in a large world).
 */
interface View {
  key: string;
  base: string;
  paid: boolean;
  viewer: UserRecord | null;
  projects: PlatformState['projects'];
  members: PlatformState['members'];
  shares: PlatformState['shares'];
  groups: PlatformState['groups'];
  users: PlatformState['users'];
  settings: PlatformState['settings'];
  json: Buffer<ArrayBuffer>;
}

export interface ProjectEntityOptions {
  shape?: ProjectShape;
  /** `statistics=true` (shown to reporters and up, and admins). */
  statistics?: boolean;
  /** `license=true`: `license_url` and `license` (both null: fauxlab models no repository content). */
  license?: boolean;
  /** `with_custom_attributes=true` from an admin. */
  customAttributes?: boolean;
  /** The endpoint's `user_can_admin_project` option (single-project endpoints only): import_error, runners_token, build_git_strategy. */
  canAdminProject?: boolean;
  /**
   * `permissions.group_access` from the direct membership on the project's own group, as lists preload
   * it; single-project endpoints look at the ancestors too (`highest_group_member`).
   */
  directGroupAccess?: boolean;
}

const q = JSON.stringify;

/** Times as the platform renders them: ISO 8601 with milliseconds, UTC. */
export function isoTime(s: string | null): string | null {
  if (s === null || /\.\d{3}Z$/.test(s)) return s;
  const t = Date.parse(s);
  return Number.isNaN(t) ? s : new Date(t).toISOString();
}

const DAY = 86_400_000;

/** Deterministic repository statistics: a project always reports the same sizes. */
export interface ProjectStatistics {
  commit_count: number;
  storage_size: number;
  repository_size: number;
  wiki_size: number;
  lfs_objects_size: number;
  job_artifacts_size: number;
  packages_size: number;
  snippets_size: number;
}

function mix(n: number): number {
  let z = Math.imul(n ^ (n >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

export function projectStatistics(id: number): ProjectStatistics {
  const h1 = mix(id * 4 + 1);
  const h2 = mix(id * 4 + 2);
  const h3 = mix(id * 4 + 3);
  const repository_size = 20_480 + (h1 % 52_428_800);
  const wiki_size = h2 % 4 === 0 ? 0 : (h2 >>> 3) % 1_048_576;
  const lfs_objects_size = h3 % 5 === 0 ? (h3 >>> 4) % 104_857_600 : 0;
  const job_artifacts_size = (h1 >>> 5) % 3 === 0 ? 0 : (h2 >>> 7) % 20_971_520;
  const packages_size = (h3 >>> 9) % 7 === 0 ? (h1 >>> 11) % 10_485_760 : 0;
  const snippets_size = 0;
  return {
    commit_count: 1 + ((h2 >>> 11) % 2_500),
    storage_size:
      repository_size + wiki_size + lfs_objects_size + job_artifacts_size + packages_size + snippets_size,
    repository_size,
    wiki_size,
    lfs_objects_size,
    job_artifacts_size,
    packages_size,
    snippets_size,
  };
}

const LANGUAGES = [
  'Ruby',
  'JavaScript',
  'TypeScript',
  'Go',
  'Python',
  'Java',
  'Shell',
  'HTML',
  'CSS',
  'Vue',
  'Dockerfile',
  'Makefile',
  'C',
  'Rust',
];

/** `GET /projects/:id/languages`: a deterministic mix of up to five languages, percentages summing to 100. */
export function projectLanguages(id: number): Record<string, number> {
  const h = mix(id * 7 + 5);
  const count = 1 + (h % 5);
  const picked: string[] = [];
  for (let i = 0; picked.length < count; i++) {
    const lang = LANGUAGES[mix(id * 31 + i) % LANGUAGES.length]!;
    if (!picked.includes(lang)) picked.push(lang);
  }
  const weights = picked.map((_, i) => 1 + (mix(id * 13 + i) % 1000));
  const total = weights.reduce((a, b) => a + b, 0);
  // Hundredths, largest first; the first takes the rounding remainder so the sum is exactly 100.
  const shares = weights.map((w) => Math.floor((w / total) * 10_000)).sort((a, b) => b - a);
  shares[0]! += 10_000 - shares.reduce((a, b) => a + b, 0);
  const out: Record<string, number> = {};
  picked.forEach((lang, i) => (out[lang] = shares[i]! / 100));
  return out;
}

/** A flat copy of a concatenation: the cache then holds one string, not the tree of its pieces. */
function flat(s: string): string {
  // Reading a character makes V8 flatten a cons string in place.
  s.charCodeAt(0);
  return s;
}

/**
 * Short JSON fragments that many records share (flag combinations, the default container policy): one
 * copy each. Bounded, so that a world of unusual values cannot grow it without end.
 */
const interned = new Map<string, string>();
function intern(s: string): string {
  const hit = interned.get(s);
  if (hit !== undefined) return hit;
  if (interned.size < 4096) interned.set(s, s);
  return s;
}

const groupAvatar = (base: string, g: GroupRecord) => {
  const a = g.avatar_url;
  return typeof a === 'string' && a !== '' ? (a.startsWith('/') ? base + a : a) : null;
};

/** Whether a group and its ancestors are still the records `deps` lists. */
function sameChain(st: PlatformState, group: GroupRecord, deps: readonly object[]): boolean {
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
interface NamespaceJson {
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
const namespaceCache = new WeakMap<object, NamespaceJson>();

/** Pieces whose JSON most projects share: built once for the default values. */
const SHARED_FIELDS = {
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

type SharedPiece = keyof typeof SHARED_FIELDS;

function isDefault(p: Project, fields: readonly string[]): boolean {
  const d = PROJECT_DEFAULTS as Record<string, unknown>;
  for (let i = 0; i < fields.length; i++)
    if ((p as Record<string, unknown>)[fields[i]!] !== d[fields[i]!]) return false;
  return true;
}

const SHARED_BUILDERS: Record<SharedPiece, (p: Project, r: ProjectRenderer) => string> = {
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
interface Shared {
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
const sharedCache = new WeakMap<object, { free?: Shared; paid?: Shared }>();

const NO_CUSTOM: Partial<Record<SharedPiece, string>> = {};

/**
 * What one record's JSON needs beyond the shared pieces, for one namespace JSON (so one base URL and
 * settings) and tier. Kept small: a record's own text once, everything shared by reference.
 */
class RecordJson {
  constructor(
    readonly record: ProjectRecord,
    readonly ns: NamespaceJson,
    readonly paid: boolean,
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
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');
const EMPTY_ARRAY = Buffer.from('[]');

/** Renderings a record keeps: a list's and a single project's, for a couple of viewers. */
const VIEWS_PER_RECORD = 4;

/** Which of a project's features are disabled, as `RecordJson.disabled` has them. */
const disabledFeatures = (p: Project) =>
  +(p.issues_access_level === 'disabled') |
  (+(p.merge_requests_access_level === 'disabled') << 1) |
  (+(p.wiki_access_level === 'disabled') << 2) |
  (+(p.builds_access_level === 'disabled') << 3) |
  (+(p.snippets_access_level === 'disabled') << 4) |
  (+(p.repository_access_level === 'disabled') << 5);

/** Record JSON by record (gone with the record). Lists keep it on their keys as well (`RenderSlot`). */
const records = new WeakMap<ProjectRecord, RecordJson>();

const FEATURE_FLAGS: string[] = [];
for (let bits = 0; bits < 32; bits++) {
  const b = (i: number) => (bits & (1 << i)) !== 0;
  FEATURE_FLAGS.push(
    `,"issues_enabled":${b(0)},"merge_requests_enabled":${b(1)},"wiki_enabled":${b(2)},"jobs_enabled":${b(3)},"snippets_enabled":${b(4)}`,
  );
}

const LICENSE = ',"license_url":null,"license":null';

const NO_PERMISSIONS = '{"project_access":null,"group_access":null}';
const accessJson = (level: number) =>
  level > 0 ? `{"access_level":${level},"notification_level":3}` : 'null';

/** The text of a record without its `default_branch` (a viewer who may not download code). */
const withoutBranch = (r: RecordJson, s: string) => s.slice(0, r.branchStart) + s.slice(r.branchEnd);

/**
 * `_links` of a project as the parts around its id (joined with the id, they are the JSON): per base URL,
 * by whether the issues (1) and merge requests (2) links are in.
 */
const linkCache = new Map<string, string[][]>();
function linkTemplates(base: string): string[][] {
  let byFlags = linkCache.get(base);
  if (!byFlags) {
    if (linkCache.size >= 64) linkCache.clear();
    const api = `${base}/api/v4/projects/`;
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

/** Hosts of base URLs (`new URL` per request is a noticeable cost of a small response). */
const hosts = new Map<string, string>();
function hostOf(base: string): string {
  let h = hosts.get(base);
  if (h === undefined) {
    if (hosts.size >= 64) hosts.clear();
    hosts.set(base, (h = new URL(base).hostname));
  }
  return h;
}

interface Memberships {
  projects: Map<number, number>;
  groups: Map<number, number>;
}

/** Viewers' direct memberships, per members table (any membership change makes a new one). */
const membershipCaches = new WeakMap<PlatformState['members'], Map<number, Memberships>>();

/** Renders projects for one request: the request-wide facts (base URL, tier, viewer) are read once. */
export class ProjectRenderer {
  readonly base: string;
  readonly host: string;
  readonly viewer: UserRecord | null;
  readonly admin: boolean;
  readonly paid: boolean;
  #users?: UserRenderer;
  #levels?: Memberships;
  #shared_?: Shared;
  readonly #fx: Fx;
  #links?: string[][];

  constructor(readonly c: Ctx) {
    this.#fx = c.get('fx');
    this.base = requestBase(c);
    this.host = hostOf(this.base);
    this.viewer = c.get('viewer')?.user ?? null;
    this.admin = this.viewer?.admin === true;
    this.paid = this.#fx.tier() !== 'free';
  }

  /** Read per call: a renderer made before the request's write must see the written state. */
  get st(): PlatformState {
    return this.#fx.store.state;
  }

  get users(): UserRenderer {
    return (this.#users ??= userRenderer(this.c));
  }

  /** The namespace JSON of a project's namespace, cached per namespace record while its chain is unchanged. */
  #namespace(p: Project): NamespaceJson {
    const st = this.st;
    const base = this.base;
    let key: GroupRecord | UserRecord | undefined;
    if (p.namespace_kind === 'user') key = p.owner_id === null ? undefined : tget(st.users, p.owner_id);
    else key = tget(st.groups, p.namespace_id);
    if (!key)
      return {
        base,
        settings: st.settings,
        deps: [],
        table: st.groups,
        json: 'null',
        fullName: '',
        owner: '',
      };
    const hit = namespaceCache.get(key);
    if (hit && hit.base === base && hit.settings === st.settings) {
      if (p.namespace_kind === 'user') {
        hit.table = st.users;
        return hit;
      }
      if (hit.table === st.groups) return hit;
      // A group's ancestors are part of its full name: the chain must be the same records.
      if (sameChain(st, key as GroupRecord, hit.deps)) {
        hit.table = st.groups;
        return hit;
      }
    }
    let out: NamespaceJson;
    if (p.namespace_kind === 'user') {
      const u = key as UserRecord;
      out = {
        base,
        settings: st.settings,
        deps: [u],
        table: st.users,
        json: flat(
          `{"id":${u.namespace_id},"name":${q(u.name)},"path":${q(u.username)},"kind":"user","full_path":${q(u.username)},"parent_id":null,"avatar_url":${q(this.users.avatarUrl(u))},"web_url":${q(`${base}/${u.username}`)}}`,
        ),
        fullName: u.name,
        owner: flat(`,"owner":${q(this.users.basic(u))}`),
      };
    } else {
      const chain: GroupRecord[] = [];
      for (
        let g: GroupRecord | undefined = key as GroupRecord;
        g;
        g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id)
      )
        chain.push(g);
      const g = chain[0]!;
      out = {
        base,
        settings: st.settings,
        deps: chain,
        table: st.groups,
        json: flat(
          `{"id":${g.id},"name":${q(g.name)},"path":${q(g.path)},"kind":"group","full_path":${q(g.full_path)},"parent_id":${g.parent_id},"avatar_url":${q(groupAvatar(base, g))},"web_url":${q(`${base}/groups/${g.full_path}`)}}`,
        ),
        fullName: chain
          .map((x) => x.name)
          .reverse()
          .join(' / '),
        owner: '',
      };
    }
    namespaceCache.set(key, out);
    return out;
  }

  /**
   * The record's own JSON for this request's namespace JSON and tier, built on first use. `slot` is a
   * list key's place for it: a hit there needs neither the record nor the id lookup.
   */
  #record(p: Project, st: PlatformState, slot?: RenderSlot): RecordJson {
    const hit = (slot?.rendered as RecordJson | undefined) ?? records.get(p);
    if (hit && hit.record === p && hit.paid === this.paid) {
      const ns = hit.ns;
      // The same record in the same groups (or users) table has the same namespace records.
      if (
        ns.base === this.base &&
        ns.settings === st.settings &&
        ns.table === (hit.userNamespace ? st.users : st.groups) &&
        ns.deps.length > 0
      )
        return hit;
      if (this.#namespace(p) === ns) return hit;
    }
    const ns = this.#namespace(p);
    const base = this.base;
    const path = p.path_with_namespace;
    const head = `{"id":${p.id},"description":${q(p.description)},"name":${q(p.name)},"name_with_namespace":${q(`${ns.fullName} / ${p.name}`)},"path":${q(p.path)},"path_with_namespace":${q(path)},"created_at":${q(isoTime(p.created_at))}`;
    const branch = `,"default_branch":${q(p.default_branch)}`;
    const mid = `,"tag_list":${q(p.tag_list)},"ssh_url_to_repo":${q(`git@${this.host}:${path}.git`)},"http_url_to_repo":${q(`${base}/${path}.git`)},"web_url":${q(`${base}/${path}`)},"readme_url":null`;
    const tail = `,"avatar_url":${q(p.avatar_url ? (p.avatar_url.startsWith('/') ? base + p.avatar_url : p.avatar_url) : null)},"forks_count":${p.forks_count},"star_count":${p.star_count},"last_activity_at":${q(isoTime(p.last_activity_at))},"namespace":`;
    const policy = p.container_expiration_policy;
    const nextRun = policy.next_run_at ?? new Date(Date.parse(p.created_at) + DAY).toISOString();
    let custom: Partial<Record<SharedPiece, string>> = NO_CUSTOM;
    for (const k of Object.keys(SHARED_FIELDS) as SharedPiece[])
      if (!isDefault(p, SHARED_FIELDS[k])) {
        if (custom === NO_CUSTOM) custom = {};
        custom[k] = flat(SHARED_BUILDERS[k](p, this));
      }
    const out = new RecordJson(
      p,
      ns,
      this.paid,
      flat(head + branch + mid + tail),
      head.length,
      head.length + branch.length,
      head.length + branch.length + mid.length,
      intern(
        `,"packages_enabled":${p.packages_enabled},"empty_repo":${p.default_branch === null},"archived":${p.archived},"visibility":"${p.visibility}"`,
      ),
      intern(
        `,"resolve_outdated_diff_discussions":${p.resolve_outdated_diff_discussions},"container_registry_enabled":${p.container_registry_enabled}`,
      ),
      intern(
        `,"container_expiration_policy":{"cadence":${q(policy.cadence)},"enabled":${policy.enabled},"keep_n":${policy.keep_n},"older_than":${q(policy.older_than)},"name_regex":${q(policy.name_regex)},"name_regex_keep":${q(policy.name_regex_keep)},"next_run_at":`,
      ),
      q(isoTime(nextRun)),
      custom,
      p.namespace_kind === 'user',
      disabledFeatures(p),
      p.archived,
      p.creator_id,
      p.forked_from_project_id,
      p.id,
      p.namespace_id,
      p.owner_id,
    );
    records.set(p, out);
    if (slot) slot.rendered = out;
    return out;
  }

  /** The shared pieces of a default-valued project, for this request's settings and tier. */
  #shared(): Shared {
    if (this.#shared_) return this.#shared_;
    const st = this.st;
    const key = this.paid ? 'paid' : 'free';
    let byTier = sharedCache.get(st.settings);
    if (!byTier) sharedCache.set(st.settings, (byTier = {}));
    let out = byTier[key];
    if (!out) {
      const d = PROJECT_DEFAULTS as unknown as Project;
      const pieces = {} as Record<SharedPiece, string>;
      for (const k of Object.keys(SHARED_BUILDERS) as SharedPiece[]) pieces[k] = SHARED_BUILDERS[k](d, this);
      out = { pieces, afterPolicy: [], beforeRunners: [], afterRunners: [], afterShares: [] };
      byTier[key] = out;
    }
    return (this.#shared_ = out);
  }

  /** `auto_devops_enabled`: the project's own choice, else the instance setting (on by default). */
  autoDevops(p: Project): boolean {
    return p.auto_devops_enabled ?? setting(this.st, 'auto_devops_enabled');
  }

  /** The entity as a JSON string. */
  json(record: ProjectRecord, o: ProjectEntityOptions = {}): string {
    return this.bytes(record, o).toString('utf8');
  }

  /** The entity's JSON as UTF-8 bytes: what a response sends, encoded once per rendering. */
  bytes(record: ProjectRecord, o: ProjectEntityOptions = {}): Buffer<ArrayBuffer> {
    return this.#view(record as Project, this.st, o, this.#viewKey(o)).json;
  }

  /** What a rendering depends on besides the record and tables: the viewer and the options. */
  #viewKey(o: ProjectEntityOptions): string {
    return `${this.viewer?.id ?? 0}|${o.shape ?? 'full'}|${+!!o.statistics}${+!!o.license}${+!!o.customAttributes}${+!!o.canAdminProject}${+!!o.directGroupAccess}`;
  }

  /** Whether a kept rendering stands for this request: same key, viewer, base URL, tier and tables. */
  #fresh(v: View | undefined, key: string, st: PlatformState): v is View {
    return (
      v !== undefined &&
      v.key === key &&
      v.viewer === this.viewer &&
      v.projects === st.projects &&
      v.members === st.members &&
      v.shares === st.shares &&
      v.groups === st.groups &&
      v.users === st.users &&
      v.settings === st.settings &&
      v.paid === this.paid &&
      v.base === this.base
    );
  }

  /**
   * One entity's rendering for this viewer and these options. A record keeps its last few, so that a
   * client reading the same projects again gets the same bytes without a rebuild or an encoding; any
   * write to the tables they were made from makes a fresh one. Kept as UTF-8 (outside the JS heap, which
   * the garbage collector then need not trace).
   */
  #view(p: Project, st: PlatformState, o: ProjectEntityOptions, key: string, slot?: RenderSlot): View {
    const r = this.#record(p, st, slot);
    const views = r.views;
    const i = views ? views.findIndex((x) => x.key === key) : -1;
    const v = i >= 0 ? views![i] : undefined;
    if (this.#fresh(v, key, st)) return v;
    const parts: string[] = [];
    this.#write(parts, p, o, slot);
    const made: View = {
      key,
      base: this.base,
      paid: this.paid,
      viewer: this.viewer,
      projects: st.projects,
      members: st.members,
      shares: st.shares,
      groups: st.groups,
      users: st.users,
      settings: st.settings,
      json: Buffer.from(parts.join(''), 'utf8'),
    };
    // One per key; a record read by many viewers starts over rather than growing.
    if (!views || views.length >= VIEWS_PER_RECORD) r.views = [made];
    else if (i >= 0) views[i] = made;
    else views.push(made);
    return made;
  }

  /** The entity as an object. */
  entity(p: ProjectRecord, o: ProjectEntityOptions = {}): Record<string, unknown> {
    return JSON.parse(this.json(p, o)) as Record<string, unknown>;
  }

  /**
   * A JSON array of the entities of records that come with a slot for their cached JSON (the list keys),
   * as its pieces (brackets, commas and the cached renderings): a response writes or joins them.
   */
  listChunks(
    items: readonly RenderSlot[],
    o: ProjectEntityOptions = {},
  ): { chunks: Buffer<ArrayBuffer>[]; size: number } {
    if (items.length === 0) return { chunks: [EMPTY_ARRAY], size: EMPTY_ARRAY.length };
    const st = this.st;
    const key = this.#viewKey(o);
    const chunks: Buffer<ArrayBuffer>[] = new Array<Buffer<ArrayBuffer>>(items.length * 2 + 1);
    let size = items.length + 1;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      let v = item.view as View | undefined;
      if (!this.#fresh(v, key, st)) item.view = v = this.#view(item.p as Project, st, o, key, item);
      chunks[i * 2] = i === 0 ? OPEN : COMMA;
      chunks[i * 2 + 1] = v.json;
      size += v.json.length;
    }
    chunks[items.length * 2] = CLOSE;
    return { chunks, size };
  }

  /** Appends the pieces of one entity's JSON to `parts`. */
  #write(parts: string[], p: Project, o: ProjectEntityOptions, slot?: RenderSlot): void {
    const st = this.st;
    const viewer = this.viewer;
    const admin = this.admin;
    const r = this.#record(p, st, slot);
    // Admins may do everything a membership would allow: their level changes no field, and only a
    // disabled feature is closed to them (read from the cache entry, without touching the record).
    const access = viewer && !admin ? this.#access(p) : admin ? ACCESS.OWNER : 0;
    const download = admin ? (r.disabled & 32) === 0 : canDownloadCode(p, viewer, access);
    const shape = o.shape ?? 'full';

    const t = r.text;
    if (o.license) {
      const left = t.slice(0, r.licenseAt);
      parts.push(download ? left : withoutBranch(r, left), LICENSE, t.slice(r.licenseAt));
    } else parts.push(download ? t : withoutBranch(r, t));
    parts.push(r.ns.json);
    if (o.customAttributes)
      parts.push(
        `,"custom_attributes":${q(Object.entries(p.custom_attributes).map(([key, value]) => ({ key, value })))}`,
      );
    if (shape === 'basic') {
      parts.push('}');
      return;
    }

    let features: number;
    if (admin) features = ~r.disabled & 31;
    else
      features =
        +featureAvailable(p.issues_access_level, 'issues', access, admin) |
        (+featureAvailable(p.merge_requests_access_level, 'merge_requests', access, admin) << 1) |
        (+featureAvailable(p.wiki_access_level, 'wiki', access, admin) << 2) |
        (+featureAvailable(p.builds_access_level, 'builds', access, admin) << 3) |
        (+featureAvailable(p.snippets_access_level, 'snippets', access, admin) << 4);
    const issues = (features & 1) !== 0;
    const mrs = (features & 2) !== 0;
    const canMr = !!viewer && mrs && !r.archived;
    const canAdmin = o.canAdminProject === true;
    const shared = this.#shared();
    const sh = shared.pieces;
    const cu = r.custom;
    const plain = cu === NO_CUSTOM;

    const links = (this.#links ??= linkTemplates(this.base))[features & 3]!;
    const id = String(r.id);
    parts.push(links[0]!);
    for (let i = 1; i < links.length; i++) parts.push(id, links[i]!);
    parts.push(r.flags, r.ns.owner, r.registry, r.policyHead, r.nextRun);
    if (plain) {
      const k = features | (+canMr << 5);
      parts.push(
        (shared.afterPolicy[k] ??= flat(
          '}' +
            FEATURE_FLAGS[features]! +
            sh.b +
            `,"can_create_merge_request_in":${canMr}` +
            sh.c +
            ',"creator_id":',
        )),
      );
    } else
      parts.push(
        '}',
        FEATURE_FLAGS[features]!,
        cu.b ?? sh.b,
        `,"can_create_merge_request_in":${canMr}`,
        cu.c ?? sh.c,
        ',"creator_id":',
      );
    parts.push(String(r.creatorId));

    if (r.forkedFrom !== null) {
      const parent = tget(st.projects, r.forkedFrom);
      if (parent && canReadProject(st, viewer, parent)) {
        parts.push(',"forked_from_project":');
        this.#write(parts, parent as Project, {
          shape: 'basic',
          license: o.license,
          customAttributes: o.customAttributes,
        });
      }
    }
    if (plain) {
      parts.push(
        (shared.beforeRunners[+canAdmin | (+issues << 1)] ??= flat(
          sh.d + (canAdmin ? sh.importError : '') + (issues ? sh.openIssues : ''),
        )),
      );
      if (canAdmin) parts.push(',"runners_token":', q(p.runners_token));
      parts.push(
        (shared.afterRunners[+canAdmin | (+download << 1)] ??= flat(
          sh.e +
            (canAdmin ? sh.gitStrategy : '') +
            sh.f +
            (download ? sh.ciConfig : '') +
            ',"shared_with_groups":',
        )),
      );
    } else {
      parts.push(cu.d ?? sh.d);
      if (canAdmin) parts.push(cu.importError ?? sh.importError);
      if (issues) parts.push(cu.openIssues ?? sh.openIssues);
      if (canAdmin) parts.push(',"runners_token":', q(p.runners_token));
      parts.push(cu.e ?? sh.e);
      if (canAdmin) parts.push(cu.gitStrategy ?? sh.gitStrategy);
      parts.push(cu.f ?? sh.f);
      if (download) parts.push(cu.ciConfig ?? sh.ciConfig);
      parts.push(',"shared_with_groups":');
    }
    parts.push(this.#sharedWithGroups(p, st));
    const statistics = o.statistics === true && (admin || access >= ACCESS.REPORTER);
    if (plain && !statistics)
      parts.push((shared.afterShares[+admin] ??= flat(sh.g + sh.h + (admin ? sh.storage : '') + sh.ee)));
    else {
      parts.push(cu.g ?? sh.g);
      if (statistics) parts.push(`,"statistics":${q(projectStatistics(p.id))}`);
      parts.push(cu.h ?? sh.h);
      if (admin) parts.push(cu.storage ?? sh.storage);
      parts.push(cu.ee ?? sh.ee);
    }
    if (shape === 'withAccess')
      parts.push(',"permissions":', this.#permissions(r, p, o.directGroupAccess === true));
    parts.push('}');
  }

  #sharedWithGroups(p: Project, st: PlatformState): string {
    // Most worlds share few projects: with no share at all, no lookup.
    if (st.shares.size === 0) return '[]';
    const set = iget(st.idx.sharesBy, String(p.id));
    if (!set) return '[]';
    const out: string[] = [];
    for (const key of Object.keys(set)) {
      const sh = tget(st.shares, Number(key))!;
      const g = tget(st.groups, sh.group_id);
      if (!g) continue;
      out.push(
        `{"group_id":${g.id},"group_name":${q(g.name)},"group_full_path":${q(g.full_path)},"group_access_level":${sh.group_access},"expires_at":${q(sh.expires_at)}}`,
      );
    }
    return `[${out.join(',')}]`;
  }

  /**
   * The viewer's direct memberships: lists ask for every record, and a viewer with none (an admin,
   * usually) then needs no lookup at all. Kept across requests while the members table is unchanged.
   */
  #memberships(): Memberships {
    if (this.#levels) return this.#levels;
    const st = this.st;
    const none = { projects: new Map<number, number>(), groups: new Map<number, number>() };
    if (!this.viewer) return (this.#levels = none);
    let byUser = membershipCaches.get(st.members);
    if (!byUser) membershipCaches.set(st.members, (byUser = new Map()));
    let out = byUser.get(this.viewer.id);
    if (!out) {
      out = none;
      for (const id of mget(st.idx.membersByUser, String(this.viewer.id))) {
        const m = tget(st.members, id);
        if (m) (m.source === 'project' ? out.projects : out.groups).set(m.source_id, m.access_level);
      }
      byUser.set(this.viewer.id, out);
    }
    return (this.#levels = out);
  }

  /** `projectAccess` for the request's (non-admin) viewer, from the membership maps. */
  #access(p: Project): number {
    const v = this.viewer!;
    if (isPersonalOwner(p, v)) return ACCESS.OWNER;
    const { projects, groups } = this.#memberships();
    let level = projects.get(p.id) ?? 0;
    if (groups.size === 0) return level;
    const st = this.st;
    if (p.namespace_kind === 'group')
      for (
        let g = tget(st.groups, p.namespace_id);
        g;
        g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id)
      )
        level = Math.max(level, groups.get(g.id) ?? 0);
    // Shares count only for a member of some group: the slower core rule then decides.
    return iget(st.idx.sharesBy, String(p.id)) ? projectAccess(st, v, p) : level;
  }

  #permissions(r: RecordJson, p: Project, directGroupOnly: boolean): string {
    const v = this.viewer;
    if (!v) return NO_PERMISSIONS;
    const { projects, groups } = this.#memberships();
    let projectLevel = projects.size > 0 ? (projects.get(r.id) ?? 0) : 0;
    // The personal project's owner is its maintainer in the 13.x era.
    if (projectLevel === 0 && r.userNamespace && r.ownerId === v.id) projectLevel = ACCESS.MAINTAINER;
    let groupLevel = 0;
    if (!r.userNamespace && groups.size > 0)
      groupLevel = directGroupOnly ? (groups.get(r.namespaceId) ?? 0) : highestGroupLevel(this.st, p, v.id);
    if (projectLevel === 0 && groupLevel === 0) return NO_PERMISSIONS;
    return `{"project_access":${accessJson(projectLevel)},"group_access":${accessJson(groupLevel)}}`;
  }

  /** The viewer's authorization on a project (`min_access_level`, `membership`). */
  authorization(p: ProjectRecord): number {
    return authorizationLevel(this.st, this.viewer, p as Project);
  }
}

const RENDERER = Symbol('projectRenderer');

/** The renderer of this request (kept on the context: one per request, gone with it). */
export function projectRenderer(c: Ctx): ProjectRenderer {
  const holder = c as unknown as { [RENDERER]?: ProjectRenderer };
  return (holder[RENDERER] ??= new ProjectRenderer(c));
}

/**
 * One project as the given entity for this request's viewer (default `full`, the `Project` entity that
 * GroupDetail's `projects` and `shared_projects` use).
 */
export function projectEntity(
  c: Ctx,
  p: ProjectRecord,
  opts: {
    shape?: ProjectShape;
    statistics?: boolean;
    license?: boolean;
    customAttributes?: boolean;
  } = {},
): Record<string, unknown> {
  return projectRenderer(c).entity(p, opts);
}
