import type { ApiRouter } from '../../core/router.js';
import { branchRoutes } from './branches.js';
import { commitRoutes } from './commits.js';
import { fileRoutes } from './files.js';
import { repositoryReadRoutes } from './repositories.js';
import { tagRoutes } from './tags.js';

export function repositoryRoutes(r: ApiRouter): void {
  branchRoutes(r);
  commitRoutes(r);
  fileRoutes(r);
  repositoryReadRoutes(r);
  tagRoutes(r);
}
