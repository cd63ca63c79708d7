import type { ApiRouter } from '../../core/router.js';
import { applicationsRoutes } from '../applications/routes.js';
import { scimRoutes } from '../scim/routes.js';
import { tokensRoutes } from '../tokens/routes.js';
import { oauthRoutes } from './routes.js';

/** The identity areas: the OAuth provider, admin applications, token management and group SCIM. */
export function identityRoutes(r: ApiRouter): void {
  oauthRoutes(r);
  applicationsRoutes(r);
  tokensRoutes(r);
  scimRoutes(r);
}
