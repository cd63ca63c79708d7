import { defineArea } from '../../core/area.js';
import { accessRequestsRoutes } from './routes.js';
import { invitationsRoutes } from './invitations.js';
import { deleteSourcePending } from './model.js';
import {
  buildPending,
  exportPending,
  pendingGroupFields,
  pendingProblems,
  pendingProjectFields,
  type PendingEntry,
} from './scenario.js';
import { emptyAccessRequests } from './store.js';

/** Access requests and invitations: the pending member rows of groups and projects. */
export const accessRequestsArea = defineArea({
  name: 'access_requests',
  state: { key: 'access_requests', empty: emptyAccessRequests },
  routes: (r) => {
    accessRequestsRoutes(r);
    invitationsRoutes(r);
  },
  scenario: {
    groupFields: pendingGroupFields,
    projectFields: pendingProjectFields,
    problems: pendingProblems,
    buildGroup: (st, id, g: PendingEntry, b) => buildPending(st, 'group', id, g, b),
    buildProject: (st, id, p: PendingEntry, b) => buildPending(st, 'project', id, p, b),
    export: exportPending,
  },
  cascade: {
    project: (st, id) => deleteSourcePending(st, 'project', id),
    group: (st, id) => deleteSourcePending(st, 'group', id),
  },
});
