import { deleteProjectIntegrations } from './store.js';
import { defineArea } from '../../core/area.js';
import {
  buildProjectIntegrations,
  exportIntegrations,
  integrationFields,
  integrationProblems,
  type IntegrationsProject,
} from './scenario.js';
import { integrationControl } from './control.js';
import { integrationsRoutes } from './routes.js';
import { emptyIntegrations } from './store.js';

export const integrationsArea = defineArea({
  name: 'integrations',
  state: { key: 'integrations', empty: emptyIntegrations },
  routes: integrationsRoutes,
  control: integrationControl,
  scenario: {
    projectFields: integrationFields,
    projectProblems: (p: IntegrationsProject, at) => integrationProblems(p.integrations, at),
    buildProject: (st, id, p: IntegrationsProject, b) =>
      buildProjectIntegrations(st, id, p.integrations, b.now),
    export: exportIntegrations,
  },
  cascade: { project: deleteProjectIntegrations },
});
