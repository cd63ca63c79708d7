import { defineArea } from '../../core/area.js';
import { deleteSourceBadges } from './model.js';
import { badgesRoutes } from './routes.js';
import {
  badgeGroupFields,
  badgeProblems,
  badgeProjectFields,
  buildBadges,
  exportBadges,
  type BadgeEntry,
} from './scenario.js';
import { emptyBadges } from './store.js';

export const badgesArea = defineArea({
  name: 'badges',
  state: { key: 'badges', empty: emptyBadges },
  routes: badgesRoutes,
  scenario: {
    groupFields: badgeGroupFields,
    projectFields: badgeProjectFields,
    problems: (s: { groups?: BadgeEntry[] }) =>
      (s.groups ?? []).flatMap((g, i) => badgeProblems(g, `groups[${i}]`)),
    projectProblems: (p: BadgeEntry, at) => badgeProblems(p, at),
    buildGroup: (st, id, g: BadgeEntry, b) => buildBadges(st, 'group', id, g, b),
    buildProject: (st, id, p: BadgeEntry, b) => buildBadges(st, 'project', id, p, b),
    export: exportBadges,
  },
  cascade: {
    project: (st, id) => deleteSourceBadges(st, 'project', id),
    group: (st, id) => deleteSourceBadges(st, 'group', id),
  },
});
