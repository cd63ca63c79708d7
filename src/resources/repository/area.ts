import { defineArea } from '../../core/area.js';
import { idelete, mget, tdelete, tget } from '../../core/table.js';
import { emptyRepository } from './store.js';
import { repositoryRoutes } from './routes.js';
import { generateRepositories, generateRepositoryFields } from './generate.js';
import {
  buildRepository,
  exportRepositories,
  repositoryProblems,
  repositoryProjectFields,
  type RepositoryProject,
} from './scenario.js';

export const repositoryArea = defineArea({
  name: 'repository',
  state: { key: 'repository', empty: emptyRepository },
  routes: repositoryRoutes,
  scenario: {
    projectFields: repositoryProjectFields,
    projectProblems: (p: RepositoryProject, at, refs) => repositoryProblems(p, at, refs),
    // After the CI area's refs, so that a declared repository has the last word on its branches.
    buildProject: (st, id, p: RepositoryProject, b) => buildRepository(st, tget(st.projects, id)!, p, b),
    generateFields: generateRepositoryFields,
    generate: generateRepositories,
    export: exportRepositories,
  },
  cascade: {
    // Objects stay (a fork may share them, and the store is append-only); the protections go.
    project: (st, id) => {
      for (const pb of mget(st.repository.idx.protectedBy, String(id))) tdelete(st.repository.protected, pb);
      idelete(st.repository.idx.protectedBy, String(id));
    },
  },
});
