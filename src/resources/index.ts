import type { ApiRouter } from '../core/router.js';
import { ciRoutes } from './ci/routes.js';
import { featureRoutes } from './features/routes.js';
import { groupsRoutes } from './groups/routes.js';
import { identityRoutes } from './oauth/index.js';
import { importExportRoutes } from './import_export/routes.js';
import { issuablesRoutes } from './issuables/routes.js';
import { setupAreaRoutes } from './metadata/areas.js';
import { projectsRoutes } from './projects/routes.js';
import { instanceContentRoutes } from './settings/areas.js';
import { environmentsRoutes } from './environments/routes.js';
import { sidekiqRoutes } from './sidekiq/routes.js';
import { triggersRoutes } from './triggers/routes.js';
import { usersRoutes } from './users/routes.js';

/** Every API area, registered on one router (mounted at `/api/v4`). */
export function registerApi(r: ApiRouter): void {
  usersRoutes(r);
  groupsRoutes(r);
  projectsRoutes(r);
  ciRoutes(r);
  featureRoutes(r);
  identityRoutes(r);
  issuablesRoutes(r);
  instanceContentRoutes(r);
  importExportRoutes(r);
  setupAreaRoutes(r);
  triggersRoutes(r);
  environmentsRoutes(r);
  sidekiqRoutes(r);
}
