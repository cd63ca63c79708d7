/** Scenario files' CI parts of a project: branches, tags, variables and pipelines. */
import type { Draft } from 'immer';
import type { ScenarioOut } from '../../core/area.js';
import { parseDuration } from '../../core/clock.js';
import { isoTime } from '../../core/fields.js';
import { z } from 'zod';
import type { PipelineStatus, PlatformState, ProjectRecord } from '../../core/state.js';
import { tget, tvalues } from '../../core/table.js';
import {
  BLANK_SHA,
  PIPELINE_STATUSES,
  DEFAULT_RUN_SECONDS,
  createPipeline,
  createVariable,
  iso,
  livePipeline,
  variableErrors,
  type NewPipeline,
} from './model.js';
import { addRef, findRef } from './refs.js';
import {
  buildsSpan,
  exportBuilds,
  pipelineJobFields,
  scenarioBuilds,
  secondsField,
} from './scenario-jobs.js';

const shaHex = z.string().regex(/^[0-9a-f]{40}$/, 'must be a commit sha (40 hex digits)');

const refEntry = z
  .union([z.string().min(1), z.strictObject({ name: z.string().min(1), sha: shaHex.optional() })])
  .describe('a name, or {name, sha}; a sha is made up when none is given');

const variableSchema = z.strictObject({
  key: z.string(),
  value: z.string(),
  variable_type: z.enum(['env_var', 'file']).default('env_var'),
  protected: z.boolean().default(false),
  masked: z.boolean().default(false),
  environment_scope: z.string().default('*'),
});

const testCaseSchema = z.strictObject({
  name: z.string(),
  classname: z.string().default(''),
  status: z.enum(['success', 'failed', 'skipped', 'error']),
  execution_time: z.number().min(0).default(0).describe('seconds'),
  system_output: z.string().nullable().default(null),
  stack_trace: z.string().nullable().default(null),
});

const pipelineSchema = z.strictObject({
  ref: z
    .string()
    .min(1)
    .optional()
    .describe(
      'a branch (or a tag, with tag: true), added to the project if missing; default the default branch',
    ),
  tag: z.boolean().default(false),
  sha: shaHex.optional().describe("default the ref's sha"),
  status: z
    .enum(PIPELINE_STATUSES)
    .default('pending')
    .describe(
      'the status at the start of the clock; pending and running pipelines then move on the clock ' +
        '(running right after `now`, `outcome` after `duration`), the others stay',
    ),
  outcome: z.enum(['success', 'failed']).optional().describe('how a run ends (default success)'),
  pending_until: isoTime
    .optional()
    .describe('a pending pipeline: when its queue time ends and its first jobs start (default `now`)'),
  duration: secondsField.optional().describe('how long a run takes (default 60 seconds)'),
  user: z.string().optional().describe('username of the triggering user; default the project creator'),
  created_at: isoTime.optional(),
  coverage: z.union([z.number(), z.string()]).nullable().optional(),
  yaml_errors: z.string().nullable().optional(),
  variables: z
    .array(
      z.strictObject({
        key: z.string(),
        value: z.string(),
        variable_type: z.enum(['env_var', 'file']).optional(),
      }),
    )
    .default([]),
  test_report: z
    .strictObject({
      test_suites: z.array(
        z.strictObject({ name: z.string(), test_cases: z.array(testCaseSchema).default([]) }),
      ),
    })
    .optional()
    .describe('served by the test report endpoint while the junit_pipeline_view flag is on'),
  ...pipelineJobFields,
});

/** Fields a project entry of a scenario may carry for this area. */
export const ciProjectFields = {
  branches: z.array(refEntry).optional().describe('branches besides the default branch, which always exists'),
  tags: z.array(refEntry).optional(),
  variables: z.array(variableSchema).optional().describe('CI/CD variables'),
  pipelines: z.array(pipelineSchema).optional().describe('pipelines, oldest first'),
};

export type ScenarioProject = z.output<z.ZodObject<typeof ciProjectFields>> & {
  default_branch: string | null;
};
type ScenarioPipeline = z.output<typeof pipelineSchema>;

const refName = (r: string | { name: string }) => (typeof r === 'string' ? r : r.name);

