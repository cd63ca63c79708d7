import type { ApiRouter } from '../../core/router.js';
import { lintRoutes } from './lint.js';
import { pipelineRoutes } from './pipelines.js';
import { variableRoutes } from './variables.js';

/** The CI API: project variables, pipelines and the CI lint. */
export function ciRoutes(r: ApiRouter): void {
  variableRoutes(r);
  pipelineRoutes(r);
  lintRoutes(r);
}
