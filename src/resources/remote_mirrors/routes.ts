/**
 * Remote (push) mirrors (`lib/api/remote_mirrors.rb`): maintainers, or administrators, list, create and
 * edit them. The platform checks the ability in a `before` filter, ahead of the params, and answers a
 * caller without it `401`, not `403`.
 */
import { ACCESS, findProject, projectAccess } from '../../core/access.js';
import { state, write, type Ctx } from '../../core/context.js';
import { recordNotFound, unauthorized, validationError } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import { tget } from '../../core/table.js';
import type { Project } from '../projects/model.js';
import { setting } from '../settings/model.js';
import { publicUrlProblem } from '../settings/outbound.js';
import { createMirror, MIRROR_URL, projectMirrors, safeUrl, updateMirror } from './model.js';
import type { RemoteMirrorRecord } from './store.js';

/** `user_project`, then `admin_remote_mirror`: administrators, or maintainers while mirroring is on. */
function mirrorProject(c: Ctx): Project {
  const proj = findProject(c, c.req.param('id') ?? '') as Project;
  const user = c.get('viewer').user;
  const st = state(c);
  const allowed =
    user?.admin === true ||
    (!!user && setting(st, 'mirror_available') && projectAccess(st, user, proj) >= ACCESS.MAINTAINER);
  if (!allowed) throw unauthorized();
  return proj;
}

/** `Entities::RemoteMirror`; `enabled` reads false while the instance has mirroring off. */
function mirrorEntity(c: Ctx, m: RemoteMirrorRecord) {
  return {
    id: m.id,
    enabled: m.enabled && setting(state(c), 'mirror_available'),
    url: safeUrl(m.url),
    update_status: m.update_status,
    last_update_at: m.last_update_at,
    last_update_started_at: m.last_update_started_at,
    last_successful_update_at: m.last_successful_update_at,
    last_error: m.last_error,
    only_protected_branches: m.only_protected_branches,
    keep_divergent_refs: m.keep_divergent_refs,
  };
}

const flags = { enabled: p.bool(), only_protected_branches: p.bool(), keep_divergent_refs: p.bool() };

export function remoteMirrorsRoutes(r: ApiRouter): void {
  r.get('/projects/:id/remote_mirrors', (c) => {
    const proj = mirrorProject(c);
    parse(c, paginationParams);
    return paginate(c, projectMirrors(state(c), proj.id), (m) => mirrorEntity(c, m));
  });

  r.post('/projects/:id/remote_mirrors', async (c) => {
    const proj = mirrorProject(c);
    const prm = parse(c, { url: p.str().required(), ...flags });
    // The fork-network rule (`import_url_inside_fork_network`, EE) is a project's pull mirror's, not a
    // push mirror's: a fork may push to any public URL.
    const problem =
      prm.url.trim() === '' ? "can't be blank" : await publicUrlProblem(c.get('fx'), prm.url, MIRROR_URL);
    if (problem) throw validationError({ url: [problem] });
    const now = c.get('fx').clock.iso();
    const id = write(c, (d) => createMirror(d, proj.id, prm, now));
    return c.json(mirrorEntity(c, tget(state(c).remoteMirrors.records, id)!), 201);
  });

  r.put('/projects/:id/remote_mirrors/:mirror_id', (c) => {
    const proj = mirrorProject(c);
    const prm = parse(c, { mirror_id: p.str().required(), ...flags });
    // `remote_mirrors.find(params[:mirror_id])`: an id of another project, or no number, is not found.
    const id = /^\d+$/.test(prm.mirror_id) ? Number(prm.mirror_id) : NaN;
    const m = Number.isSafeInteger(id) ? tget(state(c).remoteMirrors.records, id) : undefined;
    if (!m || m.project_id !== proj.id) throw recordNotFound('no remote mirror with this id in the project');
    const now = c.get('fx').clock.iso();
    write(c, (d) => updateMirror(d, m.id, prm, now));
    return c.json(mirrorEntity(c, tget(state(c).remoteMirrors.records, m.id)!));
  });
}
