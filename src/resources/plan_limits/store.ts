/**
 * The default plan's limits (`PlanLimits` of `Plan.default`; a self-managed instance has no other
 * plan rows). `Plan#actual_limits` is the row, or `PlanLimits.new` with the column defaults until
 * `PUT /application/plan_limits` saves one.
 */
export interface PlanLimitsRecord {
  conan_max_file_size: number;
  generic_packages_max_file_size: number;
  maven_max_file_size: number;
  npm_max_file_size: number;
  nuget_max_file_size: number;
  pypi_max_file_size: number;
}

export interface PlanLimitsState {
  /** The default plan's saved row, or null (the column defaults). */
  default: PlanLimitsRecord | null;
}

export const emptyPlanLimits = (): PlanLimitsState => ({ default: null });

const GB = 1024 * 1024 * 1024;
const MB = 1024 * 1024;

/** The `plan_limits` columns' defaults of 13.12, in bytes. */
export const defaultPlanLimits = (): PlanLimitsRecord => ({
  conan_max_file_size: 3 * GB,
  generic_packages_max_file_size: 5 * GB,
  maven_max_file_size: 3 * GB,
  npm_max_file_size: 500 * MB,
  nuget_max_file_size: 500 * MB,
  pypi_max_file_size: 3 * GB,
});

export const LIMIT_KEYS = Object.keys(defaultPlanLimits()) as (keyof PlanLimitsRecord)[];

declare module '../../core/state.js' {
  interface AreaStates {
    planLimits: PlanLimitsState;
  }
}
