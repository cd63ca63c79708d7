import { defineArea } from '../../core/area.js';
import {
  buildApplications,
  buildGroupIdentity,
  exportIdentity,
  identityFields,
  identityGroupFields,
  identityScenarioProblems,
  type Group,
  type IdentityScenario,
} from './scenario.js';
import { oauthRoutes } from './routes.js';
import { emptyIdentity } from './store.js';

export const oauthArea = defineArea({
  name: 'oauth',
  state: { key: 'identity', empty: emptyIdentity },
  routes: oauthRoutes,
  scenario: {
    fields: identityFields,
    groupFields: identityGroupFields,
    problems: (s: IdentityScenario, refs) => identityScenarioProblems(s, refs.users),
    buildGroup: (st, id, g: Group, b) => buildGroupIdentity(st, id, g, b.uid, b.now),
    build: (st, s: IdentityScenario, b) => buildApplications(st, s, b.uid, b.now),
    export: exportIdentity,
  },
});
