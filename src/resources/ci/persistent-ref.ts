/**
 * `Ci::PersistentRef`: `refs/pipelines/<id>` at the pipeline's commit, so that its jobs can fetch the
 * commit after a force push or the branch's removal. A job's move from pending to running creates it
 * (`Ci::Build` `after_transition pending: :running`), the pipeline's move to a completed status
 * (`success`, `failed`, `canceled`, `skipped`) deletes it (`Ci::Pipeline` `after_transition any =>
 * completed_statuses`). Pipelines run on the instance clock, so the ref is read from the pipeline as
 * the clock stands rather than stored: it exists while a latest job has started and the pipeline has
 * not completed. A retried job's pipeline has it again once the retry runs.
 */
import type { PlatformState, ProjectRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { objectsOf } from '../repository/store.js';
import { COMPLETED, liveBuilds } from './builds.js';
import { livePipeline, projectPipelineIds } from './model.js';

/** `Repository::REF_PIPELINES`. */
export const PIPELINE_REFS = 'refs/pipelines/';

/** The project's persistent pipeline refs at `now` (ms), by pipeline id: `[name, sha]`. */
export function persistentRefs(st: PlatformState, project: ProjectRecord, now: number): [string, string][] {
  const store = objectsOf(st);
  const out: [string, string][] = [];
  for (const id of projectPipelineIds(st, project.id)) {
    const p = tget(st.pipelines, id);
    if (!p || COMPLETED.has(livePipeline(p, now).status)) continue;
    const builds = p.builds;
    const ran = builds
      ? liveBuilds(builds, p.run_at, now).some((b, i) => !builds[i]!.retried && b.started_at !== null)
      : livePipeline(p, now).started_at !== null;
    // `create_ref` of a commit the repository lacks fails (and is only logged).
    if (ran && store.type(p.sha) === 'commit') out.push([`${PIPELINE_REFS}${id}`, p.sha]);
  }
  return out;
}
