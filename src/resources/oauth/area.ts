import { defineArea } from '../../core/area.js';
import { exportIdentity } from './scenario.js';
import { oauthRoutes } from './routes.js';
import { emptyIdentity } from './store.js';

export const oauthArea = defineArea({
  name: 'oauth',
  state: { key: 'identity', empty: emptyIdentity },
  routes: oauthRoutes,
  scenario: { export: exportIdentity },
});
