/**
 * `fauxlab/testing`: helpers for test suites. `useFauxlab` needs vitest (and msw when `msw` is given);
 * `expectRequest` works with any test runner.
 */
export { useFauxlab, type FauxlabFixture, type UseFauxlabOptions } from './vitest.js';
export { expectRequest, RequestAssertionError, RequestExpectation, type RequestMatcher } from './verify.js';
export type { JournalEntry, JournalFilter, JournalOptions, RequestLog } from './journal.js';
export type { Fault, FaultSpec } from './faults.js';
export type { PathPattern } from './match.js';
