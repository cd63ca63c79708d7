import { defineArea } from '../../core/area.js';
import { gitHttpRoutes } from './routes.js';

/** Git over smart HTTP: web routes only, over the repository area's objects and refs. */
export const gitHttpArea = defineArea({
  name: 'git_http',
  routes: gitHttpRoutes,
});
