/** Clusters' and annotations' writes, each on a draft, and what a deleted project or group takes along. */
import type { Draft } from 'immer';
import { nextId, type PlatformState } from '../../core/state.js';
import { idelete, madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
import type { AnnotationRecord, ClusterRecord } from './store.js';
import { ownerKey, type ClusterFields } from './validate.js';

type S = Draft<PlatformState>;

/** The clusters of a project (`p<id>`), a group (`g<id>`) or the instance (`i`), in id order. */
export function clustersOf(st: PlatformState, key: string): ClusterRecord[] {
  return mget(st.clusters.idx.byOwner, key)
    .sort((a, b) => a - b)
    .map((id) => tget(st.clusters.records, id)!);
}

export function createCluster(d: S, f: ClusterFields, now: string): ClusterRecord {
  const id = nextId(d, 'clusters');
  const rec: ClusterRecord = {
    id,
    name: f.name,
    cluster_type: f.cluster_type,
    project_id: f.project_id,
    group_id: f.group_id,
    user_id: f.user_id,
    enabled: f.enabled,
    managed: f.managed,
    domain: f.domain,
    environment_scope: f.environment_scope,
    namespace_per_environment: f.namespace_per_environment,
    management_project_id: f.management_project_id,
    provider_type: 'user',
    platform_type: 'kubernetes',
    platform: {
      api_url: f.platform.api_url,
      token: f.platform.token,
      ca_cert: f.platform.ca_cert,
      namespace: f.platform.namespace,
      authorization_type: f.platform.authorization_type,
    },
    created_at: now,
    updated_at: now,
  };
  tset(d.clusters.records, id, rec);
  madd(d.clusters.idx.byOwner, ownerKey(rec), id);
  if (rec.management_project_id !== null)
    madd(d.clusters.idx.byManagement, String(rec.management_project_id), id);
  return rec;
}

/** `cluster.update(params)`: the fields as validated; `updated_at` moves only when something changed. */
export function updateCluster(d: S, id: number, f: ClusterFields, now: string): void {
  const rec = tget(d.clusters.records, id)!;
  const before = JSON.stringify([rec, rec.platform]);
  if (rec.management_project_id !== f.management_project_id) {
    if (rec.management_project_id !== null)
      mremove(d.clusters.idx.byManagement, String(rec.management_project_id), id);
    if (f.management_project_id !== null)
      madd(d.clusters.idx.byManagement, String(f.management_project_id), id);
  }
  rec.name = f.name;
  rec.enabled = f.enabled;
  rec.managed = f.managed;
  rec.domain = f.domain;
  rec.environment_scope = f.environment_scope;
  rec.namespace_per_environment = f.namespace_per_environment;
  rec.management_project_id = f.management_project_id;
  const k = rec.platform;
  k.api_url = f.platform.api_url;
  k.token = f.platform.token;
  k.ca_cert = f.platform.ca_cert;
  k.namespace = f.platform.namespace;
  k.authorization_type = f.platform.authorization_type;
  if (JSON.stringify([rec, rec.platform]) !== before) rec.updated_at = now;
}

/** `cluster.destroy`: its annotations go with it (the foreign key's `ON DELETE CASCADE`). */
export function deleteCluster(d: S, id: number): void {
  const rec = tget(d.clusters.records, id);
  if (!rec) return;
  for (const a of mget(d.clusters.idx.annotationsByCluster, String(id))) tdelete(d.clusters.annotations, a);
  idelete(d.clusters.idx.annotationsByCluster, String(id));
  mremove(d.clusters.idx.byOwner, ownerKey(rec), id);
  if (rec.management_project_id !== null)
    mremove(d.clusters.idx.byManagement, String(rec.management_project_id), id);
  tdelete(d.clusters.records, id);
}

/**
 * A deleted project takes its clusters (their `cluster_projects` row goes, and nothing shows them
 * again) and its environments' annotations; clusters it managed lose their management project
 * (`ON DELETE SET NULL`).
 */
export function deleteProjectClusters(d: S, projectId: number): void {
  for (const id of mget(d.clusters.idx.byOwner, `p${projectId}`)) deleteCluster(d, id);
  for (const id of mget(d.clusters.idx.byManagement, String(projectId))) {
    const rec = tget(d.clusters.records, id);
    if (rec) rec.management_project_id = null;
  }
  idelete(d.clusters.idx.byManagement, String(projectId));
  for (const a of mget(d.clusters.idx.annotationsByProject, String(projectId)))
    tdelete(d.clusters.annotations, a);
  idelete(d.clusters.idx.annotationsByProject, String(projectId));
}

export function deleteGroupClusters(d: S, groupId: number): void {
  for (const id of mget(d.clusters.idx.byOwner, `g${groupId}`)) deleteCluster(d, id);
}

export type AnnotationFields = Omit<AnnotationRecord, 'id' | 'created_at'>;

export function createAnnotation(d: S, f: AnnotationFields, now: string): AnnotationRecord {
  const id = nextId(d, 'metrics_dashboard_annotations');
  const rec: AnnotationRecord = {
    id,
    project_id: f.project_id,
    environment_id: f.environment_id,
    cluster_id: f.cluster_id,
    dashboard_path: f.dashboard_path,
    starting_at: f.starting_at,
    ending_at: f.ending_at,
    description: f.description,
    created_at: now,
  };
  tset(d.clusters.annotations, id, rec);
  if (f.cluster_id !== null) madd(d.clusters.idx.annotationsByCluster, String(f.cluster_id), id);
  else if (f.project_id !== null) madd(d.clusters.idx.annotationsByProject, String(f.project_id), id);
  return rec;
}
