import { defineArea } from '../../core/area.js';
import { deleteProjectPackages } from './model.js';
import { goRoutes } from './go-routes.js';
import { mavenRoutes } from './maven-routes.js';
import { pypiGroupRoutes } from './pypi-group-routes.js';
import { rubygemsRoutes } from './rubygems-routes.js';
import { packagesRoutes } from './routes.js';
import {
  buildPackages,
  exportPackages,
  packageProblems,
  packageProjectFields,
  type PackagesProject,
} from './scenario.js';
import { emptyPackages } from './store.js';

export const packagesArea = defineArea({
  name: 'packages',
  state: { key: 'packages', empty: emptyPackages },
  routes: (r) => {
    packagesRoutes(r);
    mavenRoutes(r);
    pypiGroupRoutes(r);
    goRoutes(r);
    rubygemsRoutes(r);
  },
  scenario: {
    projectFields: packageProjectFields,
    projectProblems: (p: PackagesProject, at) => packageProblems(p, at),
    buildProject: (st, id, p: PackagesProject, b) => buildPackages(st, id, p, b),
    export: exportPackages,
  },
  cascade: { project: deleteProjectPackages },
});
