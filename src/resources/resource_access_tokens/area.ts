import { defineArea } from '../../core/area.js';
import { forgetProjectBots } from './model.js';
import { resourceAccessTokensRoutes } from './routes.js';
import { emptyResourceTokens } from './store.js';

export const resourceAccessTokensArea = defineArea({
  name: 'resource_access_tokens',
  state: { key: 'resourceTokens', empty: emptyResourceTokens },
  routes: resourceAccessTokensRoutes,
  cascade: { project: forgetProjectBots },
});
