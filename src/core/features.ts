import { crc32 } from 'node:zlib';
import { own } from './own.js';
import type { FeatureRecord, PlatformState } from './state.js';

/**
 * Feature flags the platform ships with, and whether each is on when nobody has set it. Flags that are
 * not listed default to off, like an unknown Flipper feature.
 */
export const FEATURE_DEFAULTS: Record<string, boolean> = {
  api_kaminari_count_with_limit: true,
  ci_variables_api_filter_environment_scope: true,
  // The Go proxy (lib/api/go_proxy.rb) and its go.mod check's escape hatch, off as 13.12 ships them.
  go_proxy: false,
  go_proxy_disable_gomod_validation: false,
  // The RubyGems registry (lib/api/rubygem_packages.rb), off as 13.12 ships it.
  rubygem_packages: false,
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
 * Whether a flag is on for an optional actor (`User:1`, `Project:2`, `Group:3`), as Flipper decides:
 * boolean, actors, percentage of actors, percentage of time (feature groups never match: the community
 * edition registers none). A flag nobody has set (or that was deleted) has its shipped default.
 * Percentages are stable: actors by Flipper's own CRC-32 bucketing, time by a hash of the name, so that
 * the answer never changes between calls.
 */
export function featureEnabled(state: PlatformState, name: string, actor?: string): boolean {
  return featureEnabledOr(state, name, own(FEATURE_DEFAULTS, name) ?? false, actor);
}

/**
 * `featureEnabled` with the shipped default given by the caller: a flag whose default changed between
 * releases (the caller reads the release's declaration).
 */
export function featureEnabledOr(
  state: PlatformState,
  name: string,
  shipped: boolean,
  actor?: string,
): boolean {
  const f = own(state.features, name);
  if (!f) return shipped;
  if (f.boolean === true) return true;
  if (actor && f.actors.includes(actor)) return true;
  const poa = f.percentage_of_actors ?? 0;
  if (actor && poa > 0 && crc32(`${name}${actor}`) % 100_000 < poa * 1000) return true;
  const pot = f.percentage_of_time ?? 0;
  return pot > 0 && stablePercent(name) < pot;
}

/** Flipper's feature state: `on`, `off` or `conditional`. */
export function featureState(f: FeatureRecord): 'on' | 'off' | 'conditional' {
  if (f.boolean === true || f.percentage_of_time === 100) return 'on';
  const conditional =
    f.actors.length > 0 ||
    f.groups.length > 0 ||
    (f.percentage_of_actors ?? 0) > 0 ||
    (f.percentage_of_time ?? 0) > 0;
  return conditional ? 'conditional' : 'off';
}

export type FeatureGate =
  | { key: 'boolean'; value: boolean }
  | { key: 'actors' | 'groups'; value: string[] }
  | { key: 'percentage_of_actors' | 'percentage_of_time'; value: number };

/**
 * The gates as the API shows them: Flipper's gate order, every gate that holds a value; zero
 * percentages and empty sets are dropped, the boolean gate always stays.
 */
export function featureGates(f: FeatureRecord): FeatureGate[] {
  const gates: FeatureGate[] = [{ key: 'boolean', value: f.boolean === true }];
  if (f.actors.length) gates.push({ key: 'actors', value: [...f.actors] });
  if (f.percentage_of_actors) gates.push({ key: 'percentage_of_actors', value: f.percentage_of_actors });
  if (f.percentage_of_time) gates.push({ key: 'percentage_of_time', value: f.percentage_of_time });
  if (f.groups.length) gates.push({ key: 'groups', value: [...f.groups] });
  return gates;
}

function stablePercent(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return ((h >>> 0) % 10000) / 100;
}
