import { defineArea } from '../../core/area.js';
import { deleteProjectFreezePeriods } from './model.js';
import { freezePeriodsRoutes } from './routes.js';
import {
  buildFreezePeriods,
  exportFreezePeriods,
  freezeProblems,
  freezeProjectFields,
  type FreezeProject,
} from './scenario.js';
import { emptyFreezePeriods } from './store.js';

export const freezePeriodsArea = defineArea({
  name: 'freeze_periods',
  state: { key: 'freeze_periods', empty: emptyFreezePeriods },
  routes: freezePeriodsRoutes,
  scenario: {
    projectFields: freezeProjectFields,
    projectProblems: (p: FreezeProject, at) => freezeProblems(p, at),
    buildProject: (st, id, p: FreezeProject, b) => buildFreezePeriods(st, id, p, b),
    export: exportFreezePeriods,
  },
  cascade: { project: deleteProjectFreezePeriods },
});
