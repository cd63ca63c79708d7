/**
 * Project and group badges (`/projects/:id/badges`, `/groups/:id/badges`): whoever reads the project or
 * group reads its badges (a project's list holds its groups' badges too, filled in for the project);
 * maintainers of a project and owners of a group manage them and preview one with `render`.
 */
import { requireUser } from '../../core/auth.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write, type Ctx } from '../../core/context.js';
import { forbidden, recordNotFound, validationError } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import type { PlatformState, ProjectRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { canAdminGroup, findGroupRecord } from '../groups/access.js';
import type { Group } from '../groups/model.js';
import { canAdminProject, loadProject } from '../projects/helpers.js';
import {
  badgeErrors,
  createBadge,
  deleteBadge,
  renderUrl,
  sourceBadges,
  updateBadge,
  type BadgeFields,
} from './model.js';
import type { BadgeRecord } from './store.js';

type Kind = BadgeRecord['kind'];

interface Source {
  kind: Kind;
  id: number;
  group: Group | null;
  /** The project badges are shown for (group badges listed on a project too); null on a group. */
  project: ProjectRecord | null;
}

/** `find_source`: the route's project or group, or its 404. */
function findSource(c: Ctx, kind: Kind): Source {
  if (kind === 'project') {
    const project = loadProject(c);
    return { kind, id: project.id, group: null, project };
  }
  const group = findGroupRecord(c, c.req.param('id') ?? '');
  return { kind, id: group.id, group, project: null };
}

/** `find_source_if_admin`: `admin_project` (maintainers) or `admin_group` (owners). */
function adminSource(c: Ctx, kind: Kind): Source {
  const src = findSource(c, kind);
  const ok = src.project
    ? canAdminProject(c, src.project)
    : canAdminGroup(state(c), c.get('viewer').user, src.group!);
  if (!ok) throw forbidden();
  return src;
}

/** `source.badges.find(badge_id)`: a project finds its groups' badges too. */
function findBadge(c: Ctx, src: Source): BadgeRecord {
  const raw = c.req.param('badge_id') ?? '';
  const id = /^\d+$/.test(raw) ? Number(raw) : NaN;
  const b = sourceBadges(state(c), src.kind, src.id).find((x) => x.id === id);
  if (!b) throw recordNotFound(`no badge ${raw} here`);
  return b;
}

/** `BasicBadgeDetails`. */
function details(st: PlatformState, b: BadgeFields, project: ProjectRecord | null, valid = true) {
  return {
    name: b.name,
    link_url: b.link_url,
    image_url: b.image_url,
    rendered_link_url: renderUrl(st, b.link_url, project, valid),
    rendered_image_url: renderUrl(st, b.image_url, project, valid),
  };
}

/** `Badge`. */
const badgeEntity = (st: PlatformState, b: BadgeRecord, project: ProjectRecord | null) => ({
  ...details(st, b, project),
  id: b.id,
  kind: b.kind,
});

const urls = { link_url: p.str().required(), image_url: p.str().required() };
const badgeId = { badge_id: p.int().required() };

export function badgesRoutes(r: ApiRouter): void {
  for (const kind of ['project', 'group'] as const) {
    const base = `/${kind}s/:id/badges`;
    const show = (c: Ctx, src: Source, id: number, status: 200 | 201 = 200) => {
      const st = state(c);
      return c.json(badgeEntity(st, tget(st.badges.records, id)!, src.project), status);
    };

    r.get(base, { params: { ...paginationParams, name: p.str() } }, (c, prm) => {
      const src = findSource(c, kind);
      const st = state(c);
      let list = sourceBadges(st, kind, src.id);
      if (prm.name !== undefined) list = list.filter((b) => b.name === prm.name);
      return paginate(c, list, (b) => badgeEntity(st, b, src.project));
    });

    // A preview: the badge as it would be, rendered for the project, stored nowhere.
    r.get(`${base}/render`, { params: urls }, (c, prm) => {
      requireUser(c);
      const src = adminSource(c, kind);
      const fields: BadgeFields = { link_url: prm.link_url, image_url: prm.image_url, name: null };
      const errors = badgeErrors(fields);
      if (Object.keys(errors).length) throw validationError(errors);
      return c.json(details(state(c), fields, src.project));
    });

    r.get(`${base}/:badge_id`, { params: badgeId }, (c) => {
      const src = findSource(c, kind);
      return c.json(badgeEntity(state(c), findBadge(c, src), src.project));
    });

    r.post(base, { params: { ...urls, name: p.str() } }, (c, prm) => {
      const src = adminSource(c, kind);
      const fields: BadgeFields = {
        link_url: prm.link_url,
        image_url: prm.image_url,
        name: prm.name ?? null,
      };
      const errors = badgeErrors(fields);
      if (Object.keys(errors).length) throw validationError(errors);
      const now = c.get('fx').clock.iso();
      const id = write(c, (d) => createBadge(d, kind, src.id, fields, now));
      return show(c, src, id, 201);
    });

    r.put(
      `${base}/:badge_id`,
      { params: { link_url: p.str(), image_url: p.str(), name: p.str() } },
      (c, prm) => {
        const src = adminSource(c, kind);
        const b = findBadge(c, src);
        const changes: Partial<BadgeFields> = {};
        if (prm.link_url !== undefined) changes.link_url = prm.link_url;
        if (prm.image_url !== undefined) changes.image_url = prm.image_url;
        if (prm.name !== undefined) changes.name = prm.name;
        const errors = badgeErrors({ ...b, ...changes });
        if (Object.keys(errors).length) throw validationError(errors);
        const now = c.get('fx').clock.iso();
        write(c, (d) => updateBadge(d, b.id, changes, now));
        return show(c, src, b.id);
      },
    );

    r.delete(`${base}/:badge_id`, { params: badgeId }, (c) => {
      const src = adminSource(c, kind);
      const b = findBadge(c, src);
      checkUnmodifiedSince(c, b.updated_at);
      write(c, (d) => deleteBadge(d, b.id));
      return c.body(null, 204);
    });
  }
}
