import { defineArea } from '../../core/area.js';
import { deleteProjectStates } from './model.js';
import { terraformModuleRoutes } from './modules.js';
import { terraformStateRoutes } from './routes.js';
import { emptyTerraform } from './store.js';

export const terraformArea = defineArea({
  name: 'terraform',
  state: { key: 'terraform', empty: emptyTerraform },
  routes: (r) => {
    terraformStateRoutes(r);
    terraformModuleRoutes(r);
  },
  cascade: { project: deleteProjectStates },
});
