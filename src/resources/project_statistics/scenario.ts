/** Scenario files' `fetch_statistics` of a project: its daily HTTP fetch counts. */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioOut } from '../../core/area.js';
import { isoDate } from '../../core/fields.js';
import type { PlatformState } from '../../core/state.js';
import { tset, tvalues } from '../../core/table.js';

const daySchema = z.strictObject({ date: isoDate, count: z.number().int().min(1).max(1_000_000_000) });

export const fetchStatisticsFields = {
  fetch_statistics: z
    .array(daySchema)
    .max(60)
    .refine((l) => new Set(l.map((x) => x.date)).size === l.length, 'each date once')
    .optional()
    .describe('daily git HTTP fetch counts (GET /projects/:id/statistics)'),
};

export interface FetchStatisticsProject {
  fetch_statistics?: z.output<typeof daySchema>[];
}

export function buildFetchStatistics(st: Draft<PlatformState>, projectId: number, p: FetchStatisticsProject) {
  const days = [...(p.fetch_statistics ?? [])].sort((a, b) =>
    a.date < b.date ? -1 : a.date > b.date ? 1 : 0,
  );
  if (days.length)
    tset(st.project_statistics.fetches, projectId, {
      project_id: projectId,
      days: days.map((x) => ({ date: x.date, count: x.count })),
    });
}

export function exportFetchStatistics(st: PlatformState, out: ScenarioOut): void {
  for (const rec of tvalues(st.project_statistics.fetches)) {
    const e = out.project(rec.project_id);
    if (e && rec.days.length) e.fetch_statistics = rec.days.map((x) => ({ date: x.date, count: x.count }));
  }
}
