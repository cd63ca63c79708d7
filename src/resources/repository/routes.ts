import type { ApiRouter } from '../../core/router.js';
import { branchRoutes } from './branches.js';
import { commitRoutes } from './commits.js';
import { fileRoutes } from './files.js';
import { repositoryReadRoutes } from './repositories.js';
import { tagRoutes } from './tags.js';
import { statusRoutes } from './statuses.js';
import { pickRoutes } from './pick.js';
import { archiveRoutes } from './archive.js';
import { blameRoutes } from './blame.js';
import { commentRoutes } from './comments.js';
import { snapshotRoutes } from './snapshot.js';
import { submoduleRoutes } from './submodules.js';

export function repositoryRoutes(r: ApiRouter): void {
  branchRoutes(r);
  commitRoutes(r);
  blameRoutes(r);
  fileRoutes(r);
  repositoryReadRoutes(r);
  tagRoutes(r);
  statusRoutes(r);
  pickRoutes(r);
  commentRoutes(r);
  archiveRoutes(r);
  snapshotRoutes(r);
  submoduleRoutes(r);
}
