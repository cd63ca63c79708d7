/**
 * The container registry API of 13.12: `lib/api/project_container_repositories.rb` (11.8),
 * `group_container_repositories.rb` (12.2), `container_repositories.rb` (13.6) and the registry's
 * notification endpoint, `container_registry_event.rb` (12.10).
 *
 * The project routes' `before { authorize_read_container_images! }` runs before Grape validates the
 * params, so a hidden project is a 404 and a refused reader a 403 whatever the params; the routes
 * validate their params after it. Deleting a repository and deleting tags in bulk are workers
 * (`DeleteContainerRepositoryWorker`, `CleanupContainerRepositoryWorker`): jobs due at once, run before
 * the next request.
 */
import { findGroup, findProject } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { state, write, type Ctx } from '../../core/context.js';
import { ApiError, forbidden, grapeError, notFound, recordNotFound } from '../../core/errors.js';
import { scheduleJob } from '../../core/jobs.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { atLeastOneOf, p, parseParams, type Shape } from '../../core/params.js';
import { NO_SLASH_URL_PART, parse, type ApiRouter } from '../../core/router.js';
import type { ProjectRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { regexpProblem } from '../../core/untrusted-regexp.js';
import { eventsRoute } from './events.js';
import { repositoryEntity, tagDetailsEntity, tagEntity, registryHostPort } from './entities.js';
import {
  canContainer,
  canReadGroupImages,
  deleteTags,
  groupRepositories,
  obtainCleanupLease,
  repositoriesOf,
  repositoryPath,
  type ContainerAbility,
} from './model.js';
import type { ContainerRepositoryRecord } from './store.js';

export const JOB = {
  deleteRepository: 'container_registry.delete_repository',
  cleanupTags: 'container_registry.cleanup_tags',
} as const;

/** `REPOSITORY_ENDPOINT_REQUIREMENTS`: the project's id and the tag name keep dots (`v1.json`). */
const REQ = { id: NO_SLASH_URL_PART };
const TAG_REQ = { id: NO_SLASH_URL_PART, tag_name: NO_SLASH_URL_PART };

const viewTags = {
  tags: p.bool().default(false),
  tags_count: p.bool().default(false),
};

/** `before { authorize_read_container_images! }`: `user_project`, then the ability on it. */
function readableProject(c: Ctx): ProjectRecord {
  const proj = findProject(c, c.req.param('id') ?? '');
  if (!canContainer(state(c), c.get('viewer').user, proj, 'read')) throw forbidden();
  return proj;
}

/** `user_project.container_repositories.find(params[:repository_id])`, then `authorize!` on it. */
function repositoryFor(
  c: Ctx,
  proj: ProjectRecord,
  id: number,
  ability: ContainerAbility,
): ContainerRepositoryRecord {
  const st = state(c);
  const r = tget(st.container_registry.repositories, id);
  if (!r || r.project_id !== proj.id)
    throw recordNotFound('no container repository with this id in the project');
  if (!canContainer(st, c.get('viewer').user, proj, ability)) throw forbidden();
  return r;
}

/** `repository.tag(name)` with `validate_tag!`: a name the registry has no manifest for is a 404. */
function tagFor(r: ContainerRepositoryRecord, name: string) {
  const t = r.tags.find((x) => x.name === name);
  if (!t) throw notFound('Tag', 'the repository has no tag of this name');
  return t;
}

const repoShape = { repository_id: p.int().required() };
const tagShape = { repository_id: p.int().required(), tag_name: p.str().required() };

/**
 * The bulk delete's params, validated as Grape does, in declaration order with every problem joined:
 * the types, `untrusted_regexp: true` (`is an invalid regexp: <RE2's message>`) and `at_least_one_of`.
 */
const BULK: [string, Shape[string]][] = [
  ['repository_id', p.int().required()],
  ['name_regex_delete', p.str()],
  ['name_regex', p.str()],
  ['name_regex_keep', p.str()],
  ['keep_n', p.int()],
  ['older_than', p.str()],
];
const REGEXP_PARAMS = new Set(['name_regex_delete', 'name_regex', 'name_regex_keep']);

interface BulkParams {
  repository_id: number;
  name_regex_delete?: string;
  name_regex?: string;
  name_regex_keep?: string;
  keep_n?: number;
  older_than?: string;
}

function bulkParams(c: Ctx): BulkParams {
  const raw = c.get('params');
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  const note = (e: unknown) => {
    if (!(e instanceof ApiError)) throw e;
    problems.push((e.body as { error: string }).error);
  };
  for (const [name, param] of BULK) {
    try {
      const v = parseParams({ [name]: param }, raw)[name];
      if (v !== undefined) out[name] = v;
      if (REGEXP_PARAMS.has(name) && typeof v === 'string') {
        const problem = regexpProblem(v);
        if (problem !== undefined) problems.push(`${name} is an invalid regexp: ${problem}`);
      }
    } catch (e) {
      note(e);
    }
    if (name === 'name_regex')
      try {
        atLeastOneOf(raw, 'name_regex', 'name_regex_delete');
      } catch (e) {
        note(e);
      }
  }
  if (problems.length) throw grapeError(400, problems.join(', '));
  parse(c, { ...repoShape, ...paginationParams });
  return out as unknown as BulkParams;
}

export function containerRegistryRoutes(r: ApiRouter): void {
  r.get('/projects/:id/registry/repositories', { requirements: { id: NO_SLASH_URL_PART } }, (c) => {
    const proj = readableProject(c);
    const prm = parse(c, { ...paginationParams, ...viewTags });
    const view = { tags: prm.tags, tags_count: prm.tags_count, deletable: false };
    return paginate(c, repositoriesOf(state(c), proj.id), (x) => repositoryEntity(c, x, view));
  });

  r.delete('/projects/:id/registry/repositories/:repository_id', { requirements: REQ }, (c) => {
    const proj = readableProject(c);
    const prm = parse(c, repoShape);
    const repo = repositoryFor(c, proj, prm.repository_id, 'admin');
    const now = c.get('fx').clock.ms();
    write(c, (d) => scheduleJob(d, JOB.deleteRepository, now, { repository_id: repo.id }));
    // The endpoint's value is `status :accepted`: Grape renders the number.
    return c.json(202, 202);
  });

  r.get('/projects/:id/registry/repositories/:repository_id/tags', { requirements: REQ }, (c) => {
    const proj = readableProject(c);
    const prm = parse(c, { ...repoShape, ...paginationParams });
    const repo = repositoryFor(c, proj, prm.repository_id, 'read');
    const path = repositoryPath(state(c), repo);
    const location = `${registryHostPort(c)}/${path}`;
    return paginate(c, repo.tags, (t) => tagEntity(path, location, t));
  });

  r.delete('/projects/:id/registry/repositories/:repository_id/tags', { requirements: REQ }, (c) => {
    const proj = readableProject(c);
    const prm = bulkParams(c);
    const repo = repositoryFor(c, proj, prm.repository_id, 'admin');
    const fx = c.get('fx');
    const now = fx.clock.ms();
    const user = requireUser(c);
    const taken = write(c, (d) => {
      if (!obtainCleanupLease(d, repo.id, now)) return false;
      const { repository_id: _id, ...params } = prm;
      scheduleJob(d, JOB.cleanupTags, now, { repository_id: repo.id, user_id: user.id, params });
      return true;
    });
    if (!taken)
      throw new ApiError(400, {
        message:
          'This request has already been made. You can run this at most once an hour for a given container repository',
      });
    return c.json(202, 202);
  });

  r.get(
    '/projects/:id/registry/repositories/:repository_id/tags/:tag_name',
    { requirements: TAG_REQ },
    (c) => {
      const proj = readableProject(c);
      const prm = parse(c, tagShape);
      const repo = repositoryFor(c, proj, prm.repository_id, 'read');
      return c.json(tagDetailsEntity(c, repo, tagFor(repo, prm.tag_name)));
    },
  );

  r.delete(
    '/projects/:id/registry/repositories/:repository_id/tags/:tag_name',
    { requirements: TAG_REQ },
    (c) => {
      const proj = readableProject(c);
      const prm = parse(c, tagShape);
      const repo = repositoryFor(c, proj, prm.repository_id, 'destroy');
      const tag = tagFor(repo, prm.tag_name);
      write(c, (d) => deleteTags(d, repo.id, new Set([tag.name])));
      // `status :ok`, the endpoint's value.
      return c.json(200, 200);
    },
  );

  // `before { authorize_read_group_container_images! }`: the group, then GroupPolicy's ability.
  r.get('/groups/:id/registry/repositories', { requirements: { id: NO_SLASH_URL_PART } }, (c) => {
    const group = findGroup(c, c.req.param('id') ?? '');
    if (!canReadGroupImages(state(c), c.get('viewer').user, group)) throw forbidden();
    const prm = parse(c, { ...paginationParams, ...viewTags });
    const view = { tags: prm.tags, tags_count: prm.tags_count, deletable: false };
    return paginate(c, groupRepositories(state(c), group.id), (x) => repositoryEntity(c, x, view));
  });

  // `before { authenticate! }`, then `ContainerRepository.find` and `read_container_image` on it (a 403,
  // not a 404, for a repository of a project the caller cannot read). `requirements: { id: /[0-9]*/ }`.
  r.get('/registry/repositories/:id', { auth: 'required', requirements: { id: /^[0-9]+$/ } }, (c) => {
    const prm = parse(c, { id: p.int().required(), ...viewTags });
    const st = state(c);
    const repo = tget(st.container_registry.repositories, prm.id);
    if (!repo) throw recordNotFound('no container repository with this id');
    const proj = tget(st.projects, repo.project_id)!;
    const user = c.get('viewer').user;
    if (!canContainer(st, user, proj, 'read')) throw forbidden();
    const deletable = canContainer(st, user, proj, 'admin');
    return c.json(repositoryEntity(c, repo, { tags: prm.tags, tags_count: prm.tags_count, deletable }));
  });

  eventsRoute(r);
}
