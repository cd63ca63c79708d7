import { defineArea } from '../../core/area.js';
import { preferencesRoutes } from './routes.js';
import {
  buildPreferences,
  exportPreferences,
  preferenceFields,
  preferenceProblems,
  type PreferenceScenario,
} from './scenario.js';
import { emptyPreferences } from './store.js';

export const userPreferencesArea = defineArea({
  name: 'user_preferences',
  state: { key: 'preferences', empty: emptyPreferences },
  routes: preferencesRoutes,
  scenario: {
    fields: preferenceFields,
    problems: (s: { user_preferences: PreferenceScenario[] }, refs) =>
      preferenceProblems(s.user_preferences, refs),
    build: (st, s: { user_preferences: PreferenceScenario[] }, b) =>
      buildPreferences(st, s.user_preferences, b),
    export: exportPreferences,
  },
});
