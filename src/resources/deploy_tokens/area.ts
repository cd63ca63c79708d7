import { deleteOwnedDeployTokens } from './model.js';
import { defineArea } from '../../core/area.js';
import {
  buildDeployTokens,
  deployTokenFields,
  deployTokenProblems,
  exportDeployTokens,
  type DeployTokenOwner,
} from './scenario.js';
import { deployTokensRoutes } from './routes.js';
import { emptyDeployTokens } from './store.js';

export const deployTokensArea = defineArea({
  name: 'deploy_tokens',
  state: { key: 'deployTokens', empty: emptyDeployTokens },
  routes: deployTokensRoutes,
  scenario: {
    groupFields: deployTokenFields,
    projectFields: deployTokenFields,
    problems: (s: { groups: DeployTokenOwner[]; projects: DeployTokenOwner[] }) => deployTokenProblems(s),
    buildGroup: (st, id, g: DeployTokenOwner, b) =>
      buildDeployTokens(st, 'group', id, g.deploy_tokens, b.now),
    buildProject: (st, id, p: DeployTokenOwner, b) =>
      buildDeployTokens(st, 'project', id, p.deploy_tokens, b.now),
    export: exportDeployTokens,
  },
  cascade: {
    project: (st, id) => deleteOwnedDeployTokens(st, 'project', id),
    group: (st, id) => deleteOwnedDeployTokens(st, 'group', id),
  },
});
