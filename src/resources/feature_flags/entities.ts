/**
 * The feature flag entities of 13.12: `Entities::FeatureFlag` (with `FeatureFlag::LegacyScope`,
 * `Strategy`, `Scope`, `BasicUserList`), `FeatureFlag::UserList`, and the Unleash client's
 * `Entities::UnleashFeature` with its strategies (`UnleashStrategy`, `UnleashGitlabUserListStrategy`,
 * `UnleashLegacyStrategy`).
 */
import type { ProjectRecord } from '../../core/state.js';
import type {
  FeatureFlagRecord,
  JsonValue,
  LegacyScopeRecord,
  StrategyRecord,
  UserListRecord,
} from './store.js';

export type ListOf = (id: number) => UserListRecord | undefined;

export const basicUserList = (l: UserListRecord) => ({
  id: l.id,
  iid: l.iid,
  name: l.name,
  user_xids: l.user_xids,
});

const strategyEntity = (s: StrategyRecord, listOf: ListOf) => {
  const list = s.user_list_id === null ? undefined : listOf(s.user_list_id);
  return {
    id: s.id,
    name: s.name,
    parameters: s.parameters,
    scopes: s.scopes.map((x) => ({ id: x.id, environment_scope: x.environment_scope })),
    user_list: list ? basicUserList(list) : null,
  };
};

const legacyScopeEntity = (s: LegacyScopeRecord) => ({
  id: s.id,
  active: s.active,
  environment_scope: s.environment_scope,
  strategies: s.strategies,
  created_at: s.created_at,
  updated_at: s.updated_at,
});

export const flagEntity = (f: FeatureFlagRecord, listOf: ListOf) => ({
  name: f.name,
  description: f.description,
  active: f.active,
  version: f.version,
  created_at: f.created_at,
  updated_at: f.updated_at,
  scopes: f.scopes.map(legacyScopeEntity),
  strategies: f.strategies.map((s) => strategyEntity(s, listOf)),
});

/** `FeatureFlag::UserList`: the basic fields, the project, times and the UI's paths. */
export const userListEntity = (l: UserListRecord, project: ProjectRecord) => ({
  ...basicUserList(l),
  project_id: l.project_id,
  created_at: l.created_at,
  updated_at: l.updated_at,
  path: `/${project.path_with_namespace}/-/feature_flags_user_lists/${l.iid}`,
  edit_path: `/${project.path_with_namespace}/-/feature_flags_user_lists/${l.iid}/edit`,
});

/**
 * `UnleashFeature`: `description` left out when nil, `active` as `enabled`; a gitlabUserList strategy
 * is shown to the client as `userWithId` with the list's ids (Unleash knows no GitLab lists).
 */
export function unleashFeature(
  name: string,
  description: string | null,
  enabled: boolean,
  strategies: { name: string; parameters: JsonValue }[],
) {
  return description === null ? { name, enabled, strategies } : { name, description, enabled, strategies };
}

export function unleashStrategy(s: StrategyRecord, listOf: ListOf): { name: string; parameters: JsonValue } {
  if (s.name === 'gitlabUserList') {
    const list = s.user_list_id === null ? undefined : listOf(s.user_list_id);
    return { name: 'userWithId', parameters: { userIds: list?.user_xids ?? '' } };
  }
  return { name: s.name, parameters: s.parameters };
}

/** `UnleashLegacyStrategy`: a legacy scope's strategy hash's name and parameters. */
export function unleashLegacyStrategies(strategies: JsonValue): { name: string; parameters: JsonValue }[] {
  if (!Array.isArray(strategies)) return [];
  return strategies.map((s) => {
    const h = (typeof s === 'object' && s !== null && !Array.isArray(s) ? s : {}) as {
      [k: string]: JsonValue;
    };
    return { name: (h.name ?? null) as string, parameters: h.parameters ?? null };
  });
}
