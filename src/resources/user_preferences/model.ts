/** A user's preference row: read as the platform builds it when missing, made on the first write. */
import type { Draft } from 'immer';
import { nextId, type PlatformState } from '../../core/state.js';
import { iget, iset, tget, tset } from '../../core/table.js';
import type { UserPreferenceRecord } from './store.js';

export interface PreferenceChanges {
  view_diffs_file_by_file?: boolean;
}

export function preferenceOf(st: PlatformState, userId: number): UserPreferenceRecord | undefined {
  const id = iget(st.preferences.idx.byUser, String(userId));
  return id === undefined ? undefined : tget(st.preferences.records, id);
}

/**
 * `user.user_preference.update(attrs)`: `User#user_preference` builds the row with the column
 * defaults (`view_diffs_file_by_file` false) when the user has none, and the update saves it.
 */
export function updatePreference(
  st: Draft<PlatformState>,
  userId: number,
  changes: PreferenceChanges,
): UserPreferenceRecord {
  const at = iget(st.preferences.idx.byUser, String(userId));
  if (at !== undefined) {
    const rec = tget(st.preferences.records, at)!;
    if (changes.view_diffs_file_by_file !== undefined)
      rec.view_diffs_file_by_file = changes.view_diffs_file_by_file;
    return rec;
  }
  const id = nextId(st, 'user_preferences');
  const rec: UserPreferenceRecord = {
    id,
    user_id: userId,
    view_diffs_file_by_file: changes.view_diffs_file_by_file ?? false,
  };
  tset(st.preferences.records, id, rec);
  iset(st.preferences.idx.byUser, String(userId), id);
  return rec;
}
