/**
 * Instance-level CI/CD variables (`/admin/ci/variables`, administrators) and group-level ones
 * (`/groups/:id/variables`, group owners). Both check the caller before the params, as the platform's
 * `before` filters do: 401, then 404 (groups), 403, then 400.
 *
 * Both render `Entities::Ci::Variable`: variable_type, key, value, protected, masked; a group variable
 * adds its environment scope on the paid tiers, where scoping group variables is a feature.
 */
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { conflict, forbidden, notFound, validationError } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p, type ParamValue, type Shape } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import { tget, tvalues } from '../../core/table.js';
import { has } from '../../core/versions.js';
import type { VariableInput } from '../ci/model.js';
import { VARIABLE_RAW, VARIABLE_RAW_PARAM } from '../ci/versions.js';
import { canAdminGroup, findGroupRecord } from '../groups/access.js';
import type { Group } from '../groups/model.js';
import {
  createGroupVariable,
  createInstanceVariable,
  deleteGroupVariable,
  deleteInstanceVariable,
  groupVariableErrors,
  groupVariables,
  instanceVariableByKey,
  instanceVariableErrors,
  railsBool,
  updateInstanceVariable,
  type InstanceVariableInput,
} from './model.js';
import type { GroupVariableRecord, InstanceVariableRecord } from './store.js';

const VARIABLE_TYPES = ['env_var', 'file'] as const;

/** `Entities::Ci::Variable` of an instance variable; `raw` after `masked` from 15.7 (VARIABLE_RAW). */
export const instanceVariableEntity = (c: Ctx, v: InstanceVariableRecord) => ({
  variable_type: v.variable_type,
  key: v.key,
  value: v.value,
  protected: v.protected,
  masked: v.masked,
  ...(has(c, VARIABLE_RAW) ? { raw: v.raw ?? false } : {}),
});

function groupVariableEntity(c: Ctx, v: GroupVariableRecord) {
  const base = instanceVariableEntity(c, v);
  return c.get('fx').tier() === 'free' ? base : { ...base, environment_scope: v.environment_scope };
}

const rawShape = { raw: p.str() };

/** The params of create or update with `raw` from 15.7 (VARIABLE_RAW_PARAM); unknown, so ignored, before. */
function parseWithRaw<S extends Shape>(c: Ctx, shape: S) {
  const prm = parse(c, shape);
  const raw = has(c, VARIABLE_RAW_PARAM) ? railsBool(parse(c, rawShape).raw) : undefined;
  return { prm, raw: raw === undefined ? {} : { raw } };
}

const fields = {
  value: p.str(),
  protected: p.str(),
  masked: p.str(),
  variable_type: p.str().values(VARIABLE_TYPES),
};
const createShape = { key: p.str().required(), ...fields, value: p.str().required() };
const updateShape = { key: p.str(), ...fields };

function saveOrFail(errors: Record<string, string[]>): void {
  if (Object.keys(errors).length) throw validationError(errors);
}

// ---------------------------------------------------------------------------------------------------
// Instance

function findInstanceVariable(c: Ctx): InstanceVariableRecord {
  const v = instanceVariableByKey(state(c), c.req.param('key') ?? '');
  if (!v) throw notFound('InstanceVariable', 'no instance variable with this key');
  return v;
}

function instanceRoutes(r: ApiRouter): void {
  const base = '/admin/ci/variables';

  r.get(base, { auth: 'admin' }, (c) => {
    parse(c, paginationParams);
    return paginate(c, tvalues(state(c).ciVariables.instance), (v) => instanceVariableEntity(c, v));
  });

  r.get(`${base}/:key`, { auth: 'admin' }, (c) => c.json(instanceVariableEntity(c, findInstanceVariable(c))));

  r.post(base, { auth: 'admin' }, (c) => {
    const { prm, raw } = parseWithRaw(c, createShape);
    const input: InstanceVariableInput = {
      ...raw,
      key: prm.key,
      value: prm.value,
      variable_type: prm.variable_type ?? 'env_var',
      protected: railsBool(prm.protected) ?? false,
      masked: railsBool(prm.masked) ?? false,
    };
    saveOrFail(instanceVariableErrors(state(c), input));
    const id = write(c, (d) => createInstanceVariable(d, input));
    return c.json(instanceVariableEntity(c, tget(state(c).ciVariables.instance, id)!), 201);
  });

  r.put(`${base}/:key`, { auth: 'admin' }, (c) => {
    const { prm, raw } = parseWithRaw(c, updateShape);
    const v = findInstanceVariable(c);
    // The key in the path names the variable; a key in the body is ignored (`.except(:key)`).
    const next: InstanceVariableInput = {
      ...(v.raw === undefined ? {} : { raw: v.raw }),
      ...raw,
      key: v.key,
      value: prm.value ?? v.value,
      variable_type: prm.variable_type ?? v.variable_type,
      protected: railsBool(prm.protected) ?? v.protected,
      masked: railsBool(prm.masked) ?? v.masked,
    };
    saveOrFail(instanceVariableErrors(state(c), next, v.id));
    write(c, (d) => updateInstanceVariable(d, v.id, next));
    return c.json(instanceVariableEntity(c, tget(state(c).ciVariables.instance, v.id)!));
  });

  r.delete(`${base}/:key`, { auth: 'admin' }, (c) => {
    const v = findInstanceVariable(c);
    write(c, (d) => deleteInstanceVariable(d, v.id));
    return c.body(null, 204);
  });
}

