import { defineArea } from '../../core/area.js';
import type { ApiRouter } from '../../core/router.js';
import { listRoutes } from '../projects/lists.js';

/** `GET /projects/:id/forks`: the project's direct forks the caller may see, with the projects list's filters. */
function forksRoutes(r: ApiRouter): void {
  r.get('/projects/:id/forks', (c) => listRoutes.listProjects(c, 'forks'));
}

export const forksArea = defineArea({ name: 'forks', routes: forksRoutes });
