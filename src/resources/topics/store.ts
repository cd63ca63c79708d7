/**
 * Project topics (`Projects::Topic`): one record per topic name, linked to the projects whose `tag_list`
 * names it. Projects keep their 13.x `tag_list`; the topics here follow it (see model.ts).
 */
import { emptyIndex, emptyTable, type Index, type MultiIndex, type Table } from '../../core/table.js';

export interface TopicRecord {
  id: number;
  name: string;
  /** From 15.0 (topics/versions.ts); unset: the name. */
  title?: string;
  description: string | null;
  /** Path of the uploaded avatar (`/uploads/...`), or null. */
  avatar_url: string | null;
  /** Kept as a counter, as the platform keeps the column. */
  total_projects_count: number;
  created_at: string;
  updated_at: string;
}

export interface TopicsState {
  records: Table<TopicRecord>;
  idx: {
    /** lower-cased name -> topic id */
    names: Index;
    /** topic id -> ids of the projects tagged with it */
    projects: MultiIndex;
  };
}

export const emptyTopics = (): TopicsState => ({
  records: emptyTable(),
  idx: { names: emptyIndex(), projects: emptyIndex() },
});

declare module '../../core/state.js' {
  interface AreaStates {
    topics: TopicsState;
  }
}
