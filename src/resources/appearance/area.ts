import { defineArea } from '../../core/area.js';
import { appearanceRoutes } from './routes.js';
import { appearanceFields, buildAppearance, exportAppearance, type AppearanceScenario } from './scenario.js';
import { emptyAppearance } from './store.js';

export const appearanceArea = defineArea({
  name: 'appearance',
  state: { key: 'appearance', empty: emptyAppearance },
  routes: appearanceRoutes,
  scenario: {
    fields: appearanceFields,
    build: (st, s: { appearance?: AppearanceScenario }) => buildAppearance(st, s.appearance),
    export: exportAppearance,
  },
});
