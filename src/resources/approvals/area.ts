import { defineArea } from '../../core/area.js';
import { externalRuleRoutes } from './external.js';
import { deleteProjectApprovals, resetApprovalsOnPush } from './model.js';
import { approvalsMissing, mrApprovalRoutes } from './mr.js';
import { approvalsRoutes, projectRuleRoutes } from './routes.js';
import {
  approvalFields,
  approvalProblems,
  buildApprovals,
  exportApprovals,
  type ApprovalEntry,
} from './scenario.js';
import { emptyApprovals } from './store.js';

export const approvalsArea = defineArea({
  name: 'approvals',
  state: { key: 'approvals', empty: emptyApprovals },
  routes: (r) => {
    approvalsRoutes(r);
    projectRuleRoutes(r);
    mrApprovalRoutes(r);
    externalRuleRoutes(r);
  },
  scenario: {
    projectFields: approvalFields,
    projectProblems: (e: ApprovalEntry, at, refs) => approvalProblems(e, at, refs),
    buildProject: (st, id, e: ApprovalEntry, b) => buildApprovals(st, id, e, b),
    export: exportApprovals,
  },
  cascade: { project: (st, id) => deleteProjectApprovals(st, id) },
  push: resetApprovalsOnPush,
  mergeCheck: approvalsMissing,
});
