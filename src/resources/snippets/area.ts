import { defineArea } from '../../core/area.js';
import {
  buildPersonalSnippets,
  exportPersonalSnippets,
  personalSnippetFields,
  personalSnippetProblems,
  type SnippetsScenario,
} from './scenario.js';
import { snippetsRoutes } from './routes.js';

export const snippetsArea = defineArea({
  name: 'snippets',
  routes: snippetsRoutes,
  scenario: {
    fields: personalSnippetFields,
    problems: (s: SnippetsScenario, refs) => personalSnippetProblems(s.snippets, refs.users),
    build: (st, s: SnippetsScenario, b) => buildPersonalSnippets(st, s.snippets, b.uid, b.now),
    export: exportPersonalSnippets,
  },
});
