import { defineArea } from '../../core/area.js';
import { deleteProjectFeatureFlags } from './model.js';
import { featureFlagsRoutes } from './routes.js';
import {
  buildFeatureFlags,
  exportFeatureFlags,
  featureFlagsProblems,
  featureFlagsProjectFields,
  type FeatureFlagsProject,
} from './scenario.js';
import { emptyFeatureFlags } from './store.js';

export const featureFlagsArea = defineArea({
  name: 'feature_flags',
  state: { key: 'feature_flags', empty: emptyFeatureFlags },
  routes: featureFlagsRoutes,
  scenario: {
    projectFields: featureFlagsProjectFields,
    projectProblems: (p: FeatureFlagsProject, at) => featureFlagsProblems(p, at),
    buildProject: (st, id, p: FeatureFlagsProject, b) => buildFeatureFlags(st, id, p, b),
    export: exportFeatureFlags,
  },
  cascade: { project: deleteProjectFeatureFlags },
});
