import type { Project } from '../projects/record.js';
import { tget } from '../../core/table.js';
import { setProjectTopics } from './model.js';
import { defineArea } from '../../core/area.js';
import { buildTopics, exportTopics, topicFields, topicProblems, type TopicScenario } from './scenario.js';
import { topicsRoutes } from './routes.js';
import { emptyTopics } from './store.js';

export const topicsArea = defineArea({
  name: 'topics',
  state: { key: 'topics', empty: emptyTopics },
  routes: topicsRoutes,
  scenario: {
    fields: topicFields,
    problems: (s: { topics: TopicScenario[] }) => topicProblems(s.topics),
    // Before the users and projects, so that listed topics come first.
    buildFirst: (st, s: { topics: TopicScenario[] }, b) => buildTopics(st, s.topics, b.now),
    export: exportTopics,
  },
  cascade: {
    // The project's tags stop counting towards their topics.
    project: (st, id) =>
      setProjectTopics(st, id, (tget(st.projects, id) as Project | undefined)?.tag_list ?? [], [], ''),
  },
});
