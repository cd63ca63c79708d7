/**
 * `Entities::Projects::RepositoryStorageMove`, `Snippets::` and (EE) `Groups::`: the shared fields of
 * `BasicRepositoryStorageMove`, then the container (`ProjectIdentity`, `BasicSnippet`,
 * `BasicGroupDetails`).
 */
import { state, type Ctx } from '../../core/context.js';
import { requestBase } from '../../core/pagination.js';
import { tget } from '../../core/table.js';
import { nameWithNamespace } from '../issuables/render-base.js';
import { isoTime } from '../projects/entities.js';
import type { Project } from '../projects/model.js';
import { userRenderer } from '../users/entities.js';
import { humanState } from './model.js';
import type { MoveKind, StorageMoveRecord } from './store.js';

function projectIdentity(c: Ctx, id: number) {
  const st = state(c);
  const p = tget(st.projects, id) as Project | undefined;
  if (!p) return null;
  return {
    id: p.id,
    description: p.description,
    name: p.name,
    name_with_namespace: nameWithNamespace(st, p),
    path: p.path,
    path_with_namespace: p.path_with_namespace,
    created_at: isoTime(p.created_at),
  };
}

/** `BasicSnippet`; every snippet has its repository here, so the clone URLs are always shown. */
function basicSnippet(c: Ctx, id: number) {
  const st = state(c);
  const s = tget(st.issuables.snippets, id);
  if (!s) return null;
  const author = tget(st.users, s.author_id);
  const project = s.project_id === null ? undefined : tget(st.projects, s.project_id);
  const base = requestBase(c);
  const inPath = project ? `${project.path_with_namespace}/snippets/${s.id}` : `snippets/${s.id}`;
  const web = project
    ? `${base}/${project.path_with_namespace}/-/snippets/${s.id}`
    : `${base}/-/snippets/${s.id}`;
  return {
    id: s.id,
    title: s.title,
    description: s.description,
    visibility: s.visibility,
    author: author ? userRenderer(c).basic(author) : null,
    created_at: s.created_at,
    updated_at: s.updated_at,
    project_id: s.project_id,
    web_url: web,
    raw_url: `${web}/raw`,
    ssh_url_to_repo: `git@${new URL(base).host}:${inPath}.git`,
    http_url_to_repo: `${base}/${inPath}.git`,
  };
}

function basicGroupDetails(c: Ctx, id: number) {
  const g = tget(state(c).groups, id);
  if (!g) return null;
  return { id: g.id, web_url: `${requestBase(c)}/groups/${g.full_path}`, name: g.name };
}

const CONTAINER: Record<MoveKind, (c: Ctx, id: number) => unknown> = {
  project: projectIdentity,
  snippet: basicSnippet,
  group: basicGroupDetails,
};

export function storageMoveEntity(c: Ctx, m: StorageMoveRecord): Record<string, unknown> {
  return {
    id: m.id,
    created_at: isoTime(m.created_at),
    state: humanState(m.state),
    source_storage_name: m.source_storage_name,
    destination_storage_name: m.destination_storage_name,
    [m.kind]: CONTAINER[m.kind](c, m.container_id),
  };
}
