import { defineArea } from '../../core/area.js';
import { idelete, mget, tdelete } from '../../core/table.js';
import { emptyRepository } from './store.js';
import { repositoryRoutes } from './routes.js';

export const repositoryArea = defineArea({
  name: 'repository',
  state: { key: 'repository', empty: emptyRepository },
  routes: repositoryRoutes,
  cascade: {
    // Objects stay (a fork may share them, and the store is append-only); the protections go.
    project: (st, id) => {
      for (const pb of mget(st.repository.idx.protectedBy, String(id))) tdelete(st.repository.protected, pb);
      idelete(st.repository.idx.protectedBy, String(id));
    },
  },
});
