/**
 * Users' preferences (`UserPreference`, one row a user, made the first time it is written). The API
 * reads and writes them through `PUT /user/preferences` (GitLab 13.10).
 */
import { emptyIndex, emptyTable, type Index, type Table } from '../../core/table.js';

export interface UserPreferenceRecord {
  /** The row's own id (`Entities::UserPreferences` shows it). */
  id: number;
  user_id: number;
  view_diffs_file_by_file: boolean;
}

export interface PreferencesState {
  records: Table<UserPreferenceRecord>;
  idx: {
    /** user id -> preference id */
    byUser: Index;
  };
}

export const emptyPreferences = (): PreferencesState => ({
  records: emptyTable(),
  idx: { byUser: emptyIndex() },
});

declare module '../../core/state.js' {
  interface AreaStates {
    preferences: PreferencesState;
  }
}
