/**
 * Scenario files' `clusters` (every certificate-based cluster, in id order: each `type` with its
 * `project` or `group`; the token kept as given, as a CI variable's value is) and
 * `metrics_dashboard_annotations` (each on an environment of a listed project, or on a cluster by its
 * place in `clusters`).
 */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut, ScenarioRefs } from '../../core/area.js';
import { lookupGroup, lookupProject } from '../../core/access.js';
import { isoOf, isoTime } from '../../core/fields.js';
import { iget, tget, tvalues } from '../../core/table.js';
import type { PlatformState } from '../../core/state.js';
import { createAnnotation, createCluster } from './model.js';
import { AUTHORIZATION_TYPES, type ClusterRecord } from './store.js';
import { normalizePlatform, validCertificate } from './validate.js';

const clusterSchema = z.strictObject({
  type: z.enum(['project_type', 'group_type', 'instance_type']).default('project_type'),
  project: z.string().optional().describe('a project_type cluster’s project (its full path)'),
  group: z.string().optional().describe('a group_type cluster’s group (its full path)'),
  name: z.string().min(1).max(255),
  user: z.string().nullable().optional().describe('username of who added it'),
  enabled: z.boolean().default(true),
  managed: z.boolean().default(true),
  domain: z.string().max(255).nullable().default(null),
  environment_scope: z.string().min(1).max(255).default('*'),
  namespace_per_environment: z.boolean().default(true),
  management_project: z.string().nullable().default(null).describe('full path of its management project'),
  platform_kubernetes: z.strictObject({
    api_url: z.string().min(1).max(2048).describe('never contacted: the cluster is a record'),
    token: z.string().min(1).max(4096).describe('kept as given, never shown by the API'),
    ca_cert: z.string().max(65_536).nullable().default(null),
    namespace: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/)
      .max(63)
      .nullable()
      .default(null),
    authorization_type: z.enum(AUTHORIZATION_TYPES).default('rbac'),
  }),
  created_at: isoTime.optional(),
  updated_at: isoTime.optional(),
});

const annotationSchema = z.strictObject({
  project: z.string().optional().describe('with `environment`: the environment’s project'),
  environment: z.string().optional().describe('the name of an environment of `project`'),
  cluster: z.number().int().min(0).optional().describe('the index in `clusters` of the annotated cluster'),
  dashboard_path: z.string().min(1).max(255),
  starting_at: isoTime,
  ending_at: isoTime.nullable().default(null),
  description: z.string().min(1).max(255),
  created_at: isoTime.optional(),
});

export const clusterFields = {
  clusters: z
    .array(clusterSchema)
    .max(10_000)
    .optional()
    .describe('Kubernetes clusters added by certificate, in id order'),
  metrics_dashboard_annotations: z
    .array(annotationSchema)
    .max(10_000)
    .optional()
    .describe('metrics dashboard annotations of environments and clusters, in id order'),
};

type ClusterEntry = z.output<typeof clusterSchema>;
type AnnotationEntry = z.output<typeof annotationSchema>;
export interface ClustersScenario {
  clusters?: ClusterEntry[];
  metrics_dashboard_annotations?: AnnotationEntry[];
  projects?: { path: string; environments?: { name: string }[] }[];
  users?: { username: string }[];
}

/** Owners and management projects are listed, certificates readable, annotations on something listed. */
export function clusterProblems(s: ClustersScenario, refs: ScenarioRefs): string[] {
  const problems: string[] = [];
  const projects = new Map((s.projects ?? []).map((p) => [p.path.toLowerCase(), p]));
  const users = new Set((s.users ?? []).map((u) => u.username.toLowerCase()));
  const list = s.clusters ?? [];
  list.forEach((k, i) => {
    const at = `clusters[${i}]`;
    if (k.type === 'project_type') {
      if (k.project === undefined) problems.push(`${at}.project: a project_type cluster needs its project`);
      else if (!projects.has(k.project.toLowerCase()))
        problems.push(`${at}.project: no project "${k.project}"`);
    } else if (k.project !== undefined)
      problems.push(`${at}.project: only a project_type cluster has a project`);
    if (k.type === 'group_type') {
      if (k.group === undefined) problems.push(`${at}.group: a group_type cluster needs its group`);
      else if (!refs.groups.has(k.group.toLowerCase())) problems.push(`${at}.group: no group "${k.group}"`);
    } else if (k.group !== undefined) problems.push(`${at}.group: only a group_type cluster has a group`);
    if (k.user && !users.has(k.user.toLowerCase())) problems.push(`${at}.user: no user "${k.user}"`);
    if (k.management_project !== null && !projects.has(k.management_project.toLowerCase()))
      problems.push(`${at}.management_project: no project "${k.management_project}"`);
    if (k.platform_kubernetes.ca_cert && !validCertificate(k.platform_kubernetes.ca_cert))
      problems.push(`${at}.platform_kubernetes.ca_cert: must be a valid PEM certificate`);
    const owner = `${k.type}:${k.project ?? k.group ?? ''}`.toLowerCase();
    if (
      list
        .slice(0, i)
        .some(
          (o) =>
            `${o.type}:${o.project ?? o.group ?? ''}`.toLowerCase() === owner &&
            o.environment_scope === k.environment_scope,
        )
    )
      problems.push(`${at}.environment_scope: cannot add duplicated environment scope`);
  });
  (s.metrics_dashboard_annotations ?? []).forEach((a, i) => {
    const at = `metrics_dashboard_annotations[${i}]`;
    if ((a.cluster === undefined) === (a.environment === undefined))
      problems.push(`${at}: an annotation belongs to one environment or one cluster`);
    if (a.cluster !== undefined && a.cluster >= list.length)
      problems.push(`${at}.cluster: no cluster ${a.cluster}`);
    if (a.environment !== undefined) {
      const p = a.project === undefined ? undefined : projects.get(a.project.toLowerCase());
      if (!p) problems.push(`${at}.project: no project "${a.project ?? ''}"`);
      else if (!(p.environments ?? []).some((e) => e.name === a.environment))
        problems.push(`${at}.environment: no environment "${a.environment}" in ${a.project ?? ''}`);
    }
    if (a.ending_at !== null && Date.parse(a.ending_at) < Date.parse(a.starting_at))
      problems.push(`${at}.ending_at: can't be before starting_at time`);
  });
  return problems;
}

