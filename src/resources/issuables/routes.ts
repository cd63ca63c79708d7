/** Registers the issuables area: issues, merge requests, notes, milestones, award emoji, todos, labels, discussions, resource events, time tracking and issue links. */
import type { ApiRouter } from '../../core/router.js';
import { awardRoutes } from './awards.js';
import { contextCommitsRoutes } from './context-commits.js';
import { epicIssuesRoutes } from './epic_issues.js';
import { epicLinksRoutes } from './epic_links.js';
import { epicsRoutes } from './epics.js';
import { discussionsRoutes } from './discussions/routes.js';
import { issueLinksRoutes } from './issue_links.js';
import { issueMoveRoutes } from './issue_move.js';
import { issuesRoutes } from './issues.js';
import { labelsRoutes } from './labels/routes.js';
import { mergeRequestsRoutes } from './merge_requests.js';
import { milestonesRoutes } from './milestones.js';
import { mergeRequestPipelineRoutes } from './mr-pipelines.js';
import { notesRoutes } from './notes.js';
import { resourceEventsRoutes } from './resource_events.js';
import { timeTrackingRoutes } from './time_tracking.js';
import { todosRoutes } from './todos.js';

export function issuablesRoutes(r: ApiRouter): void {
  issuesRoutes(r);
  mergeRequestsRoutes(r);
  mergeRequestPipelineRoutes(r);
  contextCommitsRoutes(r);
  notesRoutes(r);
  milestonesRoutes(r);
  awardRoutes(r);
  todosRoutes(r);
  labelsRoutes(r);
  discussionsRoutes(r);
  resourceEventsRoutes(r);
  timeTrackingRoutes(r);
  issueLinksRoutes(r);
  issueMoveRoutes(r);
  epicsRoutes(r);
  epicIssuesRoutes(r);
  epicLinksRoutes(r);
}
