/**
 * Project CI/CD variables. The platform checks the caller before the params here (its `before` filters
 * authenticate and authorize `admin_build`), so the order is 401, 404, 403, then 400.
 *
 * Same-key variables are told apart by `filter[environment_scope]` while the
 * `ci_variables_api_filter_environment_scope` flag is on (the default): without a filter, several
 * matches are a 409. With the flag off, the filter is ignored and the oldest variable of the key wins.
 */
import { findProject } from '../../core/access.js';
import { state, write, type Ctx } from '../../core/context.js';
import { conflict, notFound, validationError } from '../../core/errors.js';
import { featureEnabled } from '../../core/features.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p, type ParamValue } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { ProjectRecord, VariableRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { has } from '../../core/versions.js';
import { authorizeCi } from './access.js';
import { variableCreated, variableListItem, variableShow, variableUpdated } from './entities.js';
import {
  createVariable,
  deleteVariable,
  projectVariables,
  variableErrors,
  type VariableInput,
} from './model.js';
import { VARIABLE_RAW_PARAM } from './versions.js';

export const FILTER_FLAG = 'ci_variables_api_filter_environment_scope';

const VARIABLE_TYPES = ['env_var', 'file'] as const;

const createShape = {
  key: p.str().required(),
  value: p.str().required(),
  protected: p.bool(),
  masked: p.bool(),
  variable_type: p.str().values(VARIABLE_TYPES),
  environment_scope: p.str(),
};

const updateShape = {
  key: p.str(),
  value: p.str().required(),
  protected: p.bool(),
  masked: p.bool(),
  variable_type: p.str().values(VARIABLE_TYPES),
  environment_scope: p.str(),
  filter: p.hash(),
};

/** With `raw` from 15.7 (VARIABLE_RAW_PARAM). */
const createRawShape = { ...createShape, raw: p.bool() };
const updateRawShape = { ...updateShape, raw: p.bool() };

/** The `raw` given (only the 15.7 shapes have it). */
const rawOf = (prm: object): { raw?: boolean } =>
  'raw' in prm && typeof prm.raw === 'boolean' ? { raw: prm.raw } : {};

/** GET and DELETE of one variable. */
const keyShape = { key: p.str().required(), filter: p.hash() };

/** `authenticate!` and `authorize! :admin_build, user_project`, which run before the params. */
function adminProject(c: Ctx): ProjectRecord {
  const proj = findProject(c, c.req.param('id') ?? '');
  authorizeCi(c, proj, 'admin_build');
  return proj;
}

/** `find_variable`: by key, then by the filter's scope (while the flag is on); 404 when none. */
function findVariable(
  c: Ctx,
  proj: ProjectRecord,
  key: string,
  filter: Record<string, ParamValue> | undefined,
): VariableRecord {
  const st = state(c);
  const byKey = projectVariables(st, proj.id).filter((v) => v.key === key);
  let found: VariableRecord | undefined;
  if (!featureEnabled(st, FILTER_FLAG)) found = byKey[0];
  else {
    const scope = filter?.environment_scope;
    const matches =
      typeof scope === 'string' && scope.trim() !== ''
        ? byKey.filter((v) => v.environment_scope === scope)
        : byKey;
    if (matches.length > 1)
      throw conflict(
        "There are multiple variables with provided parameters. Please use 'filter[environment_scope]'",
      );
    found = matches[0];
  }
  if (!found) throw notFound('Variable', 'no variable with this key (and scope)');
  return found;
}

function saveOrFail(errors: Record<string, string[]>): void {
  if (Object.keys(errors).length) throw validationError(errors);
}

export function variableRoutes(r: ApiRouter): void {
  r.get('/projects/:id/variables', { auth: 'required' }, (c) => {
    const proj = adminProject(c);
    parse(c, paginationParams);
    return paginate(c, projectVariables(state(c), proj.id), (v) => variableListItem(c, v));
  });

  r.get('/projects/:id/variables/:key', { auth: 'required' }, (c) => {
    const proj = adminProject(c);
    const prm = parse(c, keyShape);
    return c.json(variableShow(c, findVariable(c, proj, prm.key, prm.filter)));
  });

  r.post('/projects/:id/variables', { auth: 'required' }, (c) => {
    const proj = adminProject(c);
    const prm = parse(c, has(c, VARIABLE_RAW_PARAM) ? createRawShape : createShape);
    const input: VariableInput = {
      key: prm.key.trim(),
      value: prm.value,
      variable_type: prm.variable_type ?? 'env_var',
      protected: prm.protected ?? false,
      masked: prm.masked ?? false,
      environment_scope: prm.environment_scope ?? '*',
      ...rawOf(prm),
    };
    saveOrFail(variableErrors(input, projectVariables(state(c), proj.id)));
    const id = write(c, (d) => createVariable(d, proj.id, input));
    return c.json(variableCreated(c, tget(state(c).variables, id)!), 201);
  });

  r.put('/projects/:id/variables/:key', { auth: 'required' }, (c) => {
    const proj = adminProject(c);
    const prm = parse(c, has(c, VARIABLE_RAW_PARAM) ? updateRawShape : updateShape);
    const v = findVariable(c, proj, c.req.param('key') ?? '', prm.filter);
    const next: VariableRecord = {
      ...v,
      value: prm.value,
      variable_type: prm.variable_type ?? v.variable_type,
      protected: prm.protected ?? v.protected,
      masked: prm.masked ?? v.masked,
      environment_scope: prm.environment_scope ?? v.environment_scope,
      ...rawOf(prm),
    };
    saveOrFail(variableErrors(next, projectVariables(state(c), proj.id), v.id));
    write(c, (d) => {
      Object.assign(tget(d.variables, v.id)!, next);
    });
    return c.json(variableUpdated(c, tget(state(c).variables, v.id)!));
  });

  r.delete('/projects/:id/variables/:key', { auth: 'required' }, (c) => {
    const proj = adminProject(c);
    const prm = parse(c, keyShape);
    const v = findVariable(c, proj, prm.key, prm.filter);
    write(c, (d) => deleteVariable(d, v.id));
    return c.body(null, 204);
  });
}
