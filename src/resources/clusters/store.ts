/**
 * Kubernetes clusters added by certificate (`Clusters::Cluster` with its `Clusters::Platforms::Kubernetes`,
 * `lib/api/project_clusters.rb`, `group_clusters.rb`, `admin/instance_clusters.rb`) and the metrics
 * dashboard annotations of environments and clusters (`Metrics::Dashboard::Annotation`). Records only:
 * nothing here ever connects to a cluster's API URL.
 */
import { emptyIndex, emptyTable, type MultiIndex, type Table } from '../../core/table.js';

export type ClusterType = 'project_type' | 'group_type' | 'instance_type';

/** `enum_with_nil authorization_type: { unknown_authorization: nil, rbac: 1, abac: 2 }`. */
export const AUTHORIZATION_TYPES = ['unknown_authorization', 'rbac', 'abac'] as const;
export type AuthorizationType = (typeof AUTHORIZATION_TYPES)[number];

/** `cluster_platforms_kubernetes`: the token is kept as given (the platform encrypts it at rest). */
export interface PlatformKubernetes {
  api_url: string;
  token: string;
  ca_cert: string | null;
  namespace: string | null;
  authorization_type: AuthorizationType;
}

export interface ClusterRecord {
  id: number;
  name: string;
  cluster_type: ClusterType;
  /** The project (`cluster_projects`) or group (`cluster_groups`) the cluster belongs to. */
  project_id: number | null;
  group_id: number | null;
  /** Who added it (`belongs_to :user`). */
  user_id: number | null;
  enabled: boolean;
  managed: boolean;
  domain: string | null;
  environment_scope: string;
  namespace_per_environment: boolean;
  management_project_id: number | null;
  provider_type: 'user';
  platform_type: 'kubernetes';
  platform: PlatformKubernetes;
  created_at: string;
  updated_at: string;
}

export interface AnnotationRecord {
  id: number;
  /** The project of the environment or of a project cluster (for the cascade), else null. */
  project_id: number | null;
  environment_id: number | null;
  cluster_id: number | null;
  dashboard_path: string;
  starting_at: string;
  ending_at: string | null;
  description: string;
  created_at: string;
}

export interface ClustersState {
  records: Table<ClusterRecord>;
  annotations: Table<AnnotationRecord>;
  idx: {
    /** `p<id>`, `g<id>` or `i` -> cluster ids, in creation order */
    byOwner: MultiIndex;
    /** management project id -> cluster ids (`management_clusters`) */
    byManagement: MultiIndex;
    /** cluster id -> annotation ids */
    annotationsByCluster: MultiIndex;
    /** project id -> annotation ids of its environments */
    annotationsByProject: MultiIndex;
  };
}

export const emptyClusters = (): ClustersState => ({
  records: emptyTable(),
  annotations: emptyTable(),
  idx: {
    byOwner: emptyIndex(),
    byManagement: emptyIndex(),
    annotationsByCluster: emptyIndex(),
    annotationsByProject: emptyIndex(),
  },
});

declare module '../../core/state.js' {
  interface AreaStates {
    clusters: ClustersState;
  }
}
