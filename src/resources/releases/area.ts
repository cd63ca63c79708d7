import { defineArea } from '../../core/area.js';
import { deleteProjectReleases } from './model.js';
import { releasesRoutes } from './routes.js';
import { buildReleases, exportReleases, releaseProjectFields, type ReleaseProject } from './scenario.js';
import { emptyReleases } from './store.js';

export const releasesArea = defineArea({
  name: 'releases',
  state: { key: 'releases', empty: emptyReleases },
  routes: releasesRoutes,
  scenario: {
    projectFields: releaseProjectFields,
    buildProject: (st, id, p: ReleaseProject, b) => buildReleases(st, id, p, b),
    export: exportReleases,
  },
  cascade: { project: deleteProjectReleases },
});
