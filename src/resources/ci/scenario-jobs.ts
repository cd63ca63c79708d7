/** Scenario files' jobs of a pipeline: their specs, how a pipeline's state sets theirs, and export. */
import { z } from 'zod';
import { parseDuration } from '../../core/clock.js';
import { isoOf, isoTime } from '../../core/fields.js';
import type { PipelineRecord, PipelineStatus } from '../../core/state.js';
import {
  defaultBuildSpecs,
  liveRun,
  newBuilds,
  stageOrder,
  type BuildRecord,
  type BuildSpec,
} from './builds.js';

/** Bounds of a described pipeline: its jobs, their logs and artifacts. */
export const JOB_LIMITS = { jobs: 200, stages: 50, logChars: 1_000_000, files: 100, fileChars: 1_000_000 };

/** Seconds, or a duration string; pipelines' and jobs' run lengths. */
/** The longest run a scenario may give a pipeline or job: a year, well inside what a date can hold. */
export const MAX_RUN_SECONDS = 366 * 86_400;

export const secondsField = z
  .union([
    z.number().min(0).max(MAX_RUN_SECONDS),
    z
      .string()
      .max(32)
      .refine(
        (v) => {
          try {
            const ms = parseDuration(v);
            return ms >= 0 && ms <= MAX_RUN_SECONDS * 1000;
          } catch {
            return false;
          }
        },
        { message: 'must be seconds or a duration such as 90s, 5m, 1h30m' },
      ),
  ])
  .describe('seconds, or a duration such as 90s, 5m, 1h30m (at most a year)');

const jobSchema = z.strictObject({
  name: z.string().min(1).max(255),
  stage: z.string().min(1).max(255).default('test'),
  when: z.enum(['on_success', 'on_failure', 'always', 'manual']).default('on_success'),
  allow_failure: z.boolean().optional().describe('default true for manual jobs, false for the others'),
  duration: secondsField.default(60).describe('how long the job runs'),
  outcome: z.enum(['success', 'failed']).default('success'),
  log: z
    .string()
    .max(JOB_LIMITS.logChars)
    .default('')
    .describe('what the job prints; its trace grows with it'),
  artifacts: z
    .array(
      z.strictObject({
        path: z
          .string()
          .min(1)
          .max(1024)
          .regex(/^[^/]/, 'must be a relative path')
          .refine((p) => !p.split('/').includes('..'), 'must not leave the archive'),
        content: z.string().max(JOB_LIMITS.fileChars),
      }),
    )
    .max(JOB_LIMITS.files)
    .default([])
    .describe('the files of the job’s artifacts archive'),
  artifacts_expire_at: isoTime.optional(),
  environment: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe('the environment the job deploys to: a deployment there, made and finished by the job'),
});

/** The fields a scenario pipeline gains for its jobs. */
export const pipelineJobFields = {
  stages: z
    .array(z.string().min(1).max(255))
    .max(JOB_LIMITS.stages)
    .optional()
    .describe('stage order; default the order the jobs name them'),
  jobs: z
    .array(jobSchema)
    .min(1)
    .max(JOB_LIMITS.jobs)
    .optional()
    .describe('the jobs; default build, test and deploy sharing the duration, the outcome on deploy'),
};

type ScenarioJob = z.output<typeof jobSchema>;

const specOf = (j: ScenarioJob): BuildSpec => ({
  name: j.name,
  stage: j.stage,
  when: j.when,
  allow_failure: j.allow_failure ?? j.when === 'manual',
  run_seconds: Math.round(parseDuration(j.duration) / 1000),
  outcome: j.outcome,
  log: j.log,
  artifacts: j.artifacts,
  artifacts_expire_at: isoOf(j.artifacts_expire_at) ?? null,
  ...(j.environment !== undefined && { environment: j.environment }),
});

/** Statuses in which a scenario pipeline's jobs run on the clock; in the others they stay as they are. */
export const RUNS: ReadonlySet<PipelineStatus> = new Set(['pending', 'running', 'success', 'failed']);

/** A pipeline's jobs as a scenario describes them: its `jobs`, else the default set. */
export function scenarioBuilds(
  pl: { jobs?: ScenarioJob[]; stages?: string[] },
  status: PipelineStatus,
  runSeconds: number,
  outcome: 'success' | 'failed',
  at: { created_at: string; user_id: number | null },
): BuildRecord[] {
  const specs = pl.jobs ? pl.jobs.map(specOf) : defaultBuildSpecs(runSeconds, outcome);
  const builds = newBuilds(specs, pl.stages, { ...at, status: RUNS.has(status) ? 'created' : status });
  // A running pipeline is running from the start: its first stage's jobs have been taken by a runner.
  if (status === 'running') {
    const first = Math.min(...builds.map((b) => b.stage_idx));
    for (const b of builds)
      if (b.stage_idx === first && (b.when === 'on_success' || b.when === 'always'))
        Object.assign(b, { status: 'running', queued_at: at.created_at, started_at: at.created_at });
  }
  return builds;
}

/** How long described jobs take from the first start to the last end (seconds). */
export function buildsSpan(builds: readonly BuildRecord[]): number {
  const run = liveRun(
    builds,
    new Date(0).toISOString(),
    {
      status: 'created',
      started_at: null,
      finished_at: null,
      duration: null,
      updated_at: new Date(0).toISOString(),
    },
    8.64e15,
  );
  return run.finished_at === null ? 0 : Math.round(Date.parse(run.finished_at) / 1000);
}

const sameSpecs = (a: readonly BuildSpec[], b: readonly BuildSpec[]) =>
  JSON.stringify(a) === JSON.stringify(b);

const specFrom = (b: BuildRecord): BuildSpec => ({
  name: b.name,
  stage: b.stage,
  when: b.when,
  allow_failure: b.allow_failure,
  run_seconds: b.run_seconds,
  outcome: b.outcome,
  log: b.log,
  artifacts: b.artifacts,
  artifacts_expire_at: b.artifacts_expire_at,
  ...(b.environment !== undefined && { environment: b.environment }),
});

/**
 * A pipeline's `stages` and `jobs` entries, unless they are the default set for its run length and
 * outcome. Only the jobs' specs are written (the newest attempt of each): a load runs them afresh.
 */
export function exportBuilds(p: PipelineRecord, entry: Record<string, unknown>): void {
  const latest = (p.builds ?? []).filter((b) => !b.retried);
  if (latest.length === 0) return;
  const specs = latest.map(specFrom);
  if (sameSpecs(specs, defaultBuildSpecs(p.run_seconds, p.outcome))) return;
  const byIdx = [...latest].sort((a, b) => a.stage_idx - b.stage_idx);
  const stages = [...new Set(byIdx.map((b) => b.stage))];
  if (stages.join('\0') !== stageOrder(specs).join('\0')) entry.stages = stages;
  entry.jobs = specs.map((s) => {
    const j: Record<string, unknown> = { name: s.name, stage: s.stage };
    if (s.when !== 'on_success') j.when = s.when;
    if (s.allow_failure !== (s.when === 'manual')) j.allow_failure = s.allow_failure;
    j.duration = s.run_seconds;
    if (s.outcome !== 'success') j.outcome = s.outcome;
    if (s.log !== '') j.log = s.log;
    if (s.artifacts.length) j.artifacts = s.artifacts;
    if (s.artifacts_expire_at !== null) j.artifacts_expire_at = s.artifacts_expire_at;
    if (s.environment !== undefined) j.environment = s.environment;
    return j;
  });
}
