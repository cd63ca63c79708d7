/**
 * A new pipeline's jobs from the project's `.gitlab-ci.yml` at the pipeline's commit (the project's
 * `ci_config_path` when it names a file of the repository). What each job does once it runs (how long,
 * its outcome, its log and artifacts) is what the newest earlier job of that name in the project did, so
 * a scenario's described jobs keep their outcomes in the pipelines that follow; a job never seen before
 * succeeds after 20 seconds and prints its script.
 */
import type { PlatformState, ProjectRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { inFreezePeriod } from '../freeze_periods/model.js';
import { objectsOf } from '../repository/store.js';
import { entryAt } from '../repository/tree.js';
import { ciTemplateFile } from '../templates/routes.js';
import type { Project } from '../projects/record.js';
import type { BuildSpec, BuildWhen } from './builds.js';
import {
  processCiConfig,
  missingNeed,
  selectJobs,
  workflowAllows,
  type CiConfigResult,
  type IncludeSource,
} from './config.js';
import { projectPipelineIds } from './model.js';

/** How long a job the project never ran before takes, in seconds. */
export const NEW_JOB_SECONDS = 20;

/** `ci_config_path_or_default`: the project's own path, unless it points outside the repository. */
export function ciConfigPath(project: ProjectRecord): string {
  const path = (project as Project).ci_config_path;
  return path && !path.includes('@') && !/^https?:/.test(path) ? path : '.gitlab-ci.yml';
}

/** A file's text at a commit, or undefined (no such commit stored, no such file). */
export function fileAt(st: PlatformState, sha: string, path: string): string | undefined {
  const store = objectsOf(st);
  const commit = store.commit(sha);
  if (!commit) return undefined;
  const entry = entryAt(store, commit.tree, path);
  if (!entry || entry.mode === '40000' || entry.mode === '160000') return undefined;
  return store.raw(entry.id, 'blob')?.toString('utf8');
}

/** Includes as a pipeline at `sha` reads them: the repository's files there, and the vendored templates. */
export const includeSource = (st: PlatformState, sha: string | null): IncludeSource => ({
  ...(sha !== null && { local: (path: string) => fileAt(st, sha, path) }),
  template: ciTemplateFile,
});

/** Files a commit's tree lists at most, for `rules: exists:` (a larger tree is read this far). */
const MAX_LISTED_PATHS = 50_000;

/** The commit's file paths, read on first use (`ls_files`), for `rules: exists:`. */
export function pathsAt(st: PlatformState, sha: string): () => readonly string[] {
  let paths: string[] | undefined;
  return () => {
    if (paths) return paths;
    paths = [];
    const store = objectsOf(st);
    const commit = store.commit(sha);
    if (!commit) return paths;
    const queue: [string, string][] = [[commit.tree, '']];
    while (queue.length && paths.length < MAX_LISTED_PATHS) {
      const [id, at] = queue.shift()!;
      for (const e of store.tree(id) ?? []) {
        const path = at ? `${at}/${e.name}` : e.name;
        if (e.mode === '40000') queue.push([e.id, path]);
        else paths.push(path);
      }
    }
    return paths;
  };
}

/** The configuration of the project at a commit, or undefined when it has no CI file there. */
export function ciConfigAt(
  st: PlatformState,
  project: ProjectRecord,
  sha: string,
): CiConfigResult | undefined {
  const text = fileAt(st, sha, ciConfigPath(project));
  if (text === undefined) return undefined;
  return processCiConfig(text, includeSource(st, sha));
}

/** The newest job of this name the project ran, as a spec to copy what it did. */
function previousRun(st: PlatformState, projectId: number, name: string): BuildSpec | undefined {
  const ids = projectPipelineIds(st, projectId);
  for (let i = ids.length - 1; i >= 0; i--) {
    const builds = tget(st.pipelines, ids[i]!)?.builds ?? [];
    for (let j = builds.length - 1; j >= 0; j--) if (builds[j]!.name === name) return builds[j];
  }
  return undefined;
}

export interface YamlJobs {
  specs: BuildSpec[];
  stages: string[];
}

/**
 * The jobs of a pipeline for `ref` from a valid configuration, or the platform's error for the pipeline
 * (`{"base": [...]}`): the configuration's first error, or `No stages / jobs for this pipeline.`.
 */
export function yamlJobs(
  st: PlatformState,
  project: ProjectRecord,
  sha: string,
  result: CiConfigResult,
  facts: { ref: string; tag: boolean; source: string },
  given: Readonly<Record<string, string>>,
  now?: number,
): YamlJobs | { error: string } {
  if (!result.config) return { error: result.errors[0] ?? 'Invalid configuration format' };
  // `Ci::Pipeline#predefined_variables`: `CI_DEPLOY_FREEZE` while a freeze period holds.
  const variables =
    now !== undefined && inFreezePeriod(st, project.id, now) ? { ...given, CI_DEPLOY_FREEZE: 'true' } : given;
  const paths = pathsAt(st, sha);
  if (!workflowAllows(result.config, facts, variables, paths))
    return { error: 'Pipeline filtered out by workflow rules.' };
  const selected = selectJobs(result.config, facts, variables, paths);
  if (selected.length === 0) return { error: 'No stages / jobs for this pipeline.' };
  const missing = missingNeed(selected);
  if (missing) return { error: missing };
  const specs = selected.map(({ job, when, allow_failure }): BuildSpec => {
    const before = previousRun(st, project.id, job.name);
    const script = [...job.before_script, ...job.script, ...job.after_script];
    return {
      name: job.name,
      stage: job.stage,
      // Delayed jobs run without their delay: the job clock has no `scheduled` state.
      when: (when === 'delayed' ? 'on_success' : when) as BuildWhen,
      allow_failure,
      run_seconds: before?.run_seconds ?? NEW_JOB_SECONDS,
      outcome: before?.outcome ?? 'success',
      log: before?.log ?? script.map((line) => `$ ${line}\n`).join(''),
      artifacts: before?.artifacts.map((f) => ({ ...f })) ?? [],
      artifacts_expire_at: before?.artifacts_expire_at ?? null,
      // A job that starts an environment deploys there (stop, prepare and the like deploy nothing).
      ...(job.environment && job.environment.action === 'start' && { environment: job.environment.name }),
    };
  });
  const used = new Set(specs.map((s) => s.stage));
  return { specs, stages: result.config.stages.filter((s) => used.has(s)) };
}
