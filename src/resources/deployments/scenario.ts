/**
 * Scenario files' `deployments` of a project: the API's own deployments (those of jobs come with their
 * pipelines, from a job's `environment`), and the checks of the environment names jobs give.
 */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut } from '../../core/area.js';
import { isoOf, isoTime } from '../../core/fields.js';
import type { PlatformState } from '../../core/state.js';
import { tget, tvalues } from '../../core/table.js';
import { addRef } from '../ci/refs.js';
import { fieldErrors } from '../environments/model.js';
import { createDeployment, deployableOf, environmentNamed } from './model.js';
import { DEPLOYMENT_STATUSES } from './store.js';

const deploymentSchema = z.strictObject({
  environment: z.string().min(1).max(255).describe('made when the project has none of that name'),
  ref: z.string().min(1).max(255).optional().describe('default the default branch'),
  tag: z.boolean().default(false),
  sha: z
    .string()
    .regex(/^[0-9a-f]{40}$/)
    .optional()
    .describe("default the ref's head"),
  status: z.enum(DEPLOYMENT_STATUSES).default('success'),
  user: z.string().optional().describe("default the project's creator"),
  created_at: isoTime.optional(),
  updated_at: isoTime.optional().describe('also when it finished, for a finished one'),
});

export const deploymentProjectFields = {
  deployments: z
    .array(deploymentSchema)
    .max(10_000)
    .optional()
    .describe('deployments made through the API; a job with an environment makes its own'),
};

interface JobEntry {
  environment?: string;
}

export interface DeploymentProject {
  default_branch?: string;
  deployments?: z.output<typeof deploymentSchema>[];
  pipelines?: { jobs?: JobEntry[] }[];
}

/** The environment names of deployments and jobs, as the environment model checks them. */
export function deploymentProblems(p: DeploymentProject, at: string, users: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  const check = (name: string, where: string) => {
    for (const [field, msgs] of Object.entries(fieldErrors({ name, external_url: null }, false)))
      if (field === 'name') for (const m of msgs) problems.push(`${where}: ${m}`);
  };
  (p.deployments ?? []).forEach((d, j) => {
    check(d.environment, `${at}.deployments[${j}].environment`);
    if (d.user !== undefined && !users.has(d.user.toLowerCase()))
      problems.push(`${at}.deployments[${j}].user: no user "${d.user}"`);
  });
  (p.pipelines ?? []).forEach((pl, i) =>
    (pl.jobs ?? []).forEach((j, k) => {
      if (j.environment !== undefined) check(j.environment, `${at}.pipelines[${i}].jobs[${k}].environment`);
    }),
  );
  return problems;
}

const FINISHES: ReadonlySet<string> = new Set(['success', 'failed', 'canceled']);

export function buildDeployments(
  st: Draft<PlatformState>,
  projectId: number,
  p: DeploymentProject,
  b: ScenarioBuild,
): void {
  const project = tget(st.projects, projectId)!;
  for (const d of p.deployments ?? []) {
    const created = isoOf(d.created_at) ?? b.now;
    const updated = isoOf(d.updated_at) ?? created;
    const ref = d.ref ?? project.default_branch ?? 'master';
    const sha = d.sha ?? addRef(st, projectId, d.tag ? 'tag' : 'branch', ref);
    const envId = environmentNamed(st, projectId, d.environment, created)!;
    createDeployment(st, {
      project_id: projectId,
      environment_id: envId,
      ref,
      tag: d.tag,
      sha,
      user_id: d.user === undefined ? project.creator_id || null : b.uid(d.user),
      deployable_id: null,
      status: d.status,
      created_at: created,
      updated_at: updated,
      finished_at: FINISHES.has(d.status) ? updated : null,
    });
  }
}

/**
 * The deployments without a job (a job's deployment comes back with its pipeline), each with the
 * status it has at the file's `now`.
 */
export function exportDeployments(st: PlatformState, out: ScenarioOut): void {
  const records = tvalues(st.deployments.records).sort((a, b) => a.id - b.id);
  for (const d of records) {
    if (deployableOf(st, d)) continue;
    const e = out.project(d.project_id);
    const project = tget(st.projects, d.project_id);
    const env = tget(st.environments.records, d.environment_id);
    if (!e || !project || !env) continue;
    const entry: Record<string, unknown> = { environment: env.name };
    if (d.ref !== project.default_branch) entry.ref = d.ref;
    if (d.tag) entry.tag = true;
    entry.sha = d.sha;
    if (d.status !== 'success') entry.status = d.status;
    const user = d.user_id === project.creator_id ? undefined : out.username(d.user_id);
    if (user !== undefined) entry.user = user;
    entry.created_at = d.created_at;
    if (d.updated_at !== d.created_at) entry.updated_at = d.updated_at;
    ((e.deployments ??= []) as unknown[]).push(entry);
  }
}
