/** Scenario files' CI parts of a project: branches, tags, variables and pipelines. */
import type { Draft } from 'immer';
import { parseDuration } from '../../core/clock.js';
import type { PipelineStatus, PlatformState, ProjectRecord } from '../../core/state.js';
import type { Scenario } from '../../scenario/schema.js';
import {
  BLANK_SHA,
  DEFAULT_RUN_SECONDS,
  createPipeline,
  createVariable,
  iso,
  variableErrors,
  type NewPipeline,
} from './model.js';
import { addRef } from './refs.js';

type ScenarioProject = Scenario['projects'][number];
type ScenarioPipeline = NonNullable<ScenarioProject['pipelines']>[number];

const refName = (r: string | { name: string }) => (typeof r === 'string' ? r : r.name);

/** What a scenario's CI parts get wrong, as `projects[i]...: message` lines. */
export function ciScenarioProblems(p: ScenarioProject, i: number, users: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  const at = `projects[${i}]`;
  const seen: { id: number; key: string; environment_scope: string }[] = [];
  (p.variables ?? []).forEach((v, j) => {
    const errors = variableErrors({ ...v, key: v.key.trim() }, seen);
    for (const [field, msgs] of Object.entries(errors))
      for (const m of msgs) problems.push(`${at}.variables[${j}].${field}: ${m}`);
    seen.push({ id: -1 - j, key: v.key.trim(), environment_scope: v.environment_scope });
  });
  (p.pipelines ?? []).forEach((pl, j) => {
    if (pl.user && !users.has(pl.user.toLowerCase()))
      problems.push(`${at}.pipelines[${j}].user: no user "${pl.user}"`);
    if (!pl.ref && !p.default_branch)
      problems.push(`${at}.pipelines[${j}].ref: the project has no default branch: give a ref`);
  });
  return problems;
}

const seconds = (d: number | string | undefined) =>
  d === undefined ? DEFAULT_RUN_SECONDS : Math.round(parseDuration(d) / 1000);

const FINISHED_TIMES: ReadonlySet<PipelineStatus> = new Set(['success', 'failed']);

/**
 * A scenario pipeline as a record: `pending` and `running` ones run on the clock from `now`; finished
 * ones took `duration` up to their `created_at` plus it (or up to `now` when no time is given).
 */
function pipelineRecord(
  pl: ScenarioPipeline,
  project: ProjectRecord,
  sha: string,
  userId: number | null,
  now: string,
): NewPipeline {
  const d = seconds(pl.duration);
  const status = pl.status;
  const finished = FINISHED_TIMES.has(status);
  const given = pl.created_at ? new Date(pl.created_at).toISOString() : undefined;
  const created = given ?? (finished ? iso(Date.parse(now) - d * 1000) : now);
  const started = finished ? created : null;
  const ended = finished ? iso(Date.parse(created) + d * 1000) : status === 'canceled' ? created : null;
  const coverage = pl.coverage ?? null;
  return {
    project_id: project.id,
    ref: pl.ref ?? project.default_branch!,
    tag: pl.tag,
    sha,
    before_sha: BLANK_SHA,
    user_id: userId,
    yaml_errors: pl.yaml_errors ?? null,
    coverage: typeof coverage === 'number' ? coverage.toFixed(2) : coverage,
    created_at: created,
    status,
    run_at: status === 'pending' ? now : status === 'running' ? created : null,
    run_seconds: d,
    outcome: pl.outcome ?? (status === 'failed' ? 'failed' : 'success'),
    started_at: started,
    finished_at: ended,
    updated_at: ended ?? created,
    duration: finished ? d : null,
    variables: pl.variables.map((v) => ({ ...v })),
    test_suites: pl.test_report ? pl.test_report.test_suites.map((s) => ({ ...s })) : null,
  };
}

/** Adds a scenario project's branches, tags, variables and pipelines (after `createProject`). */
export function buildProjectCi(
  st: Draft<PlatformState>,
  project: ProjectRecord,
  p: ScenarioProject,
  userId: (username: string) => number,
  now: string,
): void {
  for (const b of p.branches ?? [])
    addRef(st, project.id, 'branch', refName(b), typeof b === 'string' ? undefined : b.sha);
  for (const t of p.tags ?? [])
    addRef(st, project.id, 'tag', refName(t), typeof t === 'string' ? undefined : t.sha);
  for (const v of p.variables ?? []) createVariable(st, project.id, { ...v, key: v.key.trim() });
  for (const pl of p.pipelines ?? []) {
    const ref = pl.ref ?? project.default_branch!;
    const sha = addRef(st, project.id, pl.tag ? 'tag' : 'branch', ref);
    const user = pl.user ? userId(pl.user) : project.creator_id;
    createPipeline(st, pipelineRecord(pl, project, pl.sha ?? sha, user || null, now));
  }
}
