import { defineArea } from '../../core/area.js';
import { groupExportJobs, groupExportRoutes } from './routes.js';
import { deleteGroupExport, emptyGroupExport } from './store.js';

export const groupExportArea = defineArea({
  name: 'group_export',
  state: { key: 'groupExport', empty: emptyGroupExport },
  routes: groupExportRoutes,
  jobs: groupExportJobs,
  cascade: { group: deleteGroupExport },
});
