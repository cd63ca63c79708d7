/**
 * A project's daily HTTP fetch counts (`ProjectDailyStatistic`: one row a project and day, its
 * `fetch_count` bumped by `Projects::FetchStatisticsIncrementService` for each `git-upload-pack` over
 * HTTP). Days in UTC (`Date.today` of the server), oldest first.
 */
import { emptyTable, type Table } from '../../core/table.js';

export interface DailyFetches {
  /** `YYYY-MM-DD`. */
  date: string;
  count: number;
}

export interface ProjectFetchesRecord {
  project_id: number;
  days: readonly DailyFetches[];
}

export interface ProjectStatisticsState {
  /** Project id -> its daily fetch counts. */
  fetches: Table<ProjectFetchesRecord>;
}

export const emptyProjectStatistics = (): ProjectStatisticsState => ({ fetches: emptyTable() });

declare module '../../core/state.js' {
  interface AreaStates {
    project_statistics: ProjectStatisticsState;
  }
}
