/**
 * Pipeline triggers (`lib/api/triggers.rb`): maintainers manage a project's trigger tokens; anyone
 * holding one starts a pipeline as the trigger's owner with `POST /projects/:id/trigger/pipeline`,
 * without other credentials. (The platform takes a CI job token there too; fauxlab has no running jobs.)
 */
import { findProject, lookupProject } from '../../core/access.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { apiError, forbidden, notFound, recordNotFound, validationError } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p, type ParamValue } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import type { PipelineVariable, PlatformState, ProjectRecord, UserRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { authorizeCi, userCanCi } from '../ci/access.js';
import { sendPipeline, startPipeline } from '../ci/pipelines.js';
import type { Project } from '../projects/model.js';
import { userRenderer } from '../users/entities.js';
import { createTrigger, deleteTrigger, projectTriggers, triggerByToken } from './model.js';
import type { TriggerRecord } from './store.js';

/** `Entities::Trigger` through `Ci::TriggerPresenter`: only the trigger's owner reads the whole token. */
function triggerEntity(c: Ctx, t: TriggerRecord) {
  const owner = t.owner_id === null ? undefined : tget(state(c).users, t.owner_id);
  const viewer = c.get('viewer').user;
  return {
    id: t.id,
    // `admin_trigger`: the owner (who passed `admin_build` to get here); `short_token` for the others.
    token: viewer !== null && t.owner_id === viewer.id ? t.token : t.token.slice(0, 4),
    description: t.description,
    created_at: t.created_at,
    updated_at: t.updated_at,
    last_used: t.last_used,
    owner: owner ? userRenderer(c).basic(owner) : null,
  };
}

/** `find_project!` then `authorize! :admin_build`, as every management route begins. */
function managedProject(c: Ctx): ProjectRecord {
  const proj = findProject(c, c.req.param('id') ?? '');
  authorizeCi(c, proj, 'admin_build');
  return proj;
}

/** `user_project.triggers.find(id)`: a record 404. */
function findTrigger(st: PlatformState, proj: ProjectRecord, id: number): TriggerRecord {
  const t = tget(st.triggers.records, id);
  if (!t || t.project_id !== proj.id) throw recordNotFound('no trigger with this id in the project');
  return t;
}

const triggerShape = { trigger_id: p.int().required() };

/**
 * `Ci::PipelineTriggerService#execute`: a trigger token of this project runs as the trigger's owner.
 * Any other token answers 404, so that a token tells nothing about other projects. (Job tokens are
 * accepted here too on the platform; fauxlab has no running jobs to hold one.)
 */
function triggerFor(st: PlatformState, proj: ProjectRecord, token: string): TriggerRecord {
  const trigger = triggerByToken(st, token);
  if (!trigger) throw notFound(undefined, 'no trigger with this token');
  if (trigger.project_id !== proj.id) throw notFound(undefined, 'the trigger belongs to another project');
  return trigger;
}

/**
 * `Gitlab::Ci::Pipeline::Chain::Validate::Abilities`, which runs before the ref is looked at: the errors
 * come back as the pipeline's `base` errors (400).
 */
function checkAbilities(st: PlatformState, proj: ProjectRecord, user: UserRecord | null): void {
  if ((proj as Project).builds_access_level === 'disabled')
    throw validationError({ base: ['Pipelines are disabled!'] });
  if (!user || !userCanCi(st, user, proj, 'create_pipeline'))
    throw validationError({ base: ['Insufficient permissions to create a new pipeline'] });
}

/**
 * `TRIGGER_PAYLOAD`: the request's params as the API saw them (query, body, then the path's), less the
 * token, with `variables` made a hash: a file variable, as the platform adds it.
 */
function payloadVariable(
  raw: Record<string, ParamValue>,
  variables: Record<string, string>,
): PipelineVariable {
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(raw)) if (key !== 'token') out[key] = raw[key];
  out.variables = variables;
  return { key: 'TRIGGER_PAYLOAD', value: JSON.stringify(out), variable_type: 'file' };
}

