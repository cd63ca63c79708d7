/** Counting fetches, and reading the last 30 days as `Projects::DailyStatisticsFinder` does. */
import type { Draft } from 'immer';
import type { PlatformState } from '../../core/state.js';
import { tdelete, tget, tset } from '../../core/table.js';
import type { DailyFetches } from './store.js';

/** The most days kept a project: older ones are never shown (the finder reads the last 30). */
const KEPT_DAYS = 60;

/** `ProjectDailyStatistic.of_last_30_days`: the day 29 days before today and later. */
const LAST_DAYS = 30;

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** `Projects::FetchStatisticsIncrementService#execute`: the day's row made or bumped. */
export function countFetch(d: Draft<PlatformState>, projectId: number, nowMs: number): void {
  const date = dayOf(nowMs);
  const t = d.project_statistics.fetches;
  const rec = tget(t, projectId);
  if (!rec) {
    tset(t, projectId, { project_id: projectId, days: [{ date, count: 1 }] });
    return;
  }
  const last = rec.days[rec.days.length - 1];
  if (last && last.date === date) (last as DailyFetches).count++;
  else rec.days = [...rec.days, { date, count: 1 }].slice(-KEPT_DAYS);
}

/** The last 30 days' rows, newest first (`sorted_by_date_desc`), and their sum (`total_fetch_count`). */
export function lastFetches(st: PlatformState, projectId: number, nowMs: number) {
  const since = dayOf(nowMs - (LAST_DAYS - 1) * 86_400_000);
  const days = (tget(st.project_statistics.fetches, projectId)?.days ?? [])
    .filter((x) => x.date >= since)
    .reverse();
  return { total: days.reduce((n, x) => n + x.count, 0), days };
}

export function deleteProjectFetches(st: Draft<PlatformState>, projectId: number): void {
  tdelete(st.project_statistics.fetches, projectId);
}
