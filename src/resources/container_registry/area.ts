import { defineArea } from '../../core/area.js';
import { containerRegistryJobs } from './jobs.js';
import { deleteProjectRepositories } from './model.js';
import { containerRegistryRoutes } from './routes.js';
import {
  buildContainerConfig,
  buildContainerRepositories,
  containerRegistryFields,
  containerRegistryProblems,
  containerRegistryProjectFields,
  exportContainerRegistry,
  type ContainerRegistryProject,
  type ContainerRegistryTop,
} from './scenario.js';
import { emptyContainerRegistry } from './store.js';

export const containerRegistryArea = defineArea({
  name: 'container_registry',
  state: { key: 'container_registry', empty: emptyContainerRegistry },
  routes: containerRegistryRoutes,
  jobs: containerRegistryJobs,
  scenario: {
    fields: containerRegistryFields,
    projectFields: containerRegistryProjectFields,
    projectProblems: (p: ContainerRegistryProject, at) => containerRegistryProblems(p, at),
    buildFirst: (st, s: ContainerRegistryTop) => buildContainerConfig(st, s),
    buildProject: (st, id, p: ContainerRegistryProject, b) => buildContainerRepositories(st, id, p, b),
    export: exportContainerRegistry,
  },
  cascade: { project: deleteProjectRepositories },
});
