import { defineArea } from '../../core/area.js';
import { deleteGroupScope, deleteProjectScope } from './model.js';
import { jobTokenScopeRoutes } from './routes.js';
import { emptyJobTokenScope } from './store.js';

export const jobTokenScopeArea = defineArea({
  name: 'job_token_scope',
  state: { key: 'jobTokenScope', empty: emptyJobTokenScope },
  routes: jobTokenScopeRoutes,
  cascade: { project: deleteProjectScope, group: deleteGroupScope },
});
