/**
 * The CI lint API (`lib/api/lint.rb`): `POST /ci/lint` checks content on its own (local includes have no
 * project to come from), `POST /projects/:id/ci/lint` checks content as the project would read it, and
 * `GET /projects/:id/ci/lint` checks the project's file on its default branch. `dry_run` also picks the
 * jobs a push pipeline on the default branch would get (`Gitlab::Ci::Lint#dry_run`).
 */
import { state, type Ctx } from '../../core/context.js';
import { forbidden, unauthorized } from '../../core/errors.js';
import { findProject, projectAccess } from '../../core/access.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { ProjectRecord } from '../../core/state.js';
import { canDownloadCode } from '../projects/access.js';
import type { Project } from '../projects/record.js';
import { setting } from '../settings/model.js';
import { authorizeCi } from './access.js';
import {
  mergedYaml,
  missingNeed,
  processCiConfig,
  selectJobs,
  workflowAllows,
  type CiConfigResult,
  type CiJob,
} from './config.js';
import { findRef } from './refs.js';
import { ciConfigPath, fileAt, includeSource, pathsAt } from './yaml-pipeline.js';

type Json = Record<string, unknown>;

/** `Gitlab::Ci::Warnings::MAX_LIMIT`: lint shows at most this many warnings. */
const MAX_WARNINGS = 25;

const needsOf = (j: CiJob) => (j.needs.length ? j.needs.map((name) => ({ name, artifacts: true })) : null);

/** `static_validation_convert_to_jobs`: every job of a valid configuration, stage by stage. */
function staticJobs(result: CiConfigResult): Json[] {
  const config = result.config;
  if (!config) return [];
  return config.stages.flatMap((stage) =>
    config.jobs
      .filter((j) => j.stage === stage)
      .map((j) => ({
        name: j.name,
        stage,
        before_script: j.before_script,
        script: j.script,
        after_script: j.after_script,
        tag_list: j.tags,
        only: j.rules ? null : (j.only ?? { refs: ['branches', 'tags'] }),
        except: j.except ?? null,
        environment: j.environment?.name ?? null,
        when: j.when,
        allow_failure: j.allow_failure ?? j.when === 'manual',
        needs: needsOf(j),
      })),
  );
}

interface LintOutcome {
  valid: boolean;
  errors: string[];
  warnings: string[];
  merged_yaml: string | null;
  jobs: Json[];
}

/** `Gitlab::Ci::Lint#validate` for a project: static, or a dry run on the default branch. */
function lintProject(c: Ctx, proj: ProjectRecord, content: string | undefined, dryRun: boolean): LintOutcome {
  const st = state(c);
  const branch = proj.default_branch;
  const sha = branch === null ? undefined : findRef(st, proj, 'branch', branch);
  const result = processCiConfig(content, includeSource(st, sha ?? null));
  const merged = result.merged ? mergedYaml(result.merged) : null;
  const warnings = result.warnings.slice(0, MAX_WARNINGS);
  if (!dryRun || !result.config)
    return {
      valid: result.errors.length === 0,
      errors: result.errors.slice(0, dryRun ? 1 : undefined),
      warnings,
      merged_yaml: merged,
      jobs: staticJobs(result),
    };
  if (branch === null || sha === undefined)
    return { valid: false, errors: ['Reference not found'], warnings, merged_yaml: merged, jobs: [] };
  const facts = { ref: branch, tag: false, source: 'push' };
  const paths = pathsAt(st, sha);
  if (!workflowAllows(result.config, facts, {}, paths))
    return {
      valid: false,
      errors: ['Pipeline filtered out by workflow rules.'],
      warnings,
      merged_yaml: merged,
      jobs: [],
    };
  const selected = selectJobs(result.config, facts, {}, paths);
  if (selected.length === 0)
    return {
      valid: false,
      errors: ['No stages / jobs for this pipeline.'],
      warnings,
      merged_yaml: merged,
      jobs: [],
    };
  const missing = missingNeed(selected);
  if (missing) return { valid: false, errors: [missing], warnings, merged_yaml: merged, jobs: [] };
  const order = result.config.stages;
  const jobs = [...selected]
    .sort((a, b) => order.indexOf(a.job.stage) - order.indexOf(b.job.stage))
    .map(({ job, when, allow_failure }) => ({
      name: job.name,
      stage: job.stage,
      before_script: job.before_script,
      script: job.script,
      after_script: job.after_script,
      tag_list: job.tags,
      environment: job.environment?.name ?? null,
      when,
      allow_failure,
    }));
  return { valid: true, errors: [], warnings, merged_yaml: merged, jobs };
}

/** `Entities::Ci::Lint::Result`, with the jobs when asked for. */
function projectResult(o: LintOutcome, includeJobs: boolean | undefined): Json {
  const out: Json = { valid: o.valid, errors: o.errors, warnings: o.warnings, merged_yaml: o.merged_yaml };
  if (includeJobs) out.jobs = o.jobs;
  return out;
}

const projectOf = (c: Ctx) => findProject(c, c.req.param('id') ?? '');

export function lintRoutes(r: ApiRouter): void {
  r.post('/ci/lint', { auth: 'optional' }, (c) => {
    // Anonymous linting is open while sign-up is.
    if (!setting(state(c), 'signup_enabled') && !c.get('viewer').user) throw unauthorized();
    const prm = parse(c, { content: p.str().required(), include_merged_yaml: p.bool() });
    const result = processCiConfig(prm.content, includeSource(state(c), null));
    const out: Json = {
      status: result.errors.length ? 'invalid' : 'valid',
      errors: result.errors,
      warnings: result.warnings,
    };
    if (prm.include_merged_yaml) out.merged_yaml = result.merged ? mergedYaml(result.merged) : null;
    return c.json(out);
  });

  r.get('/projects/:id/ci/lint', { auth: 'required' }, (c) => {
    const proj = projectOf(c);
    const user = c.get('viewer').user;
    if (!canDownloadCode(proj as Project, user, projectAccess(state(c), user, proj))) throw forbidden();
    const prm = parse(c, { dry_run: p.bool().default(false), include_jobs: p.bool() });
    const st = state(c);
    const sha = proj.default_branch === null ? undefined : findRef(st, proj, 'branch', proj.default_branch);
    const content = sha === undefined ? undefined : fileAt(st, sha, ciConfigPath(proj));
    return c.json(projectResult(lintProject(c, proj, content, prm.dry_run), prm.include_jobs));
  });

  r.post('/projects/:id/ci/lint', (c) => {
    const proj = projectOf(c);
    authorizeCi(c, proj, 'create_pipeline');
    const prm = parse(c, {
      content: p.str().required(),
      dry_run: p.bool().default(false),
      include_jobs: p.bool(),
    });
    return c.json(projectResult(lintProject(c, proj, prm.content, prm.dry_run), prm.include_jobs));
  });
}
