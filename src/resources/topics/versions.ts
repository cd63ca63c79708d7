/** What changes in the topics area between the GitLab releases fauxlab answers as (src/core/versions.ts). */
import { versioned } from '../../core/versions.js';

/**
 * A topic's `title` (15.0): shown after `name`, required on `POST /topics`, settable on `PUT`. Topics
 * made before it, and those a project's `tag_list` makes, have their name as their title (the
 * column's backfill).
 */
export const TOPIC_TITLE = versioned({
  kind: 'field',
  name: 'topic.title',
  what: '`title` after `name` (a topic without one shows its name); `POST /topics` requires it, `PUT` sets it',
  since: '15.0',
  source: 'doc/api/topics.md (title introduced in GitLab 15.0)',
});

/** `POST /topics/merge` (15.4): administrators merge one topic into another. */
export const TOPICS_MERGE_SOURCE = 'doc/api/topics.md "Merge topics" (introduced in GitLab 15.4)';

/**
 * The Topics API (`lib/api/topics.rb`, 14.5): listing, showing, creating and updating topics; deleting
 * one came with 14.9. Before, topics exist only as projects' `tag_list`.
 */
export const TOPICS_API = {
  since: '14.5',
  source: 'doc/api/topics.md (Topics API introduced in GitLab 14.5, gitlab#340920)',
} as const;

export const TOPICS_DELETE = {
  since: '14.9',
  source: 'doc/api/topics.md "Delete a project topic" (introduced in GitLab 14.9, merge request 80725)',
} as const;
