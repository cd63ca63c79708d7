import { defineArea } from '../../core/area.js';
import {
  buildUserProfile,
  exportUserProfile,
  userProfileFields,
  userProfileProblems,
  type UserProfile,
} from './scenario.js';
import { userProfileRoutes } from './routes.js';
import { emptyProfile } from './store.js';

export const userProfileArea = defineArea({
  name: 'user_profile',
  state: { key: 'profile', empty: emptyProfile },
  routes: userProfileRoutes,
  scenario: {
    userFields: userProfileFields,
    problems: (s: { users: UserProfile[] }) => userProfileProblems(s.users),
    buildUser: (st, id, u: UserProfile, b) => buildUserProfile(st, id, u, b.now),
    export: exportUserProfile,
  },
});
