export { ApiRouter, parse, type RouteOptions } from './core/router.js';
export {
  createFauxlab,
  DEFAULT_START,
  type Fauxlab,
  type FauxlabOptions,
  type FaultControl,
  type Snapshot,
} from './app.js';
export type { FauxlabFetch } from './core/fetch.js';
export type { JournalEntry, JournalFilter, JournalOptions, RequestLog } from './testing/journal.js';
export { FaultError, type Fault, type FaultSpec } from './testing/faults.js';
export { exportScenario } from './scenario/export.js';
export {
  ScenarioError,
  loadScenario,
  type Scenario,
  type ScenarioFile,
  type ScenarioInput,
} from './scenario/index.js';
export { ApiError } from './core/errors.js';
export { Clock, parseDuration } from './core/clock.js';
