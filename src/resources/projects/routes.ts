/**
 * The projects API: lists (see lists.ts), show, create, update, fork, star, archive, delete and restore,
 * sharing with groups, starrers, languages, users, members (members.ts) and uploads (uploads.ts);
 * create (create.ts), update and fork (update.ts).
 *
 * The order of checks is the platform's and visible to clients: the route must match, writes need a user
 * (401), params are validated (400), the project must be readable (404), then the endpoint's permission
 * (403), conflicts, the model (400).
 */
import { has } from '../../core/versions.js';
import { setting } from '../settings/model.js';
import { PROJECT_DELETION_BY_SETTING } from './versions.js';
import { canReadGroup } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { checkUnmodifiedSince } from '../../core/conditional.js';
import { state, write } from '../../core/context.js';
import { apiError, conflict, forbidden, notFound, notModified } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import { jsonResponse } from '../../core/respond.js';
import { NO_SLASH_URL_PART, parse, type ApiRouter } from '../../core/router.js';
import { type PlatformState } from '../../core/state.js';
import { iget, madd, mget, mremove, tget } from '../../core/table.js';
import { userRenderer } from '../users/entities.js';
import { compileSearch, userKey } from '../users/finder.js';
import { isoTime, projectLanguages, projectRenderer } from './entities.js';
import { starredBy } from './finder.js';
import { adjournedPeriod } from './lifecycle.js';
import { listRoutes } from './lists.js';
import { canAdminProject, isProjectOwner, loadProject, sendProject } from './helpers.js';
import { projectMembersRoutes, teamUserIds } from './members.js';
import { addShare, addStar, deleteProject, removeShare, removeStar, type Project } from './model.js';
import { projectUploadsRoutes } from './uploads.js';
import { createProjectForUserRoute, createProjectRoute } from './create.js';
import { forkProjectRoute, updateProjectRoute } from './update.js';
import { projectEventData, systemEvent } from '../hooks/system.js';

// ---------------------------------------------------------------------------------------------------
// Routes

const showParams = {
  statistics: p.bool().default(false),
  with_custom_attributes: p.bool().default(false),
  license: p.bool().default(false),
};

const shareParams = {
  group_id: p.int().required(),
  group_access: p.int().required().values([10, 20, 30, 40]),
  expires_at: p.date(),
};

const starrerParams = { search: p.str(), ...paginationParams };
const usersParams = {
  search: p.str(),
  skip_users: p.intArray({ commaSeparated: true }),
  ...paginationParams,
};

/**
 * `NAMESPACE_OR_PROJECT_REQUIREMENTS`: the id takes a `.json` suffix as part of itself, so `/projects/1.json`
 * looks for a project whose path is `1.json` (`find_project`) and is a 404.
 */
const PROJECT = { id: NO_SLASH_URL_PART };

