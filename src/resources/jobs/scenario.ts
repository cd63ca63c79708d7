/** Scenario files' `ci`: instance-wide CI settings (the queue time of new pipelines). */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioOut } from '../../core/area.js';
import { parseDuration } from '../../core/clock.js';
import type { PlatformState } from '../../core/state.js';
import { DEFAULT_QUEUE_MS } from './store.js';

/** The longest queue time: a day of instance time. */
export const MAX_QUEUE_MS = 86_400_000;

/** Milliseconds from a number of seconds or a duration string, or undefined when out of bounds. */
export function queueMs(v: unknown, unit: 1 | 1000): number | undefined {
  try {
    const ms =
      typeof v === 'number' ? v * unit : typeof v === 'string' && v.length <= 32 ? parseDuration(v) : NaN;
    return Number.isFinite(ms) && ms >= 0 && ms <= MAX_QUEUE_MS ? Math.round(ms) : undefined;
  } catch {
    return undefined;
  }
}

export const ciFields = {
  ci: z
    .strictObject({
      queue_time: z
        .union([z.number(), z.string()])
        .refine((v) => queueMs(v, 1000) !== undefined, 'must be seconds or a duration up to 24h, such as 5s')
        .describe('how long a new pipeline stays pending before its first jobs run (default 3s)'),
    })
    .partial()
    .optional()
    .describe('instance-wide CI settings'),
};

export interface CiScenario {
  ci?: { queue_time?: number | string };
}

export function buildCi(st: Draft<PlatformState>, s: CiScenario): void {
  if (s.ci?.queue_time !== undefined) st.ciJobs.queue_ms = queueMs(s.ci.queue_time, 1000)!;
}

export function exportCi(st: PlatformState, out: ScenarioOut): void {
  if (st.ciJobs.queue_ms !== DEFAULT_QUEUE_MS) out.file.ci = { queue_time: `${st.ciJobs.queue_ms}ms` };
}
