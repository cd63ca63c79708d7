import { defineArea } from '../../core/area.js';
import { deleteProjectStates } from './model.js';
import { terraformStateRoutes } from './routes.js';
import { emptyTerraform } from './store.js';

export const terraformArea = defineArea({
  name: 'terraform',
  state: { key: 'terraform', empty: emptyTerraform },
  routes: terraformStateRoutes,
  cascade: { project: deleteProjectStates },
});
