/**
 * `lib/api/unleash.rb` of 13.12: the Unleash client API of a project, authorised by the project's
 * feature flags client token as the instance id (`UNLEASH-INSTANCEID` header or `instance_id`), the
 * environment named by `UNLEASH-APPNAME` or `app_name`. No user is involved: a wrong or missing
 * instance id, or an unknown project, is 401.
 */
import { lookupProject } from '../../core/access.js';
import { state, type Ctx } from '../../core/context.js';
import { unauthorized } from '../../core/errors.js';
import { p } from '../../core/params.js';
import { sendJson } from '../../core/respond.js';
import type { ApiRouter } from '../../core/router.js';
import type { ProjectRecord } from '../../core/state.js';
import { unleashToken } from './model.js';
import { unleashFeatures } from './unleash-match.js';

const shape = { project_id: p.str().required(), instance_id: p.str(), app_name: p.str() };

/** `authorize_by_unleash_instance_id!`: `Operations::FeatureFlagsClient.find_for_project_and_token`. */
function authorizedProject(c: Ctx, instanceId: string | undefined): ProjectRecord {
  const proj = lookupProject(state(c), c.req.param('project_id') ?? '');
  const token = c.req.header('unleash-instanceid') ?? instanceId;
  if (!proj || !token) throw unauthorized();
  const expected = unleashToken(state(c), proj.id);
  if (expected === undefined || expected !== token) throw unauthorized();
  return proj;
}

/** `status :ok` and nothing else: Grape renders the endpoint's value, the status code, as JSON. */
const ok = () => sendJson(200, 200);

export function unleashRoutes(r: ApiRouter): void {
  const features = (c: Ctx, prm: { instance_id?: string; app_name?: string }) => {
    const proj = authorizedProject(c, prm.instance_id);
    const app = c.req.header('unleash-appname') ?? prm.app_name;
    return sendJson({ version: 1, features: unleashFeatures(state(c), proj.id, app) });
  };
  r.get('/feature_flags/unleash/:project_id', { params: shape }, (c, prm) => {
    authorizedProject(c, prm.instance_id);
    return ok();
  });
  r.get('/feature_flags/unleash/:project_id/features', { params: shape }, features);
  r.get('/feature_flags/unleash/:project_id/client/features', { params: shape }, features);
  r.post(
    '/feature_flags/unleash/:project_id/client/register',
    { params: shape, auth: 'optional' },
    (c, prm) => {
      authorizedProject(c, prm.instance_id);
      return ok();
    },
  );
  r.post(
    '/feature_flags/unleash/:project_id/client/metrics',
    { params: shape, auth: 'optional' },
    (c, prm) => {
      authorizedProject(c, prm.instance_id);
      return ok();
    },
  );
}
