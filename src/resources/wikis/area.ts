import { defineArea } from '../../core/area.js';
import { deleteOwner, groupOwner, projectOwner } from './model.js';
import { wikisRoutes } from './routes.js';
import { buildWiki, exportWikis, wikiFields, wikiProblems, type WikiEntry } from './scenario.js';
import { emptyWikis } from './store.js';

export const wikisArea = defineArea({
  name: 'wikis',
  state: { key: 'wikis', empty: emptyWikis },
  routes: wikisRoutes,
  scenario: {
    projectFields: wikiFields,
    groupFields: wikiFields,
    projectProblems: (e: WikiEntry, at) => wikiProblems(e, at),
    problems: (s: { groups?: WikiEntry[] }) =>
      (s.groups ?? []).flatMap((g, i) => wikiProblems(g, `groups[${i}]`)),
    buildProject: (st, id, e: WikiEntry, b) => buildWiki(st, projectOwner(id), e, b),
    buildGroup: (st, id, e: WikiEntry, b) => buildWiki(st, groupOwner(id), e, b),
    export: exportWikis,
  },
  cascade: {
    project: (st, id) => deleteOwner(st, projectOwner(id)),
    group: (st, id) => deleteOwner(st, groupOwner(id)),
  },
});
