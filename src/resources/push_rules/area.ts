import { defineArea } from '../../core/area.js';
import { deletePushRule } from './model.js';
import { pushRulesRoutes } from './routes.js';
import {
  buildPushRule,
  exportPushRules,
  pushRuleProblems,
  pushRuleProjectFields,
  type PushRuleProject,
} from './scenario.js';
import { emptyPushRules } from './store.js';

export const pushRulesArea = defineArea({
  name: 'push_rules',
  state: { key: 'push_rules', empty: emptyPushRules },
  routes: pushRulesRoutes,
  scenario: {
    projectFields: pushRuleProjectFields,
    projectProblems: (p: PushRuleProject, at) => pushRuleProblems(p, at),
    buildProject: (st, id, p: PushRuleProject, b) => buildPushRule(st, id, p, b),
    export: exportPushRules,
  },
  cascade: { project: deletePushRule },
});
