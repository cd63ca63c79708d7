/**
 * The platform's state: one immer root per instance. Records are normalised (ids and foreign keys);
 * what clients see is built from them by entity functions, per viewer. Sequences and indexes live in the
 * state too, so that reset, snapshot and restore are exact.
 */
import { DEFAULT_MINOR, type Minor } from './versions.js';
import { dict } from './own.js';
import { projectNamesOf, type ProjectNames } from './project-names.js';
import {
  emptyIndex,
  emptyTable,
  isDraftNode,
  peekAt,
  type Index,
  type MultiIndex,
  type Table,
} from './table.js';

import { upgradeTables } from './table-upgrade.js';
export type Tier = 'free' | 'premium' | 'ultimate';
export type Visibility = 'private' | 'internal' | 'public';

export interface Identity {
  provider: string;
  extern_uid: string;
  saml_provider_id: number | null;
}

/**
 * `User#blocked?`: the states the platform's state machine groups as blocked (`state :blocked,
 * :ldap_blocked, :blocked_pending_approval, :banned do def blocked? = true`), which may not sign in,
 * use a token or run git.
 */
export const isBlocked = (u: { state: string }): boolean =>
  u.state === 'blocked' ||
  u.state === 'ldap_blocked' ||
  u.state === 'blocked_pending_approval' ||
  u.state === 'banned';

export interface UserRecord {
  id: number;
  username: string;
  name: string;
  email: string;
  /**
   * `banned` from GitLab 14.3 (`POST /users/:id/ban`, src/resources/users/moderation.ts);
   * `blocked_pending_approval`: a sign-up waiting for an administrator (`POST /users/:id/approve`).
   */
  state: 'active' | 'blocked' | 'ldap_blocked' | 'blocked_pending_approval' | 'deactivated' | 'banned';
  admin: boolean;
  bot: boolean;
  created_at: string;
  updated_at: string;
  bio: string;
  location: string | null;
  public_email: string;
  skype: string;
  linkedin: string;
  twitter: string;
  website_url: string;
  organization: string | null;
  job_title: string;
  avatar_url: string | null;
  last_sign_in_at: string | null;
  current_sign_in_at: string | null;
  last_sign_in_ip: string | null;
  current_sign_in_ip: string | null;
  sign_in_count: number;
  confirmed_at: string | null;
  last_activity_on: string | null;
  theme_id: number;
  color_scheme_id: number;
  projects_limit: number;
  note: string | null;
  identities: Identity[];
  can_create_group: boolean;
  two_factor_enabled: boolean;
  external: boolean;
  private_profile: boolean;
  commit_email: string | null;
  shared_runners_minutes_limit: number | null;
  extra_shared_runners_minutes_limit: number | null;
  custom_attributes: Record<string, string>;
  /** The user's personal namespace (ids shared with groups). */
  namespace_id: number;
  /** sha256 of the password; the password itself is never stored. */
  password_digest: string | null;
  password_expires_at: string | null;
}

export type TokenKind = 'personal' | 'impersonation' | 'oauth' | 'job';

export interface TokenRecord {
  id: number;
  user_id: number;
  kind: TokenKind;
  name: string;
  scopes: string[];
  created_at: string;
  /** Personal tokens expire at the start of this date (`YYYY-MM-DD`); OAuth tokens at this instant. */
  expires_at: string | null;
  revoked: boolean;
  /** sha256 of the token string; the token itself is never stored. */
  digest: string;
}

export interface GroupRecord {
  id: number;
  name: string;
  path: string;
  /** `parent/child`; kept in step with renames and moves. */
  full_path: string;
  parent_id: number | null;
  description: string;
  visibility: Visibility;
  created_at: string;
  updated_at: string;
  [field: string]: unknown;
}

export interface ProjectRecord {
  id: number;
  name: string;
  path: string;
  namespace_kind: 'group' | 'user';
  /** A group id, or a user's namespace id. */
  namespace_id: number;
  /** The owning user of a personal project. */
  owner_id: number | null;
  path_with_namespace: string;
  description: string;
  visibility: Visibility;
  archived: boolean;
  default_branch: string | null;
  creator_id: number;
  created_at: string;
  updated_at: string;
  last_activity_at: string;
  [field: string]: unknown;
}

export type MemberSource = 'project' | 'group';

export interface MemberRecord {
  id: number;
  source: MemberSource;
  source_id: number;
  user_id: number;
  access_level: number;
  expires_at: string | null;
  created_at: string;
}

