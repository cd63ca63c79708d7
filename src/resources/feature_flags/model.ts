/**
 * Feature flags' and user lists' reads and writes: `FeatureFlags::CreateService`/`UpdateService`/
 * `DestroyService` of 13.12 (nested attributes applied as `accepts_nested_attributes_for ...,
 * allow_destroy: true` applies them), `FeatureFlagsFinder`, `FeatureFlagsUserListsFinder`.
 */
import type { Draft } from 'immer';
import { apiError, internalError, recordNotFound } from '../../core/errors.js';
import { nextId, type PlatformState } from '../../core/state.js';
import { idelete, iget, iset, madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import type { LegacyScopeInput, ScopeInput, StrategyInput } from './input.js';
import type {
  FeatureFlagRecord,
  FlagVersion,
  JsonValue,
  LegacyScopeRecord,
  StrategyRecord,
  StrategyScopeRecord,
  UserListRecord,
} from './store.js';
import { flagErrors, userListErrors, type FlagDraft } from './validate.js';

/** `plan_limits.project_feature_flags` (`Limitable`), the default plan's 200. */
export const PROJECT_FEATURE_FLAGS_LIMIT = 200;

const byName = (a: FeatureFlagRecord, b: FeatureFlagRecord) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

/** The project's flags by id. */
export function flagsOf(st: PlatformState, projectId: number): FeatureFlagRecord[] {
  return mget(st.feature_flags.idx.flagsByProject, String(projectId))
    .sort((a, b) => a - b)
    .map((id) => tget(st.feature_flags.flags, id)!);
}

/** `FeatureFlagsFinder`: `scope` enabled/disabled, ordered by name (`ordered`). */
export function findFlags(
  st: PlatformState,
  projectId: number,
  scope?: 'enabled' | 'disabled',
): FeatureFlagRecord[] {
  let all = flagsOf(st, projectId);
  if (scope === 'enabled') all = all.filter((f) => f.active);
  if (scope === 'disabled') all = all.filter((f) => !f.active);
  return all.sort(byName);
}

export function flagByName(
  st: PlatformState,
  projectId: number,
  name: string,
): FeatureFlagRecord | undefined {
  return flagsOf(st, projectId).find((f) => f.name === name);
}

export function userListsOf(st: PlatformState, projectId: number): UserListRecord[] {
  return mget(st.feature_flags.idx.listsByProject, String(projectId))
    .sort((a, b) => a - b)
    .map((id) => tget(st.feature_flags.lists, id)!);
}

export function userList(st: PlatformState, id: number): UserListRecord | undefined {
  return tget(st.feature_flags.lists, id);
}

/** The strategies (of any flag of the project) that use the list (`strategy_user_lists`). */
export function listInUse(st: PlatformState, list: UserListRecord): boolean {
  return flagsOf(st, list.project_id).some((f) => f.strategies.some((s) => s.user_list_id === list.id));
}

function nextIid(d: Draft<PlatformState>, key: string): number {
  const n = (iget(d.feature_flags.idx.iids, key) ?? 0) + 1;
  iset(d.feature_flags.idx.iids, key, n);
  return n;
}

/** `environment_scope=` strips (`HasEnvironmentScope`). */
const scopeName = (s: string | undefined) => (s ?? '').trim();

function buildScope(d: Draft<PlatformState>, input: ScopeInput): StrategyScopeRecord {
  return { id: nextId(d, 'feature_flag_scopes'), environment_scope: scopeName(input.environment_scope) };
}

function buildStrategy(d: Draft<PlatformState>, input: StrategyInput): StrategyRecord {
  return {
    id: nextId(d, 'feature_flag_strategies'),
    name: input.name ?? '',
    parameters: (input.parameters ?? Object.create(null)) as { [k: string]: JsonValue },
    scopes: (input.scopes ?? []).filter((s) => s._destroy !== true).map((s) => buildScope(d, s)),
    user_list_id: input.user_list_id ?? null,
  };
}

/** `accepts_nested_attributes_for :scopes, allow_destroy: true` on one strategy. */
function applyScopes(
  d: Draft<PlatformState>,
  cur: StrategyScopeRecord[],
  inputs: ScopeInput[],
): StrategyScopeRecord[] {
  let out = cur.map((s) => ({ id: s.id, environment_scope: s.environment_scope }));
  for (const i of inputs) {
    if (i.id === undefined) {
      if (i._destroy !== true) out.push(buildScope(d, i));
      continue;
    }
    const at = out.findIndex((s) => s.id === i.id);
    if (at < 0) throw recordNotFound(`no scope ${i.id} on this strategy`);
    if (i._destroy === true) out = out.filter((s) => s.id !== i.id);
    else if (i.environment_scope !== undefined) out[at]!.environment_scope = scopeName(i.environment_scope);
  }
  return out;
}

/** `accepts_nested_attributes_for :strategies, allow_destroy: true`; a strategy leaving gitlabUserList drops its list. */
function applyStrategies(
  d: Draft<PlatformState>,
  cur: readonly StrategyRecord[],
  inputs: StrategyInput[],
): StrategyRecord[] {
  let out: StrategyRecord[] = cur.map((s) => ({
    id: s.id,
    name: s.name,
    parameters: s.parameters,
    scopes: s.scopes.map((x) => ({ id: x.id, environment_scope: x.environment_scope })),
    user_list_id: s.user_list_id,
  }));
  for (const i of inputs) {
    if (i.id === undefined) {
      if (i._destroy !== true) out.push(buildStrategy(d, i));
      continue;
    }
    const s = out.find((x) => x.id === i.id);
    if (!s) throw recordNotFound(`no strategy ${i.id} on this flag`);
    if (i._destroy === true) {
      out = out.filter((x) => x.id !== i.id);
      continue;
    }
    if (i.name !== undefined && i.name !== s.name) {
      if (s.name === 'gitlabUserList') s.user_list_id = null;
      s.name = i.name;
    }
    if (i.parameters !== undefined) s.parameters = i.parameters as { [k: string]: JsonValue };
    if (i.scopes) s.scopes = applyScopes(d, s.scopes, i.scopes);
  }
  return out;
}

/**
 * `operations_scopes.environment_scope` and `operations_feature_flag_scopes.environment_scope` are
 * `varchar(255)`: a longer one fails in the database, past the validations (ActiveRecord::ValueTooLong,
 * a 500). It also bounds the glob match an Unleash request makes against each stored scope.
 */
export const SCOPE_COLUMN_LIMIT = 255;

function checkColumns(d: FlagDraft): void {
  const long = (s: string) => s.length > SCOPE_COLUMN_LIMIT;
  if (
    d.scopes.some((s) => long(s.environment_scope)) ||
    d.strategies.some((s) => s.scopes.some((x) => long(x.environment_scope)))
  )
    throw internalError();
}

/** The validations' full messages as a 400; `first` is Limitable's, which the model runs before the rest. */
function refuse(d: FlagDraft, st: PlatformState, first?: string): void {
  const e = flagErrors(d, flagsOf(st, d.record.project_id), (id) => tget(st.feature_flags.lists, id));
  const messages = [...(first === undefined ? [] : [first]), ...e.full()];
  if (messages.length > 0) throw apiError(400, messages);
  checkColumns(d);
}

export interface CreateFlag {
  name: string;
  description?: string;
  active?: boolean;
  version?: string;
  strategies?: StrategyInput[];
  scopes?: LegacyScopeInput[];
}

/** The DB default of 13.12's `operations_feature_flags.version`: 1, a legacy flag. */
const DEFAULT_VERSION: FlagVersion = 'legacy_flag';
/** `operations_feature_flag_scopes.strategies`' column default. */
const DEFAULT_LEGACY_STRATEGIES = (): JsonValue => [{ name: 'default', parameters: {} }];

/**
 * `FeatureFlags::CreateService`: `Version is invalid` unless a known version; the flag with its nested
 * records, validated; a legacy flag without scopes gets its default `*` scope (`build_default_scope`).
 */
export function createFlag(
  d: Draft<PlatformState>,
  projectId: number,
  input: CreateFlag,
  now: string,
): FeatureFlagRecord {
  if (input.version !== undefined && input.version !== 'legacy_flag' && input.version !== 'new_version_flag')
    throw apiError(400, 'Version is invalid');
  const version = (input.version as FlagVersion | undefined) ?? DEFAULT_VERSION;
  const active = input.active ?? true;
  const scopes: LegacyScopeRecord[] = (input.scopes ?? []).map((s) => ({
    id: nextId(d, 'feature_flag_legacy_scopes'),
    active: s.active,
    environment_scope: scopeName(s.environment_scope),
    strategies: s.strategies,
    created_at: now,
    updated_at: now,
  }));
  const strategies = (input.strategies ?? []).map((s) => buildStrategy(d, s));
  const draft: FlagDraft = {
    record: {
      id: 0,
      iid: 0,
      project_id: projectId,
      name: input.name,
      description: input.description ?? null,
      active,
      version,
      created_at: now,
      updated_at: now,
    },
    strategies,
    scopes,
    creating: true,
  };
  const overLimit = flagsOf(d, projectId).length >= PROJECT_FEATURE_FLAGS_LIMIT;
  refuse(
    draft,
    d,
    overLimit
      ? `Maximum number of project feature flags (${PROJECT_FEATURE_FLAGS_LIMIT}) exceeded`
      : undefined,
  );
  if (version === 'legacy_flag' && scopes.length === 0)
    scopes.push({
      id: nextId(d, 'feature_flag_legacy_scopes'),
      active,
      environment_scope: '*',
      strategies: DEFAULT_LEGACY_STRATEGIES(),
      created_at: now,
      updated_at: now,
    });
  const id = nextId(d, 'feature_flags');
  const rec: FeatureFlagRecord = {
    id,
    iid: nextIid(d, `f${projectId}`),
    project_id: projectId,
    name: draft.record.name,
    description: draft.record.description,
    active,
    version,
    created_at: now,
    updated_at: now,
    strategies,
    scopes,
  };
  tset(d.feature_flags.flags, id, rec);
  madd(d.feature_flags.idx.flagsByProject, String(projectId), id);
  return rec;
}

export interface UpdateFlag {
  name?: string;
  description?: string;
  active?: boolean;
  strategies?: StrategyInput[];
}

/** `FeatureFlags::UpdateService` on a new version flag: attributes and nested strategies, validated. */
export function updateFlag(
  d: Draft<PlatformState>,
  flag: FeatureFlagRecord,
  input: UpdateFlag,
  now: string,
): FeatureFlagRecord {
  const strategies = input.strategies
    ? applyStrategies(d, flag.strategies, input.strategies)
    : flag.strategies;
  const draft: FlagDraft = {
    record: {
      id: flag.id,
      iid: flag.iid,
      project_id: flag.project_id,
      name: input.name ?? flag.name,
      description: input.description !== undefined ? input.description : flag.description,
      active: input.active ?? flag.active,
      version: flag.version,
      created_at: flag.created_at,
      updated_at: flag.updated_at,
    },
    strategies,
    scopes: flag.scopes,
    creating: false,
  };
  refuse(draft, d);
  // The nested records' saves leave the flag's own timestamp alone: only its attributes touch it.
  const changed =
    draft.record.name !== flag.name ||
    draft.record.description !== flag.description ||
    draft.record.active !== flag.active;
  const r = draft.record;
  const rec: FeatureFlagRecord = {
    id: r.id,
    iid: r.iid,
    project_id: r.project_id,
    name: r.name,
    description: r.description,
    active: r.active,
    version: r.version,
    created_at: r.created_at,
    updated_at: changed ? now : flag.updated_at,
    strategies,
    scopes: flag.scopes,
  };
  tset(d.feature_flags.flags, flag.id, rec);
  return rec;
}

export function deleteFlag(d: Draft<PlatformState>, flag: FeatureFlagRecord): void {
  tdelete(d.feature_flags.flags, flag.id);
  mremove(d.feature_flags.idx.flagsByProject, String(flag.project_id), flag.id);
}

/** `Operations::FeatureFlags::UserList` create: validated, the project's next iid. */
export function createUserList(
  d: Draft<PlatformState>,
  projectId: number,
  name: string,
  userXids: string,
  now: string,
): UserListRecord {
  const e = userListErrors({ id: 0, name, user_xids: userXids }, userListsOf(d, projectId));
  if (!e.empty) throw apiError(400, e.full());
  const id = nextId(d, 'feature_flags_user_lists');
  const rec: UserListRecord = {
    id,
    iid: nextIid(d, `u${projectId}`),
    project_id: projectId,
    name,
    user_xids: userXids,
    created_at: now,
    updated_at: now,
  };
  tset(d.feature_flags.lists, id, rec);
  madd(d.feature_flags.idx.listsByProject, String(projectId), id);
  return rec;
}

export function updateUserList(
  d: Draft<PlatformState>,
  list: UserListRecord,
  input: { name?: string; user_xids?: string },
  now: string,
): UserListRecord {
  const name = input.name ?? list.name;
  const xids = input.user_xids ?? list.user_xids;
  const e = userListErrors({ id: list.id, name, user_xids: xids }, userListsOf(d, list.project_id));
  if (!e.empty) throw apiError(400, e.full());
  const changed = name !== list.name || xids !== list.user_xids;
  const rec: UserListRecord = {
    id: list.id,
    iid: list.iid,
    project_id: list.project_id,
    name,
    user_xids: xids,
    created_at: list.created_at,
    updated_at: changed ? now : list.updated_at,
  };
  tset(d.feature_flags.lists, list.id, rec);
  return rec;
}

/** `before_destroy :ensure_no_associated_strategies`: 409 with the base error while a strategy uses it. */
export function deleteUserList(d: Draft<PlatformState>, list: UserListRecord): void {
  if (listInUse(d, list)) throw apiError(409, ['User list is associated with a strategy']);
  tdelete(d.feature_flags.lists, list.id);
  mremove(d.feature_flags.idx.listsByProject, String(list.project_id), list.id);
}

export function unleashToken(st: PlatformState, projectId: number): string | undefined {
  return iget(st.feature_flags.idx.clients, String(projectId));
}

export function setUnleashToken(d: Draft<PlatformState>, projectId: number, token: string): void {
  iset(d.feature_flags.idx.clients, String(projectId), token);
}

/** The project's flags, lists and client go with it. */
export function deleteProjectFeatureFlags(d: Draft<PlatformState>, projectId: number): void {
  const key = String(projectId);
  for (const id of mget(d.feature_flags.idx.flagsByProject, key)) tdelete(d.feature_flags.flags, id);
  for (const id of mget(d.feature_flags.idx.listsByProject, key)) tdelete(d.feature_flags.lists, id);
  idelete(d.feature_flags.idx.flagsByProject, key);
  idelete(d.feature_flags.idx.listsByProject, key);
  idelete(d.feature_flags.idx.clients, key);
}
