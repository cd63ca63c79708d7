import { defineArea } from '../../core/area.js';
import { deleteProjectDomains } from './model.js';
import { pagesRoutes } from './pages.js';
import { pagesDomainsRoutes } from './routes.js';
import {
  buildPagesDomains,
  exportPagesDomains,
  pagesDomainProblems,
  pagesDomainProjectFields,
  type PagesDomainProject,
} from './scenario.js';
import { emptyPagesDomains } from './store.js';

export const pagesDomainsArea = defineArea({
  name: 'pages_domains',
  state: { key: 'pagesDomains', empty: emptyPagesDomains },
  routes: (r) => {
    pagesDomainsRoutes(r);
    pagesRoutes(r);
  },
  scenario: {
    projectFields: pagesDomainProjectFields,
    problems: (s: { projects?: PagesDomainProject[] }) => pagesDomainProblems(s),
    buildProject: (st, id, p: PagesDomainProject, b) => buildPagesDomains(st, id, p, b),
    export: exportPagesDomains,
  },
  cascade: { project: deleteProjectDomains },
});