export interface StarRecord {
  id: number;
  project_id: number;
  user_id: number;
  created_at: string;
}

/**
 * A group shared with another group (`GroupGroupLink`, `POST /groups/:id/share`): the members of the
 * group shared with get the shared group, its subgroups and their projects at no more than `group_access`.
 */
export interface GroupLinkRecord {
  id: number;
  shared_group_id: number;
  shared_with_group_id: number;
  group_access: number;
  expires_at: string | null;
  created_at: string;
}

/** A project shared with a group (`POST /projects/:id/share`). */
export interface ShareRecord {
  id: number;
  project_id: number;
  group_id: number;
  group_access: number;
  expires_at: string | null;
  created_at: string;
}

/** A file uploaded to a project (`POST /projects/:id/uploads`), served under the project's web path. */
export interface UploadRecord {
  id: number;
  project_id: number;
  /** 32 hex characters. */
  secret: string;
  filename: string;
  content_type: string;
  size: number;
  /** The bytes, base64-encoded (the state stays JSON-serialisable). */
  data: string;
  created_at: string;
}

export interface FeatureRecord {
  name: string;
  boolean: boolean | null;
  percentage_of_time: number | null;
  percentage_of_actors: number | null;
  actors: string[];
  groups: string[];
}

/** A project CI/CD variable (`Ci::Variable`). */
export interface VariableRecord {
  id: number;
  project_id: number;
  key: string;
  value: string;
  variable_type: 'env_var' | 'file';
  protected: boolean;
  masked: boolean;
  environment_scope: string;
  /** Not expanded (`raw`, 15.7 on); absent: false. */
  raw?: boolean;
}

export type PipelineStatus =
  | 'created'
  | 'waiting_for_resource'
  | 'preparing'
  | 'pending'
  | 'running'
  | 'success'
  | 'failed'
  | 'canceled'
  | 'skipped'
  | 'manual'
  | 'scheduled';

/** A variable given to one pipeline; `variable_type` is absent when the creator gave none. */
export interface PipelineVariable {
  key: string;
  value: string;
  variable_type?: 'env_var' | 'file';
}

export interface TestCaseRecord {
  status: 'success' | 'failed' | 'skipped' | 'error';
  name: string;
  classname: string;
  execution_time: number;
  system_output: string | null;
  stack_trace: string | null;
}

export interface TestSuiteRecord {
  name: string;
  test_cases: TestCaseRecord[];
}

/**
 * A pipeline. While `run_at` is set, the instance clock decides its status (`status` at `run_at`, which is
 * `pending` or `running`; running after it; `outcome` once `run_seconds` have passed) and its timestamps;
 * otherwise `status` and the stored timestamps hold.
 */
export interface PipelineRecord {
  id: number;
  project_id: number;
  ref: string;
  tag: boolean;
  sha: string;
  before_sha: string;
  user_id: number | null;
  yaml_errors: string | null;
  /** Shown once the pipeline has finished. */
  coverage: string | null;
  created_at: string;
  status: PipelineStatus;
  run_at: string | null;
  run_seconds: number;
  outcome: 'success' | 'failed';
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
  duration: number | null;
  variables: PipelineVariable[];
  test_suites: TestSuiteRecord[] | null;
  /**
   * `Ci::Pipeline#source` when it is not `push`, `web` or `api` as the record's history implies:
   * `merge_request_event` (with its merge request) or `external` (commit statuses).
   */
  source?: 'merge_request_event' | 'external';
  merge_request_id?: number;
}

/** A project's branches and tags (name -> sha); see `materialized` for the default branch. */
export interface RefsRecord {
  project_id: number;
  branches: Record<string, string>;
  tags: Record<string, string>;
  /** Set once the repository was written: from then on `branches` alone says which branches exist. */
  materialized?: boolean;
  /**
   * Every other ref, by its full name (`refs/notes/commits`, `refs/merge-requests/1/head`): kept as git
   * keeps any ref under `refs/`, with no branch or tag semantics.
   */
  others?: Record<string, string>;
}

/** A background job (src/core/jobs.ts), kept in the state so that a snapshot carries pending work. */
export interface JobRecord {
  id: number;
  /** Which runner handles it (registered with `ApiRouter.job`). */
  kind: string;
  /** Instance-clock milliseconds at which it runs. */
  due_ms: number;
  /** Plain JSON data for the runner. */
  payload: Record<string, unknown>;
}

