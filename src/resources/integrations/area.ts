import { defineArea } from '../../core/area.js';
import { exportIntegrations } from './scenario.js';
import { integrationControl } from './control.js';
import { integrationsRoutes } from './routes.js';
import { emptyIntegrations } from './store.js';

export const integrationsArea = defineArea({
  name: 'integrations',
  state: { key: 'integrations', empty: emptyIntegrations },
  routes: integrationsRoutes,
  control: integrationControl,
  scenario: { export: exportIntegrations },
});
