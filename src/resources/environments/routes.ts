/**
 * The environments API (`lib/api/environments.rb`): every route needs a user; reporters read, developers
 * create, edit, stop and delete (stopped) environments. Environments close with the project's builds,
 * repository or operations feature, and an archived project's are read-only.
 */
import { findProject } from '../../core/access.js';
import { authorize, can } from './access.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { forbidden, grapeError, recordNotFound, validationError } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import { requireUser } from '../../core/auth.js';
import type { ProjectRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { projectEntity } from '../projects/entities.js';
import {
  createEnvironment,
  deleteEnvironment,
  environmentErrors,
  projectEnvironments,
  stopEnvironment,
  updateEnvironment,
  type EnvironmentFields,
} from './model.js';
import type { EnvironmentRecord } from './store.js';
import { DeploymentRenderer } from '../deployments/entities.js';
import { deleteEnvironmentDeployments } from '../deployments/model.js';

const project = (c: Ctx) => findProject(c, c.req.param('id') ?? '');

/** `user_project.environments.find(id)`. */
function findEnvironment(c: Ctx, proj: ProjectRecord, id: number): EnvironmentRecord {
  const e = tget(state(c).environments.records, id);
  if (!e || e.project_id !== proj.id) throw recordNotFound('no environment with this id in the project');
  return e;
}

/**
 * `Entities::Environment`: lists carry the project (`BasicProjectDetails`); a single environment leaves
 * it out and carries its last successful deployment instead, without that deployment's environment.
 */
function environmentEntity(c: Ctx, e: EnvironmentRecord, single = false) {
  const out: Record<string, unknown> = {
    id: e.id,
    name: e.name,
    slug: e.slug,
    external_url: e.external_url,
    tier: e.tier,
  };
  if (single) {
    const r = new DeploymentRenderer(c);
    const last = r.live.lastOf(e.id);
    out.last_deployment = last ? r.deployment(last, { environment: false }) : null;
  } else out.project = projectEntity(c, tget(state(c).projects, e.project_id)!, { shape: 'basic' });
  out.state = e.state;
  return out;
}

const envShape = { environment_id: p.int().required() };

const listShape = {
  ...paginationParams,
  name: p.str(),
  search: p.str(),
  states: p.str().values(['available', 'stopped']),
};

/** `optional :slug, absence: {...}`: a slug is never the client's to give. */
const slugParam = { slug: p.str() };
function refuseSlug(c: Ctx): void {
  if (c.get('params').slug !== undefined)
    throw grapeError(400, 'slug is automatically generated and cannot be changed');
}

/** `nullify_if_blank :external_url`. */
const url = (v: string | undefined | null) =>
  v === undefined ? undefined : v === null || v.trim() === '' ? null : v;

export function environmentsRoutes(r: ApiRouter): void {
  // `before { authenticate! }` runs before Grape validates params: anonymous callers get the 401 first.
  r.get('/projects/:id/environments', (c) => {
    requireUser(c);
    const prm = parse(c, listShape);
    // `mutually_exclusive :name, :search, message: 'cannot be used together'`.
    const raw = c.get('params');
    if (raw.name !== undefined && raw.search !== undefined)
      throw grapeError(400, 'name, search cannot be used together');
    const proj = project(c);
    authorize(c, proj, 'read');
    let list = projectEnvironments(state(c), proj.id);
    if (prm.name !== undefined) list = list.filter((e) => e.name === prm.name);
    // `for_name_like`: names that begin with the search, in any case.
    if (prm.search) {
      const q = prm.search.toLowerCase();
      list = list.filter((e) => e.name.toLowerCase().startsWith(q));
    }
    if (prm.states !== undefined) list = list.filter((e) => e.state === prm.states);
    return paginate(c, list, (e) => environmentEntity(c, e));
  });

  r.get('/projects/:id/environments/:environment_id', (c) => {
    requireUser(c);
    const prm = parse(c, envShape);
    const proj = project(c);
    authorize(c, proj, 'read');
    return c.json(environmentEntity(c, findEnvironment(c, proj, prm.environment_id), true));
  });

  r.post(
    '/projects/:id/environments',
    { params: { name: p.str().required(), external_url: p.str(), ...slugParam } },
    (c, prm) => {
      refuseSlug(c);
      const proj = project(c);
      authorize(c, proj, 'write');
      const fields: EnvironmentFields = { name: prm.name, external_url: url(prm.external_url) ?? null };
      const errors = environmentErrors(state(c), proj.id, fields);
      if (Object.keys(errors).length) throw validationError(errors);
      const now = c.get('fx').clock.iso();
      const id = write(c, (d) => createEnvironment(d, proj.id, fields, now));
      return c.json(environmentEntity(c, tget(state(c).environments.records, id)!), 201);
    },
  );

  r.put(
    '/projects/:id/environments/:environment_id',
    { params: { ...envShape, name: p.str(), external_url: p.str(), ...slugParam } },
    (c, prm) => {
      refuseSlug(c);
      const proj = project(c);
      authorize(c, proj, 'write');
      const e = findEnvironment(c, proj, prm.environment_id);
      const ch: Partial<EnvironmentFields> = {};
      if (prm.name !== undefined) ch.name = prm.name;
      const external = url(prm.external_url);
      if (external !== undefined) ch.external_url = external;
      const errors = environmentErrors(
        state(c),
        proj.id,
        {
          name: ch.name ?? e.name,
          external_url: ch.external_url === undefined ? e.external_url : ch.external_url,
        },
        e.id,
      );
      if (Object.keys(errors).length) throw validationError(errors);
      const now = c.get('fx').clock.iso();
      write(c, (d) => updateEnvironment(d, e.id, ch, now));
      return c.json(environmentEntity(c, tget(state(c).environments.records, e.id)!));
    },
  );

  r.delete('/projects/:id/environments/:environment_id', { params: envShape }, (c, prm) => {
    const proj = project(c);
    authorize(c, proj, 'read');
    const e = findEnvironment(c, proj, prm.environment_id);
    // `destroy_environment`: developers, and only once the environment is stopped.
    if (!can(c, proj, 'write') || e.state !== 'stopped') throw forbidden();
    checkUnmodifiedSince(c, e.updated_at);
    write(c, (d) => {
      deleteEnvironmentDeployments(d, e.id);
      deleteEnvironment(d, e.id);
    });
    return c.body(null, 204);
  });

  r.post('/projects/:id/environments/:environment_id/stop', { params: envShape }, (c, prm) => {
    const proj = project(c);
    authorize(c, proj, 'read');
    const e = findEnvironment(c, proj, prm.environment_id);
    // `stop_environment` without a stop action (fauxlab runs no jobs): `update_environment`.
    if (!can(c, proj, 'write')) throw forbidden();
    const now = c.get('fx').clock.iso();
    write(c, (d) => stopEnvironment(d, e.id, now));
    return c.json(environmentEntity(c, tget(state(c).environments.records, e.id)!), 200);
  });
}
