/**
 * The clusters APIs' params (`lib/api/project_clusters.rb`, `group_clusters.rb`,
 * `admin/instance_clusters.rb`, which declare the same set): the cluster's own, then the
 * `platform_kubernetes_attributes` hash, whose members Grape names `platform_kubernetes_attributes[x]`.
 */
import { ApiError, grapeError } from '../../core/errors.js';
import { parseParams, p, type Parsed, type RawParams, type Shape } from '../../core/params.js';
import { parse } from '../../core/router.js';
import type { Ctx } from '../../core/context.js';
import { AUTHORIZATION_TYPES } from './store.js';

export const clusterIdShape = { cluster_id: p.int().required() };

export const createShape = {
  name: p.str().required(),
  enabled: p.bool().default(true),
  domain: p.str(),
  environment_scope: p.str().default('*'),
  namespace_per_environment: p.bool().default(true),
  management_project_id: p.int(),
  managed: p.bool().default(true),
  platform_kubernetes_attributes: p.hash().required(),
};

const createPlatformShape = {
  api_url: p.str().required().notBlank(),
  token: p.str().required(),
  ca_cert: p.str(),
  namespace: p.str(),
  authorization_type: p.str().values(AUTHORIZATION_TYPES).default('rbac'),
};

export const updateShape = {
  ...clusterIdShape,
  name: p.str(),
  domain: p.str(),
  environment_scope: p.str(),
  // Declared with a default even here: every update sets it back to true unless it is given.
  namespace_per_environment: p.bool().default(true),
  management_project_id: p.int(),
  enabled: p.bool(),
  managed: p.bool(),
  platform_kubernetes_attributes: p.hash(),
};

const updatePlatformShape = {
  api_url: p.str(),
  token: p.str(),
  ca_cert: p.str(),
  namespace: p.str(),
};

/** Grape's problems of one shape, or none. */
function problemsOf(shape: Shape, raw: RawParams): string[] {
  try {
    parseParams(shape, raw);
    return [];
  } catch (e) {
    if (e instanceof ApiError) {
      const body = e.body as { error?: unknown };
      if (typeof body?.error === 'string') return body.error.split(', ');
    }
    throw e;
  }
}

function nested<S extends Shape>(
  c: Ctx,
  top: Shape,
  inner: S,
): { top: Record<string, unknown>; platform: Parsed<S> | undefined } {
  const raw = c.get('params');
  const hashProblems = problemsOf(top, raw);
  const given = Object.hasOwn(raw, 'platform_kubernetes_attributes')
    ? raw.platform_kubernetes_attributes
    : undefined;
  const isHash =
    typeof given === 'object' && given !== null && !Array.isArray(given) && !(given instanceof File);
  const required = top.platform_kubernetes_attributes!.spec.required;
  // A required group's members are checked even when the group is missing (each `is missing`); an
  // optional one's only when it is given; a group that is not a hash is `is invalid` alone.
  const innerRaw = isHash ? (given as RawParams) : Object.create(null);
  const innerProblems =
    isHash || (given === undefined && required)
      ? problemsOf(inner, innerRaw).map((m) => m.replace(/^(\S+) /, 'platform_kubernetes_attributes[$1] '))
      : [];
  const all = [...hashProblems, ...innerProblems];
  if (all.length) throw grapeError(400, all.join(', '));
  const out = parse(c, top) as Record<string, unknown>;
  return { top: out, platform: isHash ? parseParams(inner, innerRaw) : undefined };
}

export type CreateParams = Parsed<typeof createShape>;
export type UpdateParams = Parsed<typeof updateShape>;

export const createParams = (c: Ctx) => {
  const r = nested(c, createShape, createPlatformShape);
  return { ...(r.top as CreateParams), platform: r.platform! };
};

export const updateParams = (c: Ctx) => {
  const r = nested(c, updateShape, updatePlatformShape);
  return { ...(r.top as UpdateParams), platform: r.platform };
};
