import { deleteProjectImportExport } from './store.js';
import { defineArea } from '../../core/area.js';
import { importExportControl } from './control.js';
import { importExportJobs } from './jobs.js';
import { remoteImportRoutes } from './remote-import.js';
import { importExportRoutes } from './routes.js';
import { emptyImportExport } from './store.js';

export const importExportArea = defineArea({
  name: 'import_export',
  state: { key: 'importExport', empty: emptyImportExport },
  routes: (r) => {
    importExportRoutes(r);
    remoteImportRoutes(r);
  },
  jobs: importExportJobs,
  control: importExportControl,
  cascade: { project: deleteProjectImportExport },
});
