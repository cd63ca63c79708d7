/** `API::Entities::ContainerRegistry::Repository`, `::Tag` and `::TagDetails`. */
import type { Ctx } from '../../core/context.js';
import { state } from '../../core/context.js';
import { requestBase } from '../../core/pagination.js';
import { isoTime } from '../projects/entities.js';
import { repositoryPath } from './model.js';
import type { ContainerRepositoryRecord, ContainerTagRecord } from './store.js';

/** `Gitlab.config.registry.host_port`: configured, else the instance's host on the registry's port 5050. */
export function registryHostPort(c: Ctx): string {
  const configured = state(c).container_registry.config.host_port;
  if (configured !== null) return configured;
  return `${new URL(requestBase(c)).hostname}:5050`;
}

export interface RepositoryView {
  tags: boolean;
  tags_count: boolean;
  /** `delete_api_path` is shown when this is true (`Ability.allowed?(options[:user], :admin_container_image)`). */
  deletable: boolean;
}

/** `ContainerRegistry::Tag`: `<repository path>:<name>` and its location. */
export const tagEntity = (path: string, location: string, t: ContainerTagRecord) => ({
  name: t.name,
  path: `${path}:${t.name}`,
  location: `${location}:${t.name}`,
});

/**
 * A manifest time as the registry client hands it over (`DateTime.rfc3339`), rendered by ActiveSupport:
 * milliseconds and a `+00:00` offset.
 */
const dateTimeJson = (iso: string | null) =>
  iso === null ? null : new Date(iso).toISOString().replace(/Z$/, '+00:00');

/** `TagDetails`: the tag, then its manifest's facts (`short_revision`: the revision's first 9 digits). */
export function tagDetailsEntity(c: Ctx, r: ContainerRepositoryRecord, t: ContainerTagRecord) {
  const path = repositoryPath(state(c), r);
  return {
    ...tagEntity(path, `${registryHostPort(c)}/${path}`, t),
    revision: t.revision,
    short_revision: t.revision.slice(0, 9),
    digest: t.digest,
    created_at: dateTimeJson(t.created_at),
    total_size: t.total_size,
  };
}

export function repositoryEntity(c: Ctx, r: ContainerRepositoryRecord, view: RepositoryView) {
  const path = repositoryPath(state(c), r);
  const location = `${registryHostPort(c)}/${path}`;
  const out: Record<string, unknown> = {
    id: r.id,
    name: r.name,
    path,
    project_id: r.project_id,
    location,
    created_at: isoTime(r.created_at),
    cleanup_policy_started_at:
      r.expiration_policy_started_at === null ? null : isoTime(r.expiration_policy_started_at),
  };
  if (view.tags_count) out.tags_count = r.tags.length;
  if (view.tags) out.tags = r.tags.map((t) => tagEntity(path, location, t));
  if (view.deletable)
    out.delete_api_path = `${requestBase(c)}/api/v4/projects/${r.project_id}/registry/repositories/${r.id}`;
  return out;
}
