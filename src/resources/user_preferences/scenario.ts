/** Scenario files' `user_preferences`: the preference rows, in the order they were made (their ids). */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut, ScenarioRefs } from '../../core/area.js';
import type { PlatformState } from '../../core/state.js';
import { tvalues } from '../../core/table.js';
import { updatePreference } from './model.js';

const preferenceScenario = z.strictObject({
  username: z.string().min(1).max(255),
  view_diffs_file_by_file: z.boolean().default(false),
});

export type PreferenceScenario = z.output<typeof preferenceScenario>;

export const preferenceFields = {
  user_preferences: z
    .array(preferenceScenario)
    .default([])
    .describe('users’ preference rows (PUT /user/preferences), in the order they were made'),
};

/** Unknown usernames and a user listed twice, as `user_preferences[i].username` lines. */
export function preferenceProblems(list: readonly PreferenceScenario[], refs: ScenarioRefs): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  list.forEach((p, i) => {
    const k = p.username.toLowerCase();
    const at = `user_preferences[${i}].username`;
    if (!refs.users.has(k)) problems.push(`${at}: no user "${p.username}" in the scenario`);
    else if (seen.has(k)) problems.push(`${at}: "${p.username}" is listed twice`);
    seen.add(k);
  });
  return problems;
}

export function buildPreferences(
  st: Draft<PlatformState>,
  list: readonly PreferenceScenario[],
  b: ScenarioBuild,
): void {
  for (const p of list)
    updatePreference(st, b.uid(p.username), { view_diffs_file_by_file: p.view_diffs_file_by_file });
}

export function exportPreferences(st: PlatformState, out: ScenarioOut): void {
  const list = [];
  for (const r of tvalues(st.preferences.records)) {
    const username = out.username(r.user_id);
    if (username !== undefined)
      list.push(r.view_diffs_file_by_file ? { username, view_diffs_file_by_file: true } : { username });
  }
  if (list.length) out.file.user_preferences = list;
}
