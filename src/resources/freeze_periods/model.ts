/** Freeze periods' validations, writes, and whether a project is inside one (`Ci::FreezePeriodStatus`). */
import type { Draft } from 'immer';
import { nextId, type PlatformState } from '../../core/state.js';
import { idelete, madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import { nextTime, parseCron, previousTime, validTimezone } from '../pipeline_schedules/cron.js';
import type { FreezePeriodRecord } from './store.js';

export type FreezeFields = Pick<FreezePeriodRecord, 'freeze_start' | 'freeze_end' | 'cron_timezone'>;

/**
 * `Ci::FreezePeriod`'s validations in its order (`strip_attributes` first): `CronValidator` and
 * `CronFreezePeriodTimezoneValidator` write " is invalid syntax" with its leading space, then presence.
 */
export function freezeErrors(f: FreezeFields): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (k: string, m: string) => (errors[k] ??= []).push(m);
  for (const k of ['freeze_start', 'freeze_end'] as const) {
    if (!parseCron(f[k])) add(k, ' is invalid syntax');
    if (f[k].trim() === '') add(k, "can't be blank");
  }
  if (!validTimezone(f.cron_timezone)) add('cron_timezone', ' is invalid syntax');
  if (f.cron_timezone.trim() === '') add('cron_timezone', "can't be blank");
  return errors;
}

/** `strip_attributes :freeze_start, :freeze_end`. */
export const stripped = (f: FreezeFields): FreezeFields => ({
  freeze_start: f.freeze_start.trim(),
  freeze_end: f.freeze_end.trim(),
  cron_timezone: f.cron_timezone,
});

/** The project's periods, oldest first (`default_scope { order(created_at: :asc) }`). */
export function freezePeriodsOf(st: PlatformState, projectId: number): FreezePeriodRecord[] {
  return mget(st.freeze_periods.idx.byProject, String(projectId)).map((id) =>
    tget(st.freeze_periods.records, id)!,
  );
}

export function createFreezePeriod(
  d: Draft<PlatformState>,
  projectId: number,
  f: FreezeFields,
  now: string,
): FreezePeriodRecord {
  const id = nextId(d, 'freeze_periods');
  const rec: FreezePeriodRecord = {
    id,
    project_id: projectId,
    freeze_start: f.freeze_start,
    freeze_end: f.freeze_end,
    cron_timezone: f.cron_timezone,
    created_at: now,
    updated_at: now,
  };
  tset(d.freeze_periods.records, id, rec);
  madd(d.freeze_periods.idx.byProject, String(projectId), id);
  return rec;
}

export function updateFreezePeriod(d: Draft<PlatformState>, id: number, f: FreezeFields, now: string): void {
  const rec = tget(d.freeze_periods.records, id)!;
  rec.freeze_start = f.freeze_start;
  rec.freeze_end = f.freeze_end;
  rec.cron_timezone = f.cron_timezone;
  rec.updated_at = now;
}

export function deleteFreezePeriod(d: Draft<PlatformState>, rec: FreezePeriodRecord): void {
  tdelete(d.freeze_periods.records, rec.id);
  mremove(d.freeze_periods.idx.byProject, String(rec.project_id), rec.id);
}

export function deleteProjectFreezePeriods(d: Draft<PlatformState>, projectId: number): void {
  for (const id of mget(d.freeze_periods.idx.byProject, String(projectId)))
    tdelete(d.freeze_periods.records, id);
  idelete(d.freeze_periods.idx.byProject, String(projectId));
}

/**
 * `Ci::FreezePeriodStatus#within_freeze_period?`: the period last opened after it last closed, `now`
 * lies between that opening and the next close, and the next close comes before the next opening
 * (Fugit's previous and next times, strictly before and after `now`).
 */
export function inFreezePeriod(st: PlatformState, projectId: number, now: number): boolean {
  return freezePeriodsOf(st, projectId).some((f) => {
    const start = parseCron(f.freeze_start);
    const end = parseCron(f.freeze_end);
    if (!start || !end || !validTimezone(f.cron_timezone)) return false;
    const prevStart = previousTime(start, f.cron_timezone, now);
    const prevEnd = previousTime(end, f.cron_timezone, now);
    const nextStart = nextTime(start, f.cron_timezone, now);
    const nextEnd = nextTime(end, f.cron_timezone, now);
    if (prevStart === null || prevEnd === null || nextStart === null || nextEnd === null) return false;
    return prevEnd < prevStart && prevStart <= now && now <= nextEnd && nextEnd < nextStart;
  });
}
