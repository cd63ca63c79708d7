/** What changes in the users area between the GitLab releases fauxlab answers as (src/core/versions.ts). */
import { versioned } from '../../core/versions.js';

/** The doc page and merge request that date the ban and unban routes. */
export const USER_BAN_SOURCE =
  'doc/api/users.md "Ban user" (Introduced in GitLab 14.3, gitlab-org/gitlab#327354, merge request 68332)';

/**
 * A scenario user may be `banned` (the state `POST /users/:id/ban` gives) from 14.3; an instance of an
 * earlier release has no such state and loads the user as blocked, the state of the same group
 * (`User#blocked?`) that release has.
 */
export const BANNED_STATE = versioned({
  kind: 'behaviour',
  name: 'users: the banned state',
  what: 'a user may be `banned` (a scenario user with `state: banned` is loaded as `blocked` before)',
  since: '14.3',
  source: USER_BAN_SOURCE,
});
