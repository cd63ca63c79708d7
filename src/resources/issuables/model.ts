/**
 * Writes on issues, merge requests, notes, milestones and their satellites, shared by the API, scenario
 * loading and the generator; one module per concern under model/. Every function works on a draft (or a
 * state being built) and touches a few buckets only, whatever the size of the world.
 *
 * Changes produce what the platform records for them: system notes for assignees, labels, title,
 * description, confidentiality, due date and locking; resource events for state, milestone and weight.
 */
export * from './model/meta.js';
export * from './model/drafts.js';
export * from './model/labels.js';
export * from './model/notes.js';
export * from './model/shared.js';
export * from './model/issues.js';
export * from './model/merge-requests.js';
export * from './model/awards.js';
export * from './model/milestones.js';
export * from './model/snippets.js';
export * from './model/project.js';
export * from './model/move.js';