function triggerPipeline(c: Ctx, ref: string, token: string, given: Record<string, ParamValue> | undefined) {
  // A webhook of this very platform that points back here would loop forever.
  if ((c.req.header('x-gitlab-event') ?? '') === 'Pipeline Hook') throw forbidden();
  const variables = Object.create(null) as Record<string, string>;
  for (const key of Object.keys(given ?? {})) {
    const value = given![key];
    if (typeof value !== 'string') throw apiError(400, 'variables needs to be a map of key-valued strings');
    variables[key] = value;
  }
  const st = state(c);
  // `find_project` without the visibility check: the token is the credential.
  const proj = lookupProject(st, c.req.param('id') ?? '');
  if (!proj) throw notFound(undefined, 'no project with this id or path');
  const trigger = triggerFor(st, proj, token);
  const owner = trigger.owner_id === null ? null : (tget(st.users, trigger.owner_id) ?? null);
  checkAbilities(st, proj, owner);
  const pipelineVariables: PipelineVariable[] = [
    ...Object.keys(variables).map((key) => ({
      key,
      value: variables[key]!,
      variable_type: 'env_var' as const,
    })),
    payloadVariable(c.get('params'), variables),
  ];
  const { id, now } = startPipeline(
    c,
    proj,
    { ref, variables: pipelineVariables, userId: owner?.id ?? null, source: 'trigger' },
    (d, at) => {
      tget(d.triggers.records, trigger.id)!.last_used = at;
    },
  );
  return sendPipeline(c, id, 201, Date.parse(now));
}

export function triggersRoutes(r: ApiRouter): void {
  const triggerParams = {
    ref: p.str().required().notBlank(),
    token: p.str().required(),
    variables: p.hash(),
  };
  r.post('/projects/:id/trigger/pipeline', { auth: 'optional', params: triggerParams }, (c, prm) =>
    triggerPipeline(c, prm.ref, prm.token, prm.variables),
  );
  // The ref in the path (`requirements: { ref: /.+/ }`: it may hold slashes).
  r.post(
    '/projects/:id/ref/:ref{.+}/trigger/pipeline',
    { auth: 'optional', params: triggerParams },
    (c, prm) => triggerPipeline(c, prm.ref, prm.token, prm.variables),
  );

  r.get('/projects/:id/triggers', { auth: 'required', params: paginationParams }, (c) => {
    const proj = managedProject(c);
    return paginate(c, projectTriggers(state(c), proj.id), (t) => triggerEntity(c, t));
  });

  r.get('/projects/:id/triggers/:trigger_id', { auth: 'required', params: triggerShape }, (c, prm) => {
    const proj = managedProject(c);
    return c.json(triggerEntity(c, findTrigger(state(c), proj, prm.trigger_id)));
  });

  r.post('/projects/:id/triggers', { params: { description: p.str().required() } }, (c, prm) => {
    const proj = managedProject(c);
    const now = c.get('fx').clock.iso();
    const id = write(c, (d) =>
      createTrigger(d, {
        project_id: proj.id,
        owner_id: c.get('viewer').user!.id,
        description: prm.description,
        created_at: now,
      }),
    );
    return c.json(triggerEntity(c, tget(state(c).triggers.records, id)!), 201);
  });

  r.put(
    '/projects/:id/triggers/:trigger_id',
    { params: { ...triggerShape, description: p.str() } },
    (c, prm) => {
      const proj = managedProject(c);
      const t = findTrigger(state(c), proj, prm.trigger_id);
      // `authorize! :admin_trigger`: only the trigger's owner changes it.
      if (t.owner_id !== c.get('viewer').user!.id) throw forbidden();
      // An update that changes nothing leaves `updated_at` alone, as ActiveRecord does.
      if (prm.description !== undefined && prm.description !== t.description) {
        const now = c.get('fx').clock.iso();
        const description = prm.description;
        write(c, (d) => {
          const rec = tget(d.triggers.records, t.id)!;
          rec.description = description;
          rec.updated_at = now;
        });
      }
      return c.json(triggerEntity(c, tget(state(c).triggers.records, t.id)!));
    },
  );

  r.delete('/projects/:id/triggers/:trigger_id', { params: triggerShape }, (c, prm) => {
    const proj = managedProject(c);
    const t = findTrigger(state(c), proj, prm.trigger_id);
    checkUnmodifiedSince(c, t.updated_at);
    write(c, (d) => deleteTrigger(d, t.id));
    return c.body(null, 204);
  });
}