// ---------------------------------------------------------------------------------------------------
// Group

/** `user_group` and `authorize! :admin_group`, which run before the params. */
function adminGroup(c: Ctx): Group {
  const g = findGroupRecord(c, c.req.param('id') ?? '');
  if (!canAdminGroup(state(c), c.get('viewer').user, g)) throw forbidden();
  return g;
}

/** `find_variable` (`Ci::VariablesFinder`): by key, narrowed by `filter[environment_scope]`; several is a 409. */
function findGroupVariable(
  c: Ctx,
  g: Group,
  key: string,
  filter: Record<string, ParamValue> | undefined,
): GroupVariableRecord {
  const scope = filter?.environment_scope;
  const matches = groupVariables(state(c), g.id).filter(
    (v) => v.key === key && (typeof scope !== 'string' || scope === '' || v.environment_scope === scope),
  );
  if (matches.length > 1)
    throw conflict(
      "There are multiple variables with provided parameters. Please use 'filter[environment_scope]'",
    );
  if (!matches[0]) throw notFound('GroupVariable', 'no group variable with this key (and scope)');
  return matches[0];
}

/** `filter_variable_parameters`: the environment scope is a paid feature. */
const scopeParam = (c: Ctx, raw: unknown) =>
  c.get('fx').tier() !== 'free' && typeof raw === 'string' ? raw : undefined;

function groupRoutes(r: ApiRouter): void {
  const base = '/groups/:id/variables';
  const keyShape = { key: p.str().required(), filter: p.hash() };

  r.get(base, { auth: 'required' }, (c) => {
    const g = adminGroup(c);
    parse(c, paginationParams);
    return paginate(c, groupVariables(state(c), g.id), (v) => groupVariableEntity(c, v));
  });

  r.get(`${base}/:key`, { auth: 'required' }, (c) => {
    const g = adminGroup(c);
    const prm = parse(c, keyShape);
    return c.json(groupVariableEntity(c, findGroupVariable(c, g, prm.key, prm.filter)));
  });

  r.post(base, { auth: 'required' }, (c) => {
    const g = adminGroup(c);
    const { prm, raw } = parseWithRaw(c, { ...createShape, environment_scope: p.str() });
    const input: VariableInput = {
      ...raw,
      key: prm.key,
      value: prm.value,
      variable_type: prm.variable_type ?? 'env_var',
      protected: railsBool(prm.protected) ?? false,
      masked: railsBool(prm.masked) ?? false,
      environment_scope: scopeParam(c, prm.environment_scope) ?? '*',
    };
    saveOrFail(groupVariableErrors(state(c), g.id, input));
    const now = c.get('fx').clock.iso();
    const id = write(c, (d) => createGroupVariable(d, g.id, input, now));
    return c.json(groupVariableEntity(c, tget(state(c).ciVariables.group, id)!), 201);
  });

  r.put(`${base}/:key`, { auth: 'required' }, (c) => {
    const g = adminGroup(c);
    const { prm, raw } = parseWithRaw(c, { ...updateShape, environment_scope: p.str() });
    // `find_by!(key:)`: the first variable of the key.
    const v = groupVariables(state(c), g.id).find((x) => x.key === c.req.param('key'));
    if (!v) throw notFound('GroupVariable', 'no group variable with this key');
    const next: VariableInput = {
      ...raw,
      key: v.key,
      value: prm.value ?? v.value,
      variable_type: prm.variable_type ?? v.variable_type,
      protected: railsBool(prm.protected) ?? v.protected,
      masked: railsBool(prm.masked) ?? v.masked,
      environment_scope: scopeParam(c, prm.environment_scope) ?? v.environment_scope,
    };
    saveOrFail(groupVariableErrors(state(c), g.id, next, v.id));
    const now = c.get('fx').clock.iso();
    write(c, (d) => {
      Object.assign(tget(d.ciVariables.group, v.id)!, next, { updated_at: now });
    });
    return c.json(groupVariableEntity(c, tget(state(c).ciVariables.group, v.id)!));
  });

  r.delete(`${base}/:key`, { auth: 'required' }, (c) => {
    const g = adminGroup(c);
    const prm = parse(c, keyShape);
    const v = findGroupVariable(c, g, prm.key, prm.filter);
    checkUnmodifiedSince(c, v.updated_at);
    write(c, (d) => deleteGroupVariable(d, v.id));
    return c.body(null, 204);
  });
}

export function ciVariablesRoutes(r: ApiRouter): void {
  instanceRoutes(r);
  groupRoutes(r);
}