/**
 * The slices the API areas add to the root, one key per area that keeps records of its own. Each area
 * adds its key where it defines its store (`declare module '../../core/state.js' { interface AreaStates
 * { topics: TopicsState } }`), so that the core names no area; the area list (src/resources/index.ts)
 * builds the empty slices.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by declaration merging
export interface AreaStates {}

/** What an area descriptor gives the core to build its slice of an empty state. */
export interface AreaSlice {
  readonly state?: { readonly key: keyof AreaStates; readonly empty: () => unknown };
}

export interface PlatformState extends AreaStates {
  tier: Tier;
  /** The GitLab minor release the instance answers as (src/core/versions.ts). */
  version: Minor;
  /** Application settings: the stored overrides; defaults live with the settings area. */
  settings: Record<string, unknown>;
  features: Record<string, FeatureRecord>;
  /** Global id sequences: the last id handed out per table. */
  seq: Record<string, number>;
  users: Table<UserRecord>;
  tokens: Table<TokenRecord>;
  groups: Table<GroupRecord>;
  projects: Table<ProjectRecord>;
  members: Table<MemberRecord>;
  stars: Table<StarRecord>;
  shares: Table<ShareRecord>;
  groupLinks: Table<GroupLinkRecord>;
  uploads: Table<UploadRecord>;
  variables: Table<VariableRecord>;
  pipelines: Table<PipelineRecord>;
  /** Keyed by project id. */
  refs: Table<RefsRecord>;
  /** Background work due on the instance clock, in due order (src/core/jobs.ts). */
  jobs: JobRecord[];
  idx: {
    /** lower-cased username -> user id */
    usernames: Index;
    /** lower-cased email -> user id */
    emails: Index;
    /** token digest -> token id */
    tokens: Index;
    /** user id -> token ids */
    tokensByUser: MultiIndex;
    /** lower-cased namespace full path -> group id, or -(user id) for a personal namespace */
    namespaces: Index;
    /** lower-cased path_with_namespace -> project id */
    projects: Index;
    /** `project:<id>:<user>` or `group:<id>:<user>` -> member id */
    members: Index;
    /** `project:<id>` / `group:<id>` -> member ids */
    membersBySource: MultiIndex;
    /** user id -> member ids */
    membersByUser: MultiIndex;
    /** `group:<id>` / `user:<user id>` -> project ids */
    projectsByNamespace: MultiIndex;
    /** parent group id, or `root` -> group ids */
    subgroups: MultiIndex;
    /** `<project>:<user>` -> star id */
    stars: Index;
    /** project id -> star ids; `u<user id>` -> star ids */
    starsBy: MultiIndex;
    /** `<project>:<group>` -> share id */
    shares: Index;
    /** project id -> share ids; `g<group id>` -> share ids */
    sharesBy: MultiIndex;
    /** `<shared group>:<shared with group>` -> group link id */
    groupLinks: Index;
    /** `s<shared group id>` / `w<shared with group id>` -> group link ids */
    groupLinksBy: MultiIndex;
    /** `all` -> ids of projects marked for adjourned deletion */
    projectsMarked: MultiIndex;
    /** `<project id>:<secret>/<filename>` -> upload id; `p<project id>` -> upload ids */
    uploads: Index;
    uploadsBy: MultiIndex;
    /** `p<project id>` -> variable ids */
    variablesBy: MultiIndex;
    /** project id -> pipeline ids */
    pipelinesBy: MultiIndex;
    /** `group:<id>:<name>` / `user:<user id>:<name>` -> project id(s) (`core/project-names.ts`) */
    projectNames: ProjectNames;
  };
}

/**
 * An empty state with the slices of `areas`. Every root is built the same way, key by key in the same
 * order, so that every root has the same hidden class (the area list is fixed per process).
 */
