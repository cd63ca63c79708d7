/**
 * `PUT /user/preferences` (`lib/api/users.rb`, GitLab 13.10): the current user's diff preference,
 * answered as `Entities::UserPreferences` (id, user_id, view_diffs_file_by_file). 13.12 requires
 * `view_diffs_file_by_file`; `show_whitespace_in_diffs` and `GET /user/preferences` came in 14.0.
 */
import { requireUser } from '../../core/auth.js';
import { state, write } from '../../core/context.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import { preferenceOf, updatePreference } from './model.js';
import type { UserPreferenceRecord } from './store.js';

export const preferencesEntity = (r: UserPreferenceRecord) => ({
  id: r.id,
  user_id: r.user_id,
  view_diffs_file_by_file: r.view_diffs_file_by_file,
});

export function preferencesRoutes(r: ApiRouter): void {
  r.put(
    '/user/preferences',
    { auth: 'required', params: { view_diffs_file_by_file: p.bool().required() } },
    (c, prm) => {
      const me = requireUser(c).id;
      write(c, (d) => {
        updatePreference(d, me, { view_diffs_file_by_file: prm.view_diffs_file_by_file });
      });
      return c.json(preferencesEntity(preferenceOf(state(c), me)!));
    },
  );
}
