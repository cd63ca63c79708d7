import { defineArea } from '../../core/area.js';
import { exportUserProfile } from './scenario.js';
import { userProfileRoutes } from './routes.js';
import { emptyProfile } from './store.js';

export const userProfileArea = defineArea({
  name: 'user_profile',
  state: { key: 'profile', empty: emptyProfile },
  routes: userProfileRoutes,
  scenario: { export: exportUserProfile },
});
