/**
 * The refs the platform writes for its own records, in the refs record's `others` beside the pushed
 * ones: `Repository#keep_around` (`refs/keep-around/<sha>`, so that a commit a pipeline ran on stays
 * in the repository after a force push) and `Deployment#create_ref`
 * (`refs/environments/<slug>/deployments/<iid>`). Only a commit the object store holds gets a ref: a
 * scenario's pipelines and deployments may name shas nobody wrote.
 */
import type { Draft } from 'immer';
import type { PlatformState, ProjectRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { setOtherRef } from './refs.js';
import { objectsOf } from './store.js';

type S = Draft<PlatformState>;

const BLANK = /^0{40}$/;

/** `Repository#keep_around(*shas)`: each commit of the store, once. */
export function keepAround(st: S, projectId: number, shas: readonly (string | null | undefined)[]): void {
  const project = tget(st.projects, projectId) as ProjectRecord | undefined;
  if (!project) return;
  const store = objectsOf(st as PlatformState);
  for (const sha of shas) {
    if (typeof sha !== 'string' || BLANK.test(sha) || store.type(sha) !== 'commit') continue;
    setOtherRef(st, project, `refs/keep-around/${sha}`, sha);
  }
}

/** `Deployment#create_ref`: the deployed commit under its environment's `ref_path`. */
export function createDeploymentRef(st: S, projectId: number, slug: string, iid: number, sha: string): void {
  const project = tget(st.projects, projectId) as ProjectRecord | undefined;
  if (!project || objectsOf(st as PlatformState).type(sha) !== 'commit') return;
  // A repository never written stays unstored (a large world's declared deployments write nothing).
  if (tget(st.refs, projectId) === undefined) return;
  setOtherRef(st, project, `refs/environments/${slug}/deployments/${iid}`, sha);
}
