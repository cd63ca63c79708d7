/**
 * `DELETE /projects/:id/pages` (`lib/api/pages.rb`): `authenticated_with_can_read_all_resources!` (admins
 * only, 401 then 403), then `authorize! :remove_pages` on the project, then `Pages::DeleteService`: the
 * project's Pages are no longer deployed and its Pages domains are deleted (`pages_domains.delete_all`);
 * the site's files go in the background, and fauxlab serves none. 204.
 */
import { requireAdmin } from '../../core/auth.js';
import { write } from '../../core/context.js';
import type { ApiRouter } from '../../core/router.js';
import { loadProject } from '../projects/helpers.js';
import { deleteProjectDomains } from './model.js';

export function pagesRoutes(r: ApiRouter): void {
  r.delete('/projects/:id/pages', (c) => {
    requireAdmin(c);
    // An admin may `remove_pages` on any project; one it cannot find is the project's 404.
    const project = loadProject(c);
    write(c, (d) => deleteProjectDomains(d, project.id));
    return c.body(null, 204);
  });
}