export function emptyState(
  areas: readonly AreaSlice[],
  tier: Tier = 'free',
  version: Minor = DEFAULT_MINOR,
): PlatformState {
  const st = {
    tier,
    version,
    settings: dict(),
    features: dict(),
    seq: {},
    users: emptyTable(),
    tokens: emptyTable(),
    groups: emptyTable(),
    projects: emptyTable(),
    members: emptyTable(),
    stars: emptyTable(),
    shares: emptyTable(),
    groupLinks: emptyTable(),
    uploads: emptyTable(),
    variables: emptyTable(),
    pipelines: emptyTable(),
    refs: emptyTable(),
  } as Record<string, unknown>;
  for (const a of areas) if (a.state) st[a.state.key] = a.state.empty();
  st.jobs = [];
  st.idx = {
    usernames: emptyIndex(),
    emails: emptyIndex(),
    tokens: emptyIndex(),
    tokensByUser: emptyIndex(),
    namespaces: emptyIndex(),
    projects: emptyIndex(),
    members: emptyIndex(),
    membersBySource: emptyIndex(),
    membersByUser: emptyIndex(),
    projectsByNamespace: emptyIndex(),
    subgroups: emptyIndex(),
    stars: emptyIndex(),
    starsBy: emptyIndex(),
    shares: emptyIndex(),
    sharesBy: emptyIndex(),
    groupLinks: emptyIndex(),
    groupLinksBy: emptyIndex(),
    projectsMarked: emptyIndex(),
    uploads: emptyIndex(),
    uploadsBy: emptyIndex(),
    variablesBy: emptyIndex(),
    pipelinesBy: emptyIndex(),
    projectNames: emptyIndex(),
  };
  return st as unknown as PlatformState;
}

/**
 * A state saved by an earlier fauxlab (a state file, a snapshot kept as JSON) with the areas added since
 * filled in empty and its tables in this layout (`upgradeTables`); the same object when nothing is
 * missing.
 */
export function completeState(saved: PlatformState, areas: readonly AreaSlice[]): PlatformState {
  // A frozen root was committed by a store of this layout; only one read back from JSON can be older.
  const st = Object.isFrozen(saved) ? saved : upgradeTables(saved);
  const empty = emptyState(areas, st.tier, st.version) as unknown as Record<string, unknown>;
  const given = st as unknown as Record<string, unknown>;
  const missing = Object.keys(empty).filter((k) => given[k] === undefined);
  const idx = (st.idx ?? {}) as unknown as Record<string, unknown>;
  const missingIdx = Object.keys(empty.idx as object).filter((k) => idx[k] === undefined);
  if (missing.length === 0 && missingIdx.length === 0) return st;
  const out = {
    ...empty,
    ...given,
    idx: { ...(empty.idx as object), ...idx },
  } as unknown as PlatformState;
  // An index derived from records is made from them, not left empty.
  if (idx.projectNames === undefined) out.idx.projectNames = projectNamesOf(out.projects);
  return out;
}

/** Hands out the next id of a global sequence (on a draft). */
export function nextId(state: PlatformState, seq: string): number {
  if (!isDraftNode(state)) {
    const id = (state.seq[seq] ?? 0) + 1;
    state.seq[seq] = id;
    return id;
  }
  // Through a draft root, the sequences are replaced by a copy of this write's (changed in place by the
  // next call) rather than drafted: immer's draft of them (a proxy, its traps, its finalisation) cost
  // more than the copy of a few dozen numbers.
  const cur = peekAt(state, 'seq') as Record<string, number>;
  const id = (cur[seq] ?? 0) + 1;
  if (isDraftNode(cur)) cur[seq] = id;
  else if (Object.isExtensible(cur) && cur !== peekBase(state)) cur[seq] = id;
  else {
    const next = { ...cur };
    next[seq] = id;
    state.seq = next;
  }
  return id;
}

/**
 * Runs `make` (which takes one id of `seq` through `nextId`) so that it takes `id`: a scenario built
 * from an export gives each record the id it had, as the platform's records keep their primary keys
 * through a backup and restore. The sequence then continues after the highest id handed out. Only on
 * a state being built (plain mutation); `taken` says whether a record holds the id already.
 */
export function withId<T>(
  state: PlatformState,
  seq: string,
  id: number | undefined,
  taken: (id: number) => boolean,
  make: () => T,
): T {
  if (id === undefined) return make();
  if (isDraftNode(state)) throw new Error('withId: only on a state being built');
  if (taken(id)) throw new Error(`${seq}: id ${id} is given to two records`);
  const before = state.seq[seq] ?? 0;
  state.seq[seq] = id - 1;
  try {
    return make();
  } finally {
    state.seq[seq] = Math.max(before, id);
  }
}

/** The sequences of the state a draft root was made from. */
const peekBase = (state: PlatformState) =>
  (state as unknown as { [k: symbol]: { base_: PlatformState } })[Symbol.for('immer-state')]!.base_.seq;
