import { defineArea } from '../../core/area.js';
import { idelete } from '../../core/table.js';
import { housekeepingRoutes } from './routes.js';
import { emptyHousekeeping } from './store.js';

export const housekeepingArea = defineArea({
  name: 'housekeeping',
  state: { key: 'housekeeping', empty: emptyHousekeeping },
  routes: housekeepingRoutes,
  cascade: { project: (st, id) => idelete(st.housekeeping.leases, String(id)) },
});
