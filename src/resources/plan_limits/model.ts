/** Reading the limits: what the package registries check an upload against. */
import type { PlatformState } from '../../core/state.js';
import { defaultPlanLimits, type PlanLimitsRecord } from './store.js';

const DEFAULTS = Object.freeze(defaultPlanLimits());

/** `Plan.default.actual_limits`: the saved row, else the column defaults. */
export const actualLimits = (st: PlatformState): PlanLimitsRecord => st.planLimits.default ?? DEFAULTS;

/** One limit of the plan a project's namespace has (on a self-managed instance, the default plan). */
export const planLimit = (st: PlatformState, key: keyof PlanLimitsRecord): number => actualLimits(st)[key];
