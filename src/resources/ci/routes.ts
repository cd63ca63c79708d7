import type { ApiRouter } from '../../core/router.js';
import { pipelineRoutes } from './pipelines.js';
import { variableRoutes } from './variables.js';

/** The CI API: project variables and pipelines. */
export function ciRoutes(r: ApiRouter): void {
  variableRoutes(r);
  pipelineRoutes(r);
}
