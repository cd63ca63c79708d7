import { defineArea } from '../../core/area.js';
import { followRoutes } from './routes.js';
import { buildFollows, exportFollows, followFields, followProblems, type FollowEntry } from './scenario.js';
import { emptyFollows } from './store.js';

export const userFollowsArea = defineArea({
  name: 'user_follows',
  state: { key: 'follows', empty: emptyFollows },
  routes: followRoutes,
  scenario: {
    userFields: followFields,
    problems: (s: { users: FollowEntry[] }, refs) => followProblems(s.users, refs),
    build: (st, s: { users: FollowEntry[] }, b) => buildFollows(st, s.users, b),
    export: exportFollows,
  },
});
