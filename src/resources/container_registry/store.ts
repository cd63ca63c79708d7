/**
 * The container registry's records (`ContainerRepository` and the tags the registry holds for it). There
 * is no registry process: a repository's tags are kept on its record, as the registry's tag list and
 * manifests would give them (`ContainerRegistry::Tag`: digest, config revision, total size, created_at).
 */
import { emptyIndex, emptyTable, type Index, type MultiIndex, type Table } from '../../core/table.js';

export interface ContainerTagRecord {
  name: string;
  /** The manifest's digest (`Docker-Content-Digest`), `sha256:<64 hex>`. */
  digest: string;
  /** The image configuration blob's digest without its algorithm (`Tag#revision`). */
  revision: string;
  /** Layers and configuration together, in bytes (`Tag#total_size`). */
  total_size: number;
  /** The image configuration's `created` time (`Tag#created_at`); null when the registry gave none. */
  created_at: string | null;
}

export interface ContainerRepositoryRecord {
  id: number;
  project_id: number;
  /** The image name under the project's path; '' for the project's root image. */
  name: string;
  created_at: string;
  /** `expiration_policy_started_at` (shown as `cleanup_policy_started_at`). */
  expiration_policy_started_at: string | null;
  /** In name order, as the registry lists them. */
  tags: ContainerTagRecord[];
}

export interface ContainerRegistryState {
  repositories: Table<ContainerRepositoryRecord>;
  /** The instance's registry configuration (`Gitlab.config.registry`). */
  config: {
    /** `registry.host_port`; null: the instance's host with the registry's default port 5050. */
    host_port: string | null;
    /** `registry.notification_secret`; null: none configured, every notification is refused. */
    notification_secret: string | null;
  };
  idx: {
    /** project id -> repository ids, in creation order */
    byProject: MultiIndex;
    /**
     * repository id -> instance-clock ms of the last bulk tag deletion
     * (`container_repository:cleanup_tags:<id>`, an hour's exclusive lease)
     */
    cleanupLeases: Index<number>;
  };
}

export const emptyContainerRegistry = (): ContainerRegistryState => ({
  repositories: emptyTable(),
  config: { host_port: null, notification_secret: null },
  idx: { byProject: emptyIndex(), cleanupLeases: emptyIndex() },
});

declare module '../../core/state.js' {
  interface AreaStates {
    container_registry: ContainerRegistryState;
  }
}
