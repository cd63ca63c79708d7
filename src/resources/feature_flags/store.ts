/**
 * Feature flags of projects (`Operations::FeatureFlag`, `lib/api/feature_flags.rb`), their user lists
 * (`Operations::FeatureFlags::UserList`) and each project's Unleash client token
 * (`Operations::FeatureFlagsClient`). A flag keeps its strategies (`Operations::FeatureFlags::Strategy`,
 * with their `Operations::FeatureFlags::Scope`s) or, for a 13.12 legacy flag, its
 * `Operations::FeatureFlagScope`s inside its record: they are read and written only with it.
 */
import { emptyIndex, emptyTable, type Index, type MultiIndex, type Table } from '../../core/table.js';

/** One strategy parameter value as the client sent it (`parameters` is a JSON column). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface StrategyScopeRecord {
  id: number;
  environment_scope: string;
}

export interface StrategyRecord {
  id: number;
  name: string;
  /** A prototype-free hash: the keys are the client's. */
  parameters: { [key: string]: JsonValue };
  scopes: StrategyScopeRecord[];
  /** `operations_strategies_user_lists`: the gitlabUserList strategy's list. */
  user_list_id: number | null;
}

/** A legacy flag's scope (`Operations::FeatureFlagScope`): its own active state and strategies JSON. */
export interface LegacyScopeRecord {
  id: number;
  active: boolean;
  environment_scope: string;
  strategies: JsonValue;
  created_at: string;
  updated_at: string;
}

export type FlagVersion = 'legacy_flag' | 'new_version_flag';

export interface FeatureFlagRecord {
  id: number;
  iid: number;
  project_id: number;
  name: string;
  description: string | null;
  active: boolean;
  version: FlagVersion;
  created_at: string;
  updated_at: string;
  strategies: StrategyRecord[];
  scopes: LegacyScopeRecord[];
}

export interface UserListRecord {
  id: number;
  iid: number;
  project_id: number;
  name: string;
  user_xids: string;
  created_at: string;
  updated_at: string;
}

export interface FeatureFlagsState {
  flags: Table<FeatureFlagRecord>;
  lists: Table<UserListRecord>;
  idx: {
    /** project id -> flag ids */
    flagsByProject: MultiIndex;
    /** project id -> user list ids */
    listsByProject: MultiIndex;
    /** `f<project>` / `u<project>` -> the last iid given (`has_internal_id :iid, scope: :project`) */
    iids: Index;
    /** project id -> the Unleash instance id (`Operations::FeatureFlagsClient#token`) */
    clients: Index<string>;
  };
}

export const emptyFeatureFlags = (): FeatureFlagsState => ({
  flags: emptyTable(),
  lists: emptyTable(),
  idx: {
    flagsByProject: emptyIndex(),
    listsByProject: emptyIndex(),
    iids: emptyIndex(),
    clients: emptyIndex<string>(),
  },
});

declare module '../../core/state.js' {
  interface AreaStates {
    feature_flags: FeatureFlagsState;
  }
}
