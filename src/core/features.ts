import type { FeatureRecord, PlatformState } from './state.js';

/**
 * Feature flags the platform ships with, and whether each is on when nobody has set it. Flags that are
 * not listed default to off, like an unknown Flipper feature.
 */
export const FEATURE_DEFAULTS: Record<string, boolean> = {
  api_kaminari_count_with_limit: true,
  ci_variables_api_filter_environment_scope: true,
  junit_pipeline_view: false,
  similarity_search: false,
};

export function emptyFeature(name: string): FeatureRecord {
  return {
    name,
    boolean: null,
    percentage_of_time: null,
    percentage_of_actors: null,
    actors: [],
    groups: [],
  };
}

/**
 * Whether a flag is on for an optional actor (`User:1`, `Project:2`, `Group:3`). Percentage gates are
 * decided by a stable hash of flag and actor, so the answer never changes between calls.
 */
export function featureEnabled(state: PlatformState, name: string, actor?: string): boolean {
  const f = state.features[name];
  if (!f) return FEATURE_DEFAULTS[name] ?? false;
  if (f.boolean === true) return true;
  if (actor && f.actors.includes(actor)) return true;
  if (f.percentage_of_time !== null && f.percentage_of_time > 0)
    return stablePercent(name) < f.percentage_of_time;
  if (actor && f.percentage_of_actors !== null && f.percentage_of_actors > 0)
    return stablePercent(`${name}${actor}`) < f.percentage_of_actors;
  return false;
}

function stablePercent(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return ((h >>> 0) % 10000) / 100;
}
