import { defineArea } from '../../core/area.js';
import { deleteProjectDeployments } from './model.js';
import { deploymentsRoutes } from './routes.js';
import {
  buildDeployments,
  deploymentProblems,
  deploymentProjectFields,
  exportDeployments,
  type DeploymentProject,
} from './scenario.js';
import { emptyDeployments } from './store.js';

export const deploymentsArea = defineArea({
  name: 'deployments',
  state: { key: 'deployments', empty: emptyDeployments },
  routes: deploymentsRoutes,
  scenario: {
    projectFields: deploymentProjectFields,
    projectProblems: (p: DeploymentProject, at, refs) => deploymentProblems(p, at, refs.users),
    buildProject: (st, id, p: DeploymentProject, b) => buildDeployments(st, id, p, b),
    export: exportDeployments,
  },
  cascade: { project: deleteProjectDeployments },
});
