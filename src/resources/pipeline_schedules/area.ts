import { defineArea } from '../../core/area.js';
import { deleteProjectSchedules } from './model.js';
import { pipelineScheduleRoutes } from './routes.js';
import {
  buildSchedules,
  exportSchedules,
  scheduleProblems,
  scheduleProjectFields,
  type ScheduleProject,
} from './scenario.js';
import { emptySchedules } from './store.js';

export const pipelineSchedulesArea = defineArea({
  name: 'pipeline_schedules',
  state: { key: 'pipelineSchedules', empty: emptySchedules },
  routes: pipelineScheduleRoutes,
  scenario: {
    projectFields: scheduleProjectFields,
    projectProblems: (p: ScheduleProject, at, refs) => scheduleProblems(p, at, refs.users),
    buildProject: (st, id, p: ScheduleProject, b) => buildSchedules(st, id, p, b),
    export: exportSchedules,
  },
  cascade: { project: deleteProjectSchedules },
});
