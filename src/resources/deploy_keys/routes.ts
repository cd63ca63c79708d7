/**
 * The deploy keys API (`lib/api/deploy_keys.rb` of 13.12): the instance's keys for admins; a project's
 * for its maintainers (`authenticate!`, then `authorize_admin_project`). Adding a key that another
 * project the caller maintains already uses enables that key here; a new key is validated as users'
 * SSH keys are.
 */
import { requireAdmin, requireUser } from '../../core/auth.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { forbidden, notFound, recordNotFound, validationError } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { atLeastOneOf, p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { ProjectRecord } from '../../core/state.js';
import { tget, tvalues } from '../../core/table.js';
import { canAdminProject, loadProject } from '../projects/helpers.js';
import { keyEntity } from '../user_profile/routes.js';
import {
  accessibleKey,
  createDeployKey,
  deployKeyErrors,
  enableKey,
  linkOf,
  parseKey,
  projectLinks,
  removeLink,
} from './model.js';
import type { DeployKeyLinkRecord, DeployKeyRecord } from './store.js';

/** `Entities::SSHKey` of a deploy key (13.12 keeps no expiry for them). */
const sshKey = (k: DeployKeyRecord) => keyEntity({ ...k, user_id: k.user_id ?? 0, expires_at: null });

/** `Entities::DeployKeysProject`: the key's fields merged, then `can_push`. */
function linkEntity(c: Ctx, l: DeployKeyLinkRecord) {
  return { ...sshKey(tget(state(c).deployKeys.keys, l.deploy_key_id)!), can_push: l.can_push };
}

function maintained(c: Ctx): ProjectRecord {
  requireUser(c);
  const project = loadProject(c);
  if (!canAdminProject(c, project)) throw forbidden();
  return project;
}

const keyIdShape = { key_id: p.int().required() };

/** `find_by_deploy_key`: the project's link to the key, or the record 404. */
function linkFor(c: Ctx, project: ProjectRecord, keyId: number): DeployKeyLinkRecord {
  const l = linkOf(state(c), project.id, keyId);
  if (!l) throw recordNotFound('the key is not enabled in this project');
  return l;
}

export function deployKeysRoutes(r: ApiRouter): void {
  r.get('/deploy_keys', (c) => {
    requireAdmin(c);
    parse(c, paginationParams);
    const keys = tvalues(state(c).deployKeys.keys).sort((a, b) => a.id - b.id);
    return paginate(c, keys, sshKey);
  });

  const base = '/projects/:id/deploy_keys';

  r.get(base, (c) => {
    const project = maintained(c);
    parse(c, paginationParams);
    return paginate(c, projectLinks(state(c), project.id), (l) => linkEntity(c, l));
  });

  r.get(`${base}/:key_id`, (c) => {
    const project = maintained(c);
    const prm = parse(c, keyIdShape);
    return c.json(linkEntity(c, linkFor(c, project, prm.key_id)));
  });

  r.post(base, (c) => {
    const project = maintained(c);
    const prm = parse(c, { key: p.str().required(), title: p.str().required(), can_push: p.bool() });
    const st = state(c);
    const user = c.get('viewer').user!;
    const text = prm.key.trim();
    const now = c.get('fx').clock.iso();
    const canPush = prm.can_push === true;
    // The key as given, already in this project: that link, unchanged.
    for (const l of projectLinks(st, project.id))
      if (tget(st.deployKeys.keys, l.deploy_key_id)!.key === text) return c.json(linkEntity(c, l), 201);
    // A key of a project the caller maintains: enabled here too.
    const known = tvalues(st.deployKeys.keys).find((k) => k.key === text && accessibleKey(st, user, k.id));
    if (known) {
      const id = write(c, (d) => enableKey(d, project.id, known.id, canPush, now));
      return c.json(linkEntity(c, tget(state(c).deployKeys.links, id)!), 201);
    }
    const parsed = parseKey(prm.key);
    const errors = deployKeyErrors(st, { title: prm.title, ...parsed });
    if (Object.keys(errors).length) throw validationError(errors);
    const id = write(c, (d) => {
      const keyId = createDeployKey(
        d,
        { title: prm.title, key: parsed.key, fingerprint: parsed.fingerprint! },
        user.id,
        now,
      );
      return enableKey(d, project.id, keyId, canPush, now);
    });
    return c.json(linkEntity(c, tget(state(c).deployKeys.links, id)!), 201);
  });

  r.put(`${base}/:key_id`, (c) => {
    const project = maintained(c);
    const prm = parse(c, { ...keyIdShape, title: p.str(), can_push: p.bool() });
    atLeastOneOf(c.get('params'), 'title', 'can_push');
    const link = linkFor(c, project, prm.key_id);
    const st = state(c);
    // `update_deploy_key`: admins, and maintainers of a project that uses the key.
    if (!accessibleKey(st, c.get('viewer').user!, link.deploy_key_id)) throw forbidden();
    const title = prm.title ?? tget(st.deployKeys.keys, link.deploy_key_id)!.title;
    if (title.trim() === '') throw validationError({ 'deploy_key.title': ["can't be blank"] });
    if (title.length > 255)
      throw validationError({ 'deploy_key.title': ['is too long (maximum is 255 characters)'] });
    const now = c.get('fx').clock.iso();
    write(c, (d) => {
      const l = tget(d.deployKeys.links, link.id)!;
      const k = tget(d.deployKeys.keys, link.deploy_key_id)!;
      if (prm.can_push !== undefined && prm.can_push !== l.can_push) {
        l.can_push = prm.can_push;
        l.updated_at = now;
      }
      if (title !== k.title) {
        k.title = title;
        k.updated_at = now;
      }
    });
    return c.json(linkEntity(c, tget(state(c).deployKeys.links, link.id)!));
  });

  r.post(`${base}/:key_id/enable`, (c) => {
    const project = maintained(c);
    const prm = parse(c, keyIdShape);
    const st = state(c);
    const key = accessibleKey(st, c.get('viewer').user!, prm.key_id);
    if (!key) throw notFound('Deploy Key');
    const now = c.get('fx').clock.iso();
    write(c, (d) => enableKey(d, project.id, key.id, false, now));
    return c.json(sshKey(key), 201);
  });

  r.delete(`${base}/:key_id`, (c) => {
    const project = maintained(c);
    const prm = parse(c, keyIdShape);
    const link = linkOf(state(c), project.id, prm.key_id);
    if (!link) throw notFound('Deploy Key');
    checkUnmodifiedSince(c, link.updated_at);
    write(c, (d) => removeLink(d, link.id));
    return c.body(null, 204);
  });
}
