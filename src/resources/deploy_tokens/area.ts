import { defineArea } from '../../core/area.js';
import { exportDeployTokens } from './scenario.js';
import { deployTokensRoutes } from './routes.js';
import { emptyDeployTokens } from './store.js';

export const deployTokensArea = defineArea({
  name: 'deploy_tokens',
  state: { key: 'deployTokens', empty: emptyDeployTokens },
  routes: deployTokensRoutes,
  scenario: { export: exportDeployTokens },
});
