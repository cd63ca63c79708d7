import { defineArea } from '../../core/area.js';
import { deleteGroupExports, deleteProjectVulnerabilities } from './model.js';
import { exportJobs, exportRoutes } from './exports.js';
import { findingRoutes } from './findings.js';
import { issueLinkRoutes } from './issue-links.js';
import { vulnerabilityRoutes } from './routes.js';
import {
  buildIssueLinks,
  buildVulnerabilities,
  exportVulnerabilities,
  vulnerabilityFields,
  vulnerabilityProblems,
  type VulnerabilitiesProject,
} from './scenario.js';
import { emptyVulnerabilities } from './store.js';

export const vulnerabilitiesArea = defineArea({
  name: 'vulnerabilities',
  state: { key: 'vulnerabilities', empty: emptyVulnerabilities },
  routes: (r) => {
    vulnerabilityRoutes(r);
    findingRoutes(r);
    issueLinkRoutes(r);
    exportRoutes(r);
  },
  jobs: exportJobs,
  scenario: {
    projectFields: vulnerabilityFields,
    projectProblems: (p: VulnerabilitiesProject, at, refs) => vulnerabilityProblems(p, at, refs),
    buildProject: (st, id, p: VulnerabilitiesProject, b) => buildVulnerabilities(st, id, p, b),
    build: (st, s: { projects?: VulnerabilitiesProject[] }, b) => buildIssueLinks(st, s, b),
    export: exportVulnerabilities,
  },
  cascade: { project: deleteProjectVulnerabilities, group: deleteGroupExports },
});
