import { defineArea } from '../../core/area.js';
import { broadcastMessagesRoutes } from './routes.js';
import {
  broadcastMessageFields,
  broadcastMessageProblems,
  buildBroadcastMessages,
  exportBroadcastMessages,
} from './scenario.js';
import { emptyBroadcastMessages } from './store.js';

type Listed = { broadcast_messages: Parameters<typeof broadcastMessageProblems>[0] };

export const broadcastMessagesArea = defineArea({
  name: 'broadcast_messages',
  state: { key: 'broadcastMessages', empty: emptyBroadcastMessages },
  routes: broadcastMessagesRoutes,
  scenario: {
    fields: broadcastMessageFields,
    problems: (s: Listed) => broadcastMessageProblems(s.broadcast_messages),
    build: (st, s: Listed, b) => buildBroadcastMessages(st, s.broadcast_messages, b),
    export: exportBroadcastMessages,
  },
});
