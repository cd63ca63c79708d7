/**
 * CI jobs as the jobs API sees them: lookup by id, a project's jobs, their state and trace at an
 * instant, their artifacts, and the writes of play, retry, cancel, erase and the artifact routes. Each
 * write settles the pipeline first (its jobs' states of the moment) and anchors its clock at that moment.
 */
import type { Draft } from 'immer';
import type { PipelineRecord, PlatformState } from '../../core/state.js';
import { iget, tget } from '../../core/table.js';
import { CANCELABLE, COMPLETED, liveBuilds, type BuildRecord, type LiveBuild } from '../ci/builds.js';
import type { RunnerRecord } from '../runners/store.js';
import { addBuild, iso, nextAttempt, projectPipelineIds, settlePipeline } from '../ci/model.js';

type S = Draft<PlatformState>;

export interface JobRef {
  pipeline: PipelineRecord;
  build: BuildRecord;
}

/** The job with this id in the project (`user_project.builds.find`), or undefined. */
export function findJob(st: PlatformState, projectId: number, id: number): JobRef | undefined {
  const pid = iget(st.ciJobs.byId, String(id));
  const pipeline = pid === undefined ? undefined : tget(st.pipelines, pid);
  if (!pipeline || pipeline.project_id !== projectId) return undefined;
  const build = pipeline.builds?.find((b) => b.id === id);
  return build && { pipeline, build };
}

/** Every job of the project, newest first (`order('id DESC')`). */
export function projectJobs(st: PlatformState, projectId: number): JobRef[] {
  const out: JobRef[] = [];
  for (const pid of projectPipelineIds(st, projectId)) {
    const pipeline = tget(st.pipelines, pid)!;
    for (const build of pipeline.builds ?? []) out.push({ pipeline, build });
  }
  return out.sort((a, b) => b.build.id - a.build.id);
}

/** The states of a pipeline's jobs at `now`, by job id: one clock reading for a whole page. */
export class LiveJobs {
  readonly #cache = new Map<number, Map<number, LiveBuild>>();
  constructor(readonly now: number) {}

  of(ref: JobRef): LiveBuild {
    let m = this.#cache.get(ref.pipeline.id);
    if (!m) {
      const builds = ref.pipeline.builds ?? [];
      const live = liveBuilds(builds, ref.pipeline.run_at, this.now);
      m = new Map(builds.map((b, i) => [b.id, live[i]!]));
      this.#cache.set(ref.pipeline.id, m);
    }
    return m.get(ref.build.id)!;
  }
}

/** Artifacts a client can download: those of a job that succeeded, until they expire. */
export function hasArtifacts(b: BuildRecord, live: LiveBuild, now: number): boolean {
  if (b.artifacts.length === 0 || live.status !== 'success') return false;
  return b.artifacts_expire_at === null || now < Date.parse(b.artifacts_expire_at);
}

/** Whether the job ran and left a trace (`has_trace?`). */
export const hasTrace = (b: BuildRecord, live: LiveBuild) => b.erased_at === null && live.started_at !== null;

/** The runner's first lines: its version, and the runner by description and short token (`short_sha`). */
function runnerHead(runner: RunnerRecord | undefined): string {
  if (!runner) return 'Running with gitlab-runner 13.12.0 (7a6612da)\n  on fauxlab-runner fAuXlAb1\n';
  const version = runner.version ?? '13.12.0';
  const revision = (runner.revision ?? '7a6612da').slice(0, 8);
  const name = runner.description ?? '';
  return `Running with gitlab-runner ${version} (${revision})\n  on ${name} ${runner.token.slice(0, 8)}\n`;
}
const ENDINGS: Partial<Record<string, string>> = {
  success: 'Job succeeded\n',
  failed: 'ERROR: Job failed: exit code 1\n',
};

/**
 * The job's log at `now`: the first lines of the runner that took it, then as much of the script's output as the time
 * it has run allows (line by line), then how it ended. Empty before it starts and once erased.
 */
export function traceText(b: BuildRecord, live: LiveBuild, now: number, runner?: RunnerRecord): string {
  if (!hasTrace(b, live)) return '';
  const lines = b.log.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const started = Date.parse(live.started_at!);
  const until = live.finished_at === null ? now : Date.parse(live.finished_at);
  const total = b.run_seconds * 1000;
  const shown =
    live.status === 'success' || live.status === 'failed' || total === 0
      ? lines.length
      : Math.min(lines.length, Math.floor((lines.length * (until - started)) / total));
  let out = runnerHead(runner) + lines.slice(0, shown).join('');
  const ending = ENDINGS[live.status];
  if (ending) out += (out.endsWith('\n') ? '\n' : '\n\n') + ending;
  return out;
}

