/**
 * External pipelines (`lib/api/commit_statuses.rb`, `find_or_create_pipeline`): a commit status posted
 * for a sha and ref with no pipeline makes one of source `external`, whose status is the composite of
 * its statuses (`Gitlab::Ci::Status::Composite`), and which is the head pipeline of the open merge
 * requests from that branch at that commit (`MergeRequest#update_head_pipeline`).
 */
import type { Draft } from 'immer';
import type { PipelineStatus, PlatformState } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { composite, type BuildStatus } from './builds.js';
import { BLANK_SHA, createPipeline, projectPipelineIds } from './model.js';

/** The newest pipeline of the ref for the commit, else a new external one; returns its id. */
export function pipelineForStatus(
  d: Draft<PlatformState>,
  projectId: number,
  sha: string,
  ref: string,
  userId: number,
  now: string,
): number {
  const st = d as PlatformState;
  const ids = projectPipelineIds(st, projectId);
  for (let i = ids.length - 1; i >= 0; i--) {
    const pl = tget(st.pipelines, ids[i]!);
    if (pl && pl.sha === sha && pl.ref === ref) return pl.id;
  }
  return createPipeline(d, {
    project_id: projectId,
    ref,
    tag: false,
    sha,
    before_sha: BLANK_SHA,
    user_id: userId,
    yaml_errors: null,
    coverage: null,
    created_at: now,
    status: 'pending',
    run_at: null,
    run_seconds: 0,
    outcome: 'success',
    started_at: null,
    finished_at: null,
    updated_at: now,
    duration: null,
    variables: [],
    test_suites: null,
    builds: [],
    source: 'external',
  });
}

/** An external pipeline's status and times from its statuses (the latest of each name). */
export function settleExternalPipeline(
  d: Draft<PlatformState>,
  pipelineId: number,
  statuses: readonly { status: string; started_at: string | null; finished_at: string | null }[],
  now: string,
): void {
  const pl = tget(d.pipelines, pipelineId);
  if (!pl || pl.source !== 'external') return;
  const status = (composite(
    statuses.map((s) => ({ status: s.status as BuildStatus, allow_failure: false })),
  ) ?? 'pending') as PipelineStatus;
  const done = status === 'success' || status === 'failed' || status === 'canceled';
  const starts = statuses
    .map((s) => s.started_at)
    .filter((t): t is string => t !== null)
    .sort();
  const ends = statuses
    .map((s) => s.finished_at)
    .filter((t): t is string => t !== null)
    .sort();
  pl.status = status;
  pl.started_at = starts[0] ?? null;
  pl.finished_at = done ? (ends.at(-1) ?? now) : null;
  pl.duration =
    done && pl.started_at && pl.finished_at
      ? Math.round((Date.parse(pl.finished_at) - Date.parse(pl.started_at)) / 1000)
      : null;
  pl.updated_at = now;
}
