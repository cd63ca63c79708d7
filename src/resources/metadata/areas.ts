/**
 * The areas clients call around their work, registered together: version and license, topics, deploy
 * tokens, instance and group CI/CD variables, and the users' profile sub-resources.
 */
import type { ApiRouter } from '../../core/router.js';
import { ciVariablesRoutes } from '../admin_variables/routes.js';
import { deployTokensRoutes } from '../deploy_tokens/routes.js';
import { topicsRoutes } from '../topics/routes.js';
import { userProfileRoutes } from '../user_profile/routes.js';
import { metadataRoutes } from './routes.js';

export function setupAreaRoutes(r: ApiRouter): void {
  metadataRoutes(r);
  topicsRoutes(r);
  deployTokensRoutes(r);
  ciVariablesRoutes(r);
  userProfileRoutes(r);
}