/** `retryable?`: a finished job not yet replaced. */
export const retryable = (b: BuildRecord, live: LiveBuild) =>
  !b.retried && (live.status === 'success' || live.status === 'failed' || live.status === 'canceled');

/** `playable?`: a manual job waiting, or one that finished and may run again. */
export const playable = (b: BuildRecord, live: LiveBuild) =>
  b.when === 'manual' && (live.status === 'manual' || retryable(b, live));

/** `erasable?`: finished, with artifacts or a trace left to erase. */
export const erasable = (b: BuildRecord, live: LiveBuild) =>
  COMPLETED.has(live.status) && (b.artifacts.length > 0 || hasTrace(b, live));

/** The draft's pipeline and job, the pipeline settled at `now` and running on the clock from there. */
function settled(st: S, ref: JobRef, now: number) {
  const p = tget(st.pipelines, ref.pipeline.id)!;
  settlePipeline(p, now);
  p.run_at = iso(now);
  return { p, b: p.builds!.find((x) => x.id === ref.build.id)! };
}

/**
 * `Ci::Build.retry`: a new attempt, queued now; jobs of later stages that were skipped are processed
 * again. Returns the new job's id.
 */
export function retryJob(st: S, ref: JobRef, now: number, userId: number): number {
  const { p, b } = settled(st, ref, now);
  b.retried = true;
  for (const later of p.builds!)
    if (!later.retried && later.stage_idx > b.stage_idx && later.status === 'skipped')
      later.status = 'created';
  return addBuild(st, p.id, nextAttempt(b, now, userId, 'pending')).id;
}

/** `Ci::PlayBuildService`: a waiting manual job is queued now by the player; a finished one retried. */
export function playJob(st: S, ref: JobRef, live: LiveBuild, now: number, userId: number): void {
  if (live.status !== 'manual') {
    retryJob(st, ref, now, userId);
    return;
  }
  const { b } = settled(st, ref, now);
  Object.assign(b, { status: 'pending', queued_at: iso(now), user_id: userId });
}

/** `cancel`: a job not yet finished ends now as canceled; any other stays as it is. */
export function cancelJob(st: S, ref: JobRef, now: number): void {
  const { b } = settled(st, ref, now);
  if (CANCELABLE.has(b.status)) Object.assign(b, { status: 'canceled', finished_at: iso(now) });
}

/** `erase`: the artifacts and the trace go; the job remembers when and by whom. */
export function eraseJob(st: S, ref: JobRef, now: number, userId: number): void {
  const { b } = settled(st, ref, now);
  Object.assign(b, {
    artifacts: [],
    artifacts_expire_at: null,
    log: '',
    erased_at: iso(now),
    erased_by: userId,
  });
}

function draftBuild(st: S, ref: JobRef): Draft<BuildRecord> {
  return tget(st.pipelines, ref.pipeline.id)!.builds!.find((x) => x.id === ref.build.id)!;
}

/** `keep_artifacts!`: they no longer expire. */
export function keepArtifacts(st: S, ref: JobRef): void {
  draftBuild(st, ref).artifacts_expire_at = null;
}

/** `erase_erasable_artifacts!`: the archive goes, the trace stays. */
export function deleteArtifacts(st: S, ref: JobRef): void {
  const b = draftBuild(st, ref);
  b.artifacts = [];
  b.artifacts_expire_at = null;
}

/**
 * `latest_successful_build_for_ref`: in the newest successful pipeline of the ref, the newest attempt
 * of the job by that name, when it has artifacts to download.
 */
export function latestSuccessfulJob(
  st: PlatformState,
  projectId: number,
  ref: string,
  name: string,
  now: number,
  live: (r: JobRef) => LiveBuild,
  pipelineStatus: (p: PipelineRecord) => string,
): JobRef | undefined {
  const ids = projectPipelineIds(st, projectId).reverse();
  for (const id of ids) {
    const pipeline = tget(st.pipelines, id)!;
    if (pipeline.ref !== ref || pipelineStatus(pipeline) !== 'success') continue;
    const build = (pipeline.builds ?? []).filter((b) => !b.retried && b.name === name).pop();
    if (!build) return undefined;
    const ref2 = { pipeline, build };
    return hasArtifacts(build, live(ref2), now) ? ref2 : undefined;
  }
  return undefined;
}
