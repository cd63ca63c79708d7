import { defineArea } from '../../core/area.js';
import { deleteProjectDeployKeys } from './model.js';
import { deployKeysRoutes } from './routes.js';
import {
  buildDeployKeys,
  deployKeyProblems,
  deployKeyProjectFields,
  exportDeployKeys,
  type DeployKeyProject,
} from './scenario.js';
import { emptyDeployKeys } from './store.js';

export const deployKeysArea = defineArea({
  name: 'deploy_keys',
  state: { key: 'deployKeys', empty: emptyDeployKeys },
  routes: deployKeysRoutes,
  scenario: {
    projectFields: deployKeyProjectFields,
    projectProblems: (p: DeployKeyProject, at) => deployKeyProblems(p, at),
    buildProject: (st, id, p: DeployKeyProject, b) => buildDeployKeys(st, id, p, b),
    export: exportDeployKeys,
  },
  cascade: { project: deleteProjectDeployKeys },
});