/** What a scenario's CI parts get wrong, as `projects[i]...: message` lines. */
export function ciScenarioProblems(p: ScenarioProject, at: string, users: ReadonlySet<string>): string[] {
  const problems: string[] = [];
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
  const status = pl.status;
  const outcome = pl.outcome ?? (status === 'failed' ? 'failed' : 'success');
  const at = { created_at: now, user_id: userId };
  // Described jobs make the run as long as they take.
  const d = pl.jobs ? buildsSpan(scenarioBuilds(pl, 'pending', 0, outcome, at)) : seconds(pl.duration);
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
    run_at:
      status === 'pending'
        ? pl.pending_until !== undefined
          ? new Date(pl.pending_until).toISOString()
          : now
        : status === 'running' || finished
          ? created
          : null,
    run_seconds: d,
    outcome,
    started_at: started,
    finished_at: ended,
    updated_at: ended ?? created,
    duration: finished ? d : null,
    variables: pl.variables.map((v) => ({ ...v })),
    test_suites: pl.test_report ? pl.test_report.test_suites.map((s) => ({ ...s })) : null,
    builds: scenarioBuilds(pl, status, d, outcome, { created_at: created, user_id: userId }),
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

/**
 * A project's branches and tags (with their shas), variables and pipelines. A pipeline is exported as it
 * stands at the file's `now`: a running one from when it started, so that a load at that time finds it
 * running still. Not kept: the pipeline's `before_sha`, and the triggering user when it has none.
 */
export function exportProjectCi(st: PlatformState, out: ScenarioOut): void {
  for (const refs of tvalues(st.refs)) {
    const e = out.project(refs.project_id);
    if (!e) continue;
    const list = (r: Record<string, string>) => Object.entries(r).map(([name, sha]) => ({ name, sha }));
    if (Object.keys(refs.branches).length) e.branches = list(refs.branches);
    if (Object.keys(refs.tags).length) e.tags = list(refs.tags);
  }
  for (const v of tvalues(st.variables)) {
    const e = out.project(v.project_id);
    if (!e) continue;
    const entry: Record<string, unknown> = { key: v.key, value: v.value };
    if (v.variable_type !== 'env_var') entry.variable_type = v.variable_type;
    if (v.protected) entry.protected = true;
    if (v.masked) entry.masked = true;
    if (v.environment_scope !== '*') entry.environment_scope = v.environment_scope;
    ((e.variables ??= []) as unknown[]).push(entry);
  }
  const nowMs = Date.parse(out.now);
  for (const p of tvalues(st.pipelines)) {
    const e = out.project(p.project_id);
    const project = tget(st.projects, p.project_id);
    if (!e || !project) continue;
    const live = livePipeline(p, nowMs);
    const entry: Record<string, unknown> = {};
    if (p.tag || p.ref !== project.default_branch) entry.ref = p.ref;
    if (p.tag) entry.tag = true;
    if (p.sha !== findRef(st, project, p.tag ? 'tag' : 'branch', p.ref)) entry.sha = p.sha;
    entry.status = live.status;
    // A pipeline still in its queue time keeps the rest of it (`ci.queue_time` at its creation).
    if (live.status === 'pending' && p.run_at !== null && Date.parse(p.run_at) > nowMs)
      entry.pending_until = p.run_at;
    if (p.outcome !== (live.status === 'failed' ? 'failed' : 'success')) entry.outcome = p.outcome;
    const seconds = FINISHED_TIMES.has(live.status) ? (live.duration ?? p.run_seconds) : p.run_seconds;
    if (seconds !== DEFAULT_RUN_SECONDS) entry.duration = seconds;
    const user = p.user_id === project.creator_id ? undefined : out.username(p.user_id);
    if (user !== undefined) entry.user = user;
    const created = live.status === 'running' ? live.started_at! : p.created_at;
    entry.created_at = created;
    if (p.coverage !== null) entry.coverage = p.coverage;
    if (p.yaml_errors !== null) entry.yaml_errors = p.yaml_errors;
    if (p.variables.length) entry.variables = p.variables;
    if (p.test_suites !== null) entry.test_report = { test_suites: p.test_suites };
    exportBuilds(p, entry);
    ((e.pipelines ??= []) as unknown[]).push(entry);
  }
}
