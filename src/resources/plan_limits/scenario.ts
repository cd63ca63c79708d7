/** Scenario files' `plan_limits`: the default plan's saved limits (only the ones changed). */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioOut } from '../../core/area.js';
import type { PlatformState } from '../../core/state.js';
import { defaultPlanLimits, LIMIT_KEYS } from './store.js';

const size = z
  .number()
  .int()
  .min(-(2 ** 53 - 1))
  .max(2 ** 53 - 1)
  .optional();

const planLimitsScenario = z.strictObject({
  conan_max_file_size: size,
  generic_packages_max_file_size: size,
  maven_max_file_size: size,
  npm_max_file_size: size,
  nuget_max_file_size: size,
  pypi_max_file_size: size,
});

export type PlanLimitsScenario = z.output<typeof planLimitsScenario>;

export const planLimitFields = {
  plan_limits: planLimitsScenario
    .optional()
    .describe(
      "the default plan's limits in bytes (PUT /application/plan_limits); unset ones keep the defaults",
    ),
};

export function buildPlanLimits(st: Draft<PlatformState>, s: PlanLimitsScenario | undefined): void {
  if (!s) return;
  const rec = defaultPlanLimits();
  for (const k of LIMIT_KEYS) if (s[k] !== undefined) rec[k] = s[k];
  st.planLimits.default = rec;
}

export function exportPlanLimits(st: PlatformState, out: ScenarioOut): void {
  const l = st.planLimits.default;
  if (!l) return;
  const d = defaultPlanLimits();
  const e: Record<string, number> = {};
  for (const k of LIMIT_KEYS) if (l[k] !== d[k]) e[k] = l[k];
  out.file.plan_limits = e;
}