/** After every project: owners and management projects exist by then. */
export function buildClusters(st: Draft<PlatformState>, s: ClustersScenario, b: ScenarioBuild): void {
  const ids: number[] = [];
  for (const k of s.clusters ?? []) {
    const project = k.project === undefined ? undefined : lookupProject(st, k.project);
    const group = k.group === undefined ? undefined : lookupGroup(st, k.group);
    const mgmt = k.management_project === null ? undefined : lookupProject(st, k.management_project);
    const created = isoOf(k.created_at) ?? b.now;
    const rec = createCluster(
      st,
      {
        name: k.name,
        cluster_type: k.type,
        project_id: project?.id ?? null,
        group_id: group?.id ?? null,
        user_id: k.user ? b.uid(k.user) : null,
        enabled: k.enabled,
        managed: k.managed,
        domain: k.domain,
        environment_scope: k.environment_scope,
        namespace_per_environment: k.namespace_per_environment,
        management_project_id: mgmt?.id ?? null,
        provider_type: 'user',
        platform_type: 'kubernetes',
        platform: normalizePlatform(k.platform_kubernetes),
      },
      created,
    );
    rec.updated_at = isoOf(k.updated_at) ?? created;
    ids.push(rec.id);
  }
  for (const a of s.metrics_dashboard_annotations ?? []) {
    const cluster = a.cluster === undefined ? undefined : tget(st.clusters.records, ids[a.cluster]!);
    const project = a.project === undefined ? undefined : lookupProject(st, a.project);
    const envId =
      project && a.environment !== undefined
        ? iget(st.environments.idx.names, `${project.id}:${a.environment}`)
        : undefined;
    createAnnotation(
      st,
      {
        project_id: cluster ? cluster.project_id : (project?.id ?? null),
        environment_id: envId ?? null,
        cluster_id: cluster?.id ?? null,
        dashboard_path: a.dashboard_path,
        starting_at: new Date(a.starting_at).toISOString(),
        ending_at: a.ending_at === null ? null : new Date(a.ending_at).toISOString(),
        description: a.description,
      },
      isoOf(a.created_at) ?? b.now,
    );
  }
}

const pathOfProject = (st: PlatformState, id: number | null) =>
  id === null ? undefined : tget(st.projects, id)?.path_with_namespace;

export function exportClusters(st: PlatformState, out: ScenarioOut): void {
  const records = tvalues(st.clusters.records).sort((a, b) => a.id - b.id);
  const place = new Map<number, number>();
  const list: Record<string, unknown>[] = [];
  for (const k of records) {
    const e = clusterEntry(st, k, out);
    if (!e) continue;
    place.set(k.id, list.length);
    list.push(e);
  }
  if (list.length) out.file.clusters = list;
  const notes: Record<string, unknown>[] = [];
  for (const a of tvalues(st.clusters.annotations).sort((x, y) => x.id - y.id)) {
    const base: Record<string, unknown> = {};
    if (a.cluster_id !== null) {
      const at = place.get(a.cluster_id);
      if (at === undefined) continue;
      base.cluster = at;
    } else {
      const env = a.environment_id === null ? undefined : tget(st.environments.records, a.environment_id);
      const path = env ? pathOfProject(st, env.project_id) : undefined;
      if (!env || !path || !out.project(env.project_id)) continue;
      base.project = path;
      base.environment = env.name;
    }
    notes.push(
      Object.assign(base, {
        dashboard_path: a.dashboard_path,
        starting_at: a.starting_at,
        ending_at: a.ending_at,
        description: a.description,
        created_at: a.created_at,
      }),
    );
  }
  if (notes.length) out.file.metrics_dashboard_annotations = notes;
}

function clusterEntry(
  st: PlatformState,
  k: ClusterRecord,
  out: ScenarioOut,
): Record<string, unknown> | undefined {
  const e: Record<string, unknown> = { type: k.cluster_type };
  if (k.cluster_type === 'project_type') {
    if (k.project_id === null || !out.project(k.project_id)) return undefined;
    e.project = pathOfProject(st, k.project_id);
  } else if (k.cluster_type === 'group_type') {
    const g = k.group_id === null ? undefined : tget(st.groups, k.group_id);
    if (!g || !out.group(g.id)) return undefined;
    e.group = g.full_path;
  }
  const mgmt = k.management_project_id === null ? undefined : pathOfProject(st, k.management_project_id);
  return Object.assign(e, {
    name: k.name,
    user: out.username(k.user_id) ?? null,
    enabled: k.enabled,
    managed: k.managed,
    domain: k.domain,
    environment_scope: k.environment_scope,
    namespace_per_environment: k.namespace_per_environment,
    management_project: mgmt && out.project(k.management_project_id!) ? mgmt : null,
    platform_kubernetes: {
      api_url: k.platform.api_url,
      token: k.platform.token,
      ca_cert: k.platform.ca_cert,
      namespace: k.platform.namespace,
      authorization_type: k.platform.authorization_type,
    },
    created_at: k.created_at,
    updated_at: k.updated_at,
  });
}
