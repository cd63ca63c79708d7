/**
 * `lib/api/feature_flags.rb` of 13.12: list, create, get, update and delete a project's feature flags
 * by name. Legacy flags are still listed, shown and deleted; PUT refuses them with 422.
 */
import { state, write, type Ctx } from '../../core/context.js';
import { apiError } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p, parseParams } from '../../core/params.js';
import { sendJson } from '../../core/respond.js';
import type { ApiRouter } from '../../core/router.js';
import { tget } from '../../core/table.js';
import { flagEntity } from './entities.js';
import { createInput, updateInput } from './input.js';
import { createFlag, deleteFlag, findFlags, flagByName, updateFlag } from './model.js';
import { flagsProject } from './access.js';
import type { FeatureFlagRecord } from './store.js';
import { listsRoutes } from './user-lists.js';
import { unleashRoutes } from './unleash.js';

const idShape = { id: p.str().required() };
const oneShape = { ...idShape, feature_flag_name: p.str().required() };

/**
 * The class's `before { authorize_read_feature_flags! }` runs before Grape validates the endpoint's
 * params: a caller without the ability gets 403 (or the project's 404) whatever they sent. So the routes
 * declare the path's params, and each handler validates the rest once the check has passed.
 */
const createShape = { name: p.str().required(), description: p.str(), active: p.bool(), version: p.str() };
const updateShape = { name: p.str(), description: p.str(), active: p.bool() };
const listShape = { scope: p.str().values(['enabled', 'disabled'] as const) };

const render = (c: Ctx) => {
  const st = state(c);
  return (f: FeatureFlagRecord) => flagEntity(f, (id) => tget(st.feature_flags.lists, id));
};

/** `find_by_name!`: RecordNotFound's 404. */
function findFlag(c: Ctx, projectId: number, name: string): FeatureFlagRecord {
  const f = flagByName(state(c), projectId, name);
  if (!f) throw apiError(404, '404 Not found', `no feature flag named ${name}`);
  return f;
}

export function featureFlagsRoutes(r: ApiRouter): void {
  r.get('/projects/:id/feature_flags', { params: { ...idShape, ...paginationParams } }, (c) => {
    const proj = flagsProject(c);
    const prm = parseParams(listShape, c.get('params'));
    return paginate(c, findFlags(state(c), proj.id, prm.scope), render(c));
  });

  r.post('/projects/:id/feature_flags', { params: idShape }, (c) => {
    const proj = flagsProject(c);
    const prm = parseParams(createShape, c.get('params'));
    const nested = createInput(c.get('params'));
    const now = c.get('fx').clock.iso();
    const rec = write(c, (d) =>
      createFlag(
        d,
        proj.id,
        {
          name: prm.name,
          description: prm.description,
          active: prm.active,
          version: prm.version,
          strategies: nested.strategies,
          scopes: nested.scopes,
        },
        now,
      ),
    );
    return sendJson(render(c)(rec), 201);
  });

  r.get('/projects/:id/feature_flags/:feature_flag_name', { params: oneShape }, (c, prm) => {
    const proj = flagsProject(c);
    return sendJson(render(c)(findFlag(c, proj.id, prm.feature_flag_name)));
  });

  r.put('/projects/:id/feature_flags/:feature_flag_name', { params: oneShape }, (c, path) => {
    const proj = flagsProject(c);
    const prm = parseParams(updateShape, c.get('params'));
    const flag = findFlag(c, proj.id, path.feature_flag_name);
    if (flag.version === 'legacy_flag')
      throw apiError(422, 'PUT operations are not supported for legacy feature flags');
    const strategies = updateInput(c.get('params'));
    const now = c.get('fx').clock.iso();
    const rec = write(c, (d) =>
      updateFlag(
        d,
        flag,
        { name: prm.name, description: prm.description, active: prm.active, strategies },
        now,
      ),
    );
    return sendJson(render(c)(rec));
  });

  r.delete('/projects/:id/feature_flags/:feature_flag_name', { params: oneShape }, (c, prm) => {
    const proj = flagsProject(c);
    const flag = findFlag(c, proj.id, prm.feature_flag_name);
    const body = render(c)(flag);
    write(c, (d) => deleteFlag(d, flag));
    return sendJson(body);
  });

  listsRoutes(r);
  unleashRoutes(r);
}
