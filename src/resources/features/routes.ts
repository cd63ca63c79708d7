/**
 * The features API (admin only, checked before the params): Flipper-style flags with boolean,
 * percentage, actor (user, project, group) and feature-group gates. The flags fauxlab knows really gate
 * behaviour through `featureEnabled` (see core/features.ts).
 *
 * One departure from Flipper, as the spec's transition table has it: setting a percentage or a targeted
 * gate makes the feature `conditional` even when it was fully `on`, so the boolean gate is cleared then.
 */
import type { Draft } from 'immer';
import { lookupGroup, lookupProject } from '../../core/access.js';
import { state, write, type Ctx } from '../../core/context.js';
import { ApiError, grapeError, internalError, recordNotFound } from '../../core/errors.js';
import { emptyFeature, featureGates, featureState } from '../../core/features.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p, type Parsed } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { FeatureRecord } from '../../core/state.js';
import { own } from '../../core/own.js';
import { iget } from '../../core/table.js';

const setShape = {
  value: p.str().required(),
  key: p.str(),
  feature_group: p.str(),
  user: p.str(),
  group: p.str(),
  project: p.str(),
};

const TARGETS = ['feature_group', 'user', 'group', 'project'] as const;

/** `Entities::Feature`. */
export const featureEntity = (f: FeatureRecord) => ({
  name: f.name,
  state: featureState(f),
  gates: featureGates(f),
});

/**
 * The params as Grape checks them: declared types first, then `mutually_exclusive :key, :<target>` for
 * each target; every problem in one 400.
 */
function setParams(c: Ctx): Parsed<typeof setShape> {
  const problems: string[] = [];
  let prm: Parsed<typeof setShape> | undefined;
  try {
    prm = parse(c, setShape);
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 400) throw e;
    problems.push((e.body as { error: string }).error);
  }
  const raw = c.get('params');
  if (raw.key !== undefined)
    for (const t of TARGETS) if (raw[t] !== undefined) problems.push(`key, ${t} are mutually exclusive`);
  if (problems.length) throw grapeError(400, problems.join(', '));
  return prm!;
}

/** `gate_value`: `true`, `0`/`false`, else Ruby's `to_i` of the string (leading digits, else 0). */
function gateValue(v: string): boolean | number {
  if (v === 'true') return true;
  if (v === '0' || v === 'false') return false;
  const m = /^\s*([+-]?\d+(?:_\d+)*)/.exec(v);
  return m ? Number(m[1]!.replace(/_/g, '')) : 0;
}

type Target = { kind: 'group'; name: string } | { kind: 'actor'; id: string };

/** `Feature::Target#targets`: feature group, user (must exist), project and group (unknown ones drop out). */
function gateTargets(c: Ctx, prm: Parsed<typeof setShape>): Target[] {
  const st = state(c);
  const out: Target[] = [];
  if (prm.feature_group !== undefined) out.push({ kind: 'group', name: prm.feature_group });
  if (prm.user !== undefined) {
    const id = iget(st.idx.usernames, prm.user.toLowerCase());
    if (id === undefined) throw recordNotFound(`no user with the username ${prm.user}`);
    out.push({ kind: 'actor', id: `User:${id}` });
  }
  if (prm.project !== undefined) {
    const proj = prm.project.includes('/') ? lookupProject(st, prm.project) : undefined;
    if (proj) out.push({ kind: 'actor', id: `Project:${proj.id}` });
  }
  if (prm.group !== undefined) {
    const g = /^\d+$/.test(prm.group) ? undefined : lookupGroup(st, prm.group);
    if (g) out.push({ kind: 'actor', id: `Group:${g.id}` });
  }
  return out;
}

function clear(f: Draft<FeatureRecord>): void {
  Object.assign(f, emptyFeature(f.name));
}

export function featureRoutes(r: ApiRouter): void {
  r.get('/features', { auth: 'admin' }, (c) => {
    parse(c, paginationParams);
    return paginate(c, Object.values(state(c).features), featureEntity);
  });

  r.post('/features/:name', { auth: 'admin' }, (c) => {
    const name = c.req.param('name') ?? '';
    const prm = setParams(c);
    const targets = gateTargets(c, prm);
    const value = gateValue(prm.value);
    const specified = TARGETS.some((t) => prm[t] !== undefined);
    // Flipper rejects a percentage outside 0..100 with an ArgumentError the endpoint does not rescue.
    if (typeof value === 'number' && (value < 0 || value > 100)) throw internalError();
    if (!specified || targets.length > 0 || typeof value === 'number')
      write(c, (d) => {
        const f = own(d.features, name) ?? (d.features[name] = emptyFeature(name));
        if (typeof value === 'number') {
          f.boolean = null;
          if (prm.key === 'percentage_of_actors') f.percentage_of_actors = value;
          else f.percentage_of_time = value;
        } else if (!specified) {
          clear(f);
          if (value) f.boolean = true;
        } else
          for (const t of targets) {
            const set = t.kind === 'group' ? f.groups : f.actors;
            const item = t.kind === 'group' ? t.name : t.id;
            const at = set.indexOf(item);
            if (value && at < 0) set.push(item);
            if (!value && at >= 0) set.splice(at, 1);
            if (value) f.boolean = null;
          }
      });
    return c.json(featureEntity(own(state(c).features, name) ?? emptyFeature(name)), 201);
  });

  r.delete('/features/:name', { auth: 'admin' }, (c) => {
    const name = c.req.param('name') ?? '';
    if (own(state(c).features, name))
      write(c, (d) => {
        delete d.features[name];
      });
    return c.body(null, 204);
  });
}
