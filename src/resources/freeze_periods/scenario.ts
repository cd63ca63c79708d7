/** Scenario files' `freeze_periods` of a project, oldest first. */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut } from '../../core/area.js';
import { isoOf, isoTime } from '../../core/fields.js';
import type { PlatformState } from '../../core/state.js';
import { ientries } from '../../core/table.js';
import { createFreezePeriod, freezeErrors, freezePeriodsOf, stripped } from './model.js';

const freezeSchema = z.strictObject({
  freeze_start: z.string().describe('a cron line: when the freeze begins'),
  freeze_end: z.string().describe('a cron line: when it ends'),
  cron_timezone: z.string().default('UTC').describe('an IANA time zone name'),
  created_at: isoTime.optional(),
});

export const freezeProjectFields = {
  freeze_periods: z.array(freezeSchema).optional().describe('deploy freeze periods (cron lines)'),
};

export interface FreezeProject {
  freeze_periods?: z.output<typeof freezeSchema>[];
}

/** The model's validations, as the API would answer them. */
export function freezeProblems(p: FreezeProject, at: string): string[] {
  const problems: string[] = [];
  (p.freeze_periods ?? []).forEach((f, i) => {
    for (const [field, msgs] of Object.entries(freezeErrors(stripped(f))))
      for (const m of msgs) problems.push(`${at}.freeze_periods[${i}].${field}: ${m.trim()}`);
  });
  return problems;
}

export function buildFreezePeriods(
  st: Draft<PlatformState>,
  projectId: number,
  p: FreezeProject,
  b: ScenarioBuild,
): void {
  for (const f of p.freeze_periods ?? [])
    createFreezePeriod(st, projectId, stripped(f), isoOf(f.created_at) ?? b.now);
}

export function exportFreezePeriods(st: PlatformState, out: ScenarioOut): void {
  for (const [key] of ientries(st.freeze_periods.idx.byProject)) {
    const e = out.project(Number(key));
    if (!e) continue;
    const list = freezePeriodsOf(st, Number(key)).map((f) => ({
      freeze_start: f.freeze_start,
      freeze_end: f.freeze_end,
      cron_timezone: f.cron_timezone,
      created_at: f.created_at,
    }));
    if (list.length > 0) e.freeze_periods = list;
  }
}
