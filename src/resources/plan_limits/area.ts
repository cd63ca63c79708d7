import { defineArea } from '../../core/area.js';
import { planLimitsRoutes } from './routes.js';
import { exportPlanLimits, planLimitFields, buildPlanLimits, type PlanLimitsScenario } from './scenario.js';
import { emptyPlanLimits } from './store.js';

export const planLimitsArea = defineArea({
  name: 'plan_limits',
  state: { key: 'planLimits', empty: emptyPlanLimits },
  routes: planLimitsRoutes,
  scenario: {
    fields: planLimitFields,
    build: (st, s: { plan_limits?: PlanLimitsScenario }) => buildPlanLimits(st, s.plan_limits),
    export: exportPlanLimits,
  },
});
