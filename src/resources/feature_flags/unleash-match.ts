/**
 * Which flags an Unleash client of an environment sees (13.12): `Operations::FeatureFlag.
 * for_unleash_client` (new version flags by id, each with the strategies one of whose scopes matches)
 * and `Operations::FeatureFlagScope.for_unleash_client` (each legacy flag's most relevant matching scope,
 * `DISTINCT ON` the flag in descending flag order), legacy ones first.
 */
import type { PlatformState } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { unleashFeature, unleashLegacyStrategies, unleashStrategy } from './entities.js';
import { flagsOf } from './model.js';

/**
 * `HasEnvironmentScope.on_environment`'s match: the scope is `*` or the name itself, or the name is
 * `LIKE` the scope with `*` as `%` (`Gitlab::SQL::Glob.to_like`: `%`, `_` literal). The scope's literal
 * runs between stars are found in turn, each at its leftmost place after the last (which is where a
 * star-only glob may take it): the first run a prefix, the last a suffix. No regular expression is built
 * from a stored scope, and the walk is one pass of `indexOf` over the name per run.
 */
export function scopeMatches(scope: string, name: string): boolean {
  if (scope === '*' || scope === name) return true;
  const runs = scope.split('*');
  if (runs.length === 1) return false;
  const first = runs[0]!;
  const last = runs[runs.length - 1]!;
  if (first.length + last.length > name.length) return false;
  if (!name.startsWith(first) || !name.endsWith(last)) return false;
  let at = first.length;
  const end = name.length - last.length;
  for (let i = 1; i < runs.length - 1; i++) {
    const run = runs[i]!;
    if (run === '') continue;
    const found = name.indexOf(run, at);
    if (found < 0 || found + run.length > end) return false;
    at = found + run.length;
  }
  return true;
}

/** `CASE environment_scope WHEN '*' THEN 0 WHEN name THEN 2 ELSE 1 END`. */
const relevance = (scope: string, name: string) => (scope === '*' ? 0 : scope === name ? 2 : 1);

export function unleashFeatures(st: PlatformState, projectId: number, appName: string | undefined) {
  if (appName === undefined || appName.trim() === '') return [];
  const listOf = (id: number) => tget(st.feature_flags.lists, id);
  // One match per distinct scope a request meets, however many strategies repeat it.
  const seen = new Map<string, boolean>();
  const matches = (scope: string) => {
    let m = seen.get(scope);
    if (m === undefined) seen.set(scope, (m = scopeMatches(scope, appName)));
    return m;
  };
  const flags = flagsOf(st, projectId);
  const legacy = flags
    .filter((f) => f.version === 'legacy_flag')
    .reverse()
    .flatMap((f) => {
      let best: (typeof f.scopes)[number] | undefined;
      for (const s of f.scopes) {
        if (!matches(s.environment_scope)) continue;
        if (!best || relevance(s.environment_scope, appName) >= relevance(best.environment_scope, appName))
          best = s;
      }
      if (!best) return [];
      return [
        unleashFeature(
          f.name,
          f.description,
          f.active && best.active,
          unleashLegacyStrategies(best.strategies),
        ),
      ];
    });
  const current = flags
    .filter((f) => f.version === 'new_version_flag')
    .flatMap((f) => {
      const strategies = f.strategies.filter((s) => s.scopes.some((x) => matches(x.environment_scope)));
      if (strategies.length === 0) return [];
      return [
        unleashFeature(
          f.name,
          f.description,
          f.active,
          strategies.map((s) => unleashStrategy(s, listOf)),
        ),
      ];
    });
  return [...legacy, ...current];
}
