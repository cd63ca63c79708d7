/** What changes in the tokens area between the GitLab releases fauxlab answers as (src/core/versions.ts). */
import { versioned } from '../../core/versions.js';

/** doc/api/personal_access_tokens.md, whose history notes date the single-token routes. */
export const PAT_DOC = 'doc/api/personal_access_tokens.md';

/**
 * `GET /personal_access_tokens/:id` tells an administrator that a token does not exist (404) where it
 * tells anyone else 401 ("Only admins should be informed if the token doesn't exist"); 15.1 and 15.2
 * answer 401 to all.
 */
export const PAT_ADMIN_NOT_FOUND = versioned({
  kind: 'behaviour',
  name: 'tokens: GET /personal_access_tokens/:id answers an administrator 404 for a missing token',
  what: 'an administrator asking for a token that does not exist gets 404 Not found (before: 401 Unauthorized, as everyone)',
  since: '15.3',
  source: `${PAT_DOC} "Get single personal access token" (404 introduced in GitLab 15.3, merge request 93650)`,
});
