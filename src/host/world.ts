/** The world an instance is opened on: its scenario, the state built from it, and where its clock starts. */
import type { PlatformState } from '../core/state.js';
import type { Minor } from '../core/versions.js';
import { loadOnce } from '../scenario/loaded.js';
import { buildWorld, type Scenario, type ScenarioInput } from '../scenario/index.js';
import type { FaultSpec } from '../testing/faults.js';
import type { FauxlabOptions } from './instance.js';

/** Where a frozen clock starts when neither the scenario nor the options say. */
export const DEFAULT_START = '2021-01-04T10:00:00.000Z';

/** The scenario an instance holds now (`load` replaces it), and what `reset()` goes back to. */
export interface OpenedWorld {
  readonly scenario: Scenario;
  readonly initial: PlatformState;
  /** The faults in place from the start and after each `reset()`. */
  readonly faults: readonly FaultSpec[];
  /** Where the clock starts: the options' `now`, else the scenario's, else `DEFAULT_START`. */
  start(): string | Date;
  /** Loads another scenario with the same options (seed, tier, version, now). */
  open(input: ScenarioInput): void;
}

export function openWorld(options: FauxlabOptions, minor: Minor | undefined): OpenedWorld {
  const startOf = (s: Scenario) => options.now ?? s.now ?? DEFAULT_START;
  const build = (s: Scenario) =>
    buildWorld(s, { seed: options.seed, tier: options.tier, version: minor, now: new Date(startOf(s)) });
  let scenario = loadOnce(options.scenario ?? {});
  let initial = build(scenario);
  return {
    get scenario() {
      return scenario;
    },
    get initial() {
      return initial;
    },
    faults: options.faults ?? [],
    start: () => startOf(scenario),
    open(input) {
      const s = loadOnce(input);
      const built = build(s);
      scenario = s;
      initial = built;
    },
  };
}