export function projectsRoutes(r: ApiRouter): void {
  r.get('/projects', (c) => listRoutes.listProjects(c, 'all'));
  r.post('/projects', createProjectRoute);
  r.post('/projects/user/:user_id', createProjectForUserRoute);
  r.get('/users/:user_id/projects', (c) => listRoutes.listProjects(c, 'user'));
  r.get('/users/:user_id/starred_projects', (c) => listRoutes.listProjects(c, 'starred'));
  r.get('/groups/:id/projects', (c) => listRoutes.listGroupProjects(c, false));
  r.get('/groups/:id/projects/shared', (c) => listRoutes.listGroupProjects(c, true));

  r.get('/projects/:id', { params: showParams, requirements: PROJECT }, (c, prm) => {
    const project = loadProject(c);
    const viewer = c.get('viewer').user;
    const body = projectRenderer(c).body(project, {
      shape: viewer ? 'withAccess' : 'basic',
      statistics: prm.statistics,
      license: prm.license,
      customAttributes: prm.with_custom_attributes && viewer?.admin === true,
      canAdminProject: canAdminProject(c, project),
    });
    return jsonResponse(body);
  });

  r.put('/projects/:id', { requirements: PROJECT }, updateProjectRoute);

  r.delete('/projects/:id', { requirements: PROJECT }, (c) => {
    requireUser(c);
    const project = loadProject(c);
    if (!isProjectOwner(c, project)) throw forbidden();
    checkUnmodifiedSince(c, project.updated_at);
    const st = state(c);
    const adjourned =
      c.get('fx').tier() !== 'free' &&
      adjournedPeriod(st) > 0 &&
      (!has(c, PROJECT_DELETION_BY_SETTING) || setting(st, 'delayed_project_deletion') === true);
    const today = c.get('fx').clock.today();
    const now = c.get('fx').clock.iso();
    if (!adjourned) {
      const data = projectEventData(st, project);
      write(c, (d) => deleteProject(d, project.id));
      systemEvent(c, 'project_destroy', data);
    } else if (!project.marked_for_deletion_on)
      write(c, (d) => {
        const rec = tget(d.projects, project.id)! as Project;
        rec.marked_for_deletion_on = today;
        rec.archived = true;
        rec.updated_at = now;
        madd(d.idx.projectsMarked, 'all', project.id);
      });
    return c.json({ message: '202 Accepted' }, 202);
  });

  r.post('/projects/:id/restore', (c) => {
    requireUser(c);
    const project = loadProject(c);
    if (!isProjectOwner(c, project)) throw forbidden();
    if (c.get('fx').tier() === 'free') throw notFound(undefined, 'restore is a paid-tier feature');
    const now = c.get('fx').clock.iso();
    write(c, (d) => {
      const rec = tget(d.projects, project.id)! as Project;
      rec.archived = false;
      rec.marked_for_deletion_on = null;
      rec.updated_at = now;
      mremoveMarked(d, project.id);
    });
    return sendProject(c, project.id, 201);
  });

  r.post('/projects/:id/fork', forkProjectRoute);

  for (const [action, archived] of [
    ['archive', true],
    ['unarchive', false],
  ] as const)
    r.post(`/projects/:id/${action}`, (c) => {
      requireUser(c);
      const project = loadProject(c);
      if (!isProjectOwner(c, project)) throw forbidden();
      if (project.archived !== archived) {
        const now = c.get('fx').clock.iso();
        write(c, (d) => {
          const rec = tget(d.projects, project.id)! as Project;
          rec.archived = archived;
          rec.updated_at = now;
        });
      }
      return sendProject(c, project.id, 201);
    });

  r.post('/projects/:id/star', (c) => {
    const user = requireUser(c);
    const project = loadProject(c);
    if (starredBy(state(c), project.id, user.id)) throw notModified();
    const now = c.get('fx').clock.iso();
    write(c, (d) => addStar(d, project.id, user.id, now));
    return sendProject(c, project.id, 201);
  });

  r.post('/projects/:id/unstar', (c) => {
    const user = requireUser(c);
    const project = loadProject(c);
    const starId = iget(state(c).idx.stars, `${project.id}:${user.id}`);
    if (starId === undefined) throw notModified();
    write(c, (d) => removeStar(d, starId));
    return sendProject(c, project.id, 201);
  });

  r.get('/projects/:id/starrers', { params: starrerParams }, (c, prm) => {
    const project = loadProject(c);
    const st = state(c);
    const viewer = c.get('viewer').user;
    let stars = mget(st.idx.starsBy, String(project.id)).map((id) => tget(st.stars, id)!);
    // Private profiles are hidden, except from admins and from themselves.
    stars = stars.filter((s) => {
      const u = tget(st.users, s.user_id);
      return !!u && (!u.private_profile || viewer?.admin === true || viewer?.id === u.id);
    });
    if (prm.search !== undefined && prm.search.trim() !== '') {
      const search = compileSearch(st, prm.search);
      stars = search ? stars.filter((s) => search.test(userKey(tget(st.users, s.user_id)!))) : [];
    }
    const ur = userRenderer(c);
    return paginate(c, stars, (s) => ({
      starred_since: isoTime(s.created_at),
      user: ur.basic(tget(st.users, s.user_id)!),
    }));
  });

  r.get('/projects/:id/languages', (c) => {
    const project = loadProject(c);
    return c.json(project.default_branch === null ? {} : projectLanguages(project.id));
  });

  r.post('/projects/:id/share', (c) => {
    requireUser(c);
    const prm = parse(c, shareParams);
    const project = loadProject(c);
    if (!canAdminProject(c, project)) throw forbidden();
    const st = state(c);
    if (
      project.namespace_kind === 'group' &&
      tget(st.groups, project.namespace_id)?.share_with_group_lock === true
    )
      throw apiError(400, 'The project sharing with group is disabled');
    const group = tget(st.groups, prm.group_id);
    if (!group || !canReadGroup(st, c.get('viewer').user, group)) throw apiError(404, 'Not Found');
    if (iget(st.idx.shares, `${project.id}:${group.id}`) !== undefined)
      throw conflict('Group already shared with this group');
    if (project.namespace_kind === 'group') {
      for (
        let g = tget(st.groups, project.namespace_id);
        g;
        g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id)
      )
        if (g.id === group.id)
          throw conflict('Project cannot be shared with the group it is in or one of its ancestors.');
    }
    const now = c.get('fx').clock.iso();
    const id = write(c, (d) =>
      addShare(d, project.id, group.id, prm.group_access, now, prm.expires_at ?? null),
    );
    const sh = tget(state(c).shares, id)!;
    return c.json(
      {
        id: sh.id,
        project_id: sh.project_id,
        group_id: sh.group_id,
        group_access: sh.group_access,
        expires_at: sh.expires_at,
      },
      201,
    );
  });

  r.delete('/projects/:id/share/:group_id', (c) => {
    requireUser(c);
    const prm = parse(c, { group_id: p.int().required() });
    const project = loadProject(c);
    if (!canAdminProject(c, project)) throw forbidden();
    const st = state(c);
    const shareId = iget(st.idx.shares, `${project.id}:${prm.group_id}`);
    if (shareId === undefined) throw notFound('Group Link', 'the project is not shared with that group');
    checkUnmodifiedSince(c, tget(st.shares, shareId)!.created_at);
    write(c, (d) => removeShare(d, shareId));
    return c.body(null, 204);
  });

  r.get('/projects/:id/users', { params: usersParams }, (c, prm) => {
    const project = loadProject(c);
    const st = state(c);
    let ids = teamUserIds(st, project);
    if (prm.skip_users && prm.skip_users.length > 0) {
      const skip = new Set(prm.skip_users);
      ids = ids.filter((id) => !skip.has(id));
    }
    let users = ids.map((id) => tget(st.users, id)!).filter(Boolean);
    if (prm.search !== undefined && prm.search.trim() !== '') {
      const search = compileSearch(st, prm.search);
      users = search ? users.filter((u) => search.test(userKey(u))) : [];
    }
    const ur = userRenderer(c);
    return paginate(c, users, (u) => ur.basic(u));
  });

  projectMembersRoutes(r);
  projectUploadsRoutes(r);
}

const mremoveMarked = (d: PlatformState, id: number) => mremove(d.idx.projectsMarked, 'all', id);
