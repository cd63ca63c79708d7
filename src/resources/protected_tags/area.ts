import { defineArea } from '../../core/area.js';
import { deleteProjectProtectedTags } from './model.js';
import { protectedTagsRoutes } from './routes.js';
import {
  buildProtectedTags,
  exportProtectedTags,
  protectedTagsProblems,
  protectedTagsProjectFields,
  type ProtectedTagsProject,
} from './scenario.js';
import { emptyProtectedTags } from './store.js';

export const protectedTagsArea = defineArea({
  name: 'protected_tags',
  state: { key: 'protected_tags', empty: emptyProtectedTags },
  routes: protectedTagsRoutes,
  scenario: {
    projectFields: protectedTagsProjectFields,
    projectProblems: (p: ProtectedTagsProject, at) => protectedTagsProblems(p, at),
    buildProject: (st, id, p: ProtectedTagsProject, b) => buildProtectedTags(st, id, p, b),
    export: exportProtectedTags,
  },
  cascade: { project: deleteProjectProtectedTags },
});
