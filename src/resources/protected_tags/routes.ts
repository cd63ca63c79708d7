/**
 * The protected tags API (`lib/api/protected_tags.rb`, 11.3): list, get, protect and unprotect, all
 * behind `authorize_admin_project` (maintainers). A rule's name is a tag name or a `*` wildcard; what it
 * guards is checked by `Gitlab::Checks::TagCheck` (repository/protect.ts) on pushes and the tags API.
 */
import { findProject } from '../../core/access.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { recordNotFound, unprocessable } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import { NO_SLASH_URL_PART, type ApiRouter } from '../../core/router.js';
import type { Project } from '../projects/model.js';
import { authorizeAdmin } from '../repository/access.js';
import { createProtectedTag, deleteProtectedTag, protectedTagByName, protectedTagsOf } from './model.js';
import type { ProtectedTagRecord } from './store.js';

/** `ProtectedRefAccess::HUMAN_ACCESS_LEVELS`, with `ProtectedTag::CreateAccessLevel`'s "No one". */
const DESCRIPTIONS: Record<number, string> = {
  0: 'No one',
  30: 'Developers + Maintainers',
  40: 'Maintainers',
};

/** `ProtectedTag::CreateAccessLevel.allowed_access_levels`. */
const LEVELS = [0, 30, 40] as const;

/** `Entities::ProtectedTag` with `Entities::ProtectedRefAccess` (and the fields EE adds on every tier). */
export const protectedTagEntity = (r: ProtectedTagRecord) => ({
  name: r.name,
  create_access_levels: [
    {
      access_level: r.create_access_level,
      access_level_description: DESCRIPTIONS[r.create_access_level] ?? 'Maintainers',
      user_id: null,
      group_id: null,
    },
  ],
});

/** `TAG_ENDPOINT_REQUIREMENTS`: the name keeps a `.json` suffix (`v1.json` is a tag). */
const NAMED = { id: NO_SLASH_URL_PART, name: NO_SLASH_URL_PART };
const nameShape = { id: p.str().required(), name: p.str().required() };

/** `before { authorize_admin_project }`. */
function adminProject(c: Ctx): Project {
  const proj = findProject(c, c.req.param('id') ?? '') as Project;
  authorizeAdmin(c, proj);
  return proj;
}

function findRule(c: Ctx, proj: Project, name: string): ProtectedTagRecord {
  const r = protectedTagByName(state(c), proj.id, name);
  if (!r) throw recordNotFound('no protected tag by this name');
  return r;
}

export function protectedTagsRoutes(r: ApiRouter): void {
  r.get('/projects/:id/protected_tags', { params: { id: p.str().required(), ...paginationParams } }, (c) => {
    const proj = adminProject(c);
    return paginate(c, protectedTagsOf(state(c), proj.id), protectedTagEntity);
  });

  r.get('/projects/:id/protected_tags/:name', { params: nameShape, requirements: NAMED }, (c, prm) => {
    const proj = adminProject(c);
    return c.json(protectedTagEntity(findRule(c, proj, prm.name)));
  });

  r.post(
    '/projects/:id/protected_tags',
    {
      params: {
        id: p.str().required(),
        name: p.str().required(),
        create_access_level: p.int().values(LEVELS).default(40),
      },
    },
    (c, prm) => {
      const proj = adminProject(c);
      // `ProtectedTag` validations, answered as `errors.full_messages` with 422.
      if (prm.name.trim() === '') throw unprocessable(["Name can't be blank"]);
      if (protectedTagByName(state(c), proj.id, prm.name))
        throw unprocessable(['Name has already been taken']);
      const now = c.get('fx').clock.iso();
      const rec = write(c, (d) => createProtectedTag(d, proj.id, prm.name, prm.create_access_level, now));
      return c.json(protectedTagEntity(rec), 201);
    },
  );

  r.delete('/projects/:id/protected_tags/:name', { params: nameShape, requirements: NAMED }, (c, prm) => {
    const proj = adminProject(c);
    const rule = findRule(c, proj, prm.name);
    // `destroy_conditionally!`: If-Unmodified-Since against the rule's timestamp.
    checkUnmodifiedSince(c, rule.created_at);
    write(c, (d) => deleteProtectedTag(d, rule));
    return c.body(null, 204);
  });
}
