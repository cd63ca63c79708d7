/**
 * `GET /projects/:id/groups` (13.10, `Projects::GroupsFinder`): the project's group and its ancestors,
 * with `with_shared` the groups the project is shared with (`shared_min_access_level` on the share's
 * access), less `skip_groups`, matched by `search` on each group's own name or path, newest first, as
 * `Entities::PublicGroupDetails`.
 */
import { state } from '../../core/context.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import type { ApiRouter } from '../../core/router.js';
import { mget, tget } from '../../core/table.js';
import { loadProject } from '../projects/helpers.js';
import { groupRenderer } from './entities.js';
import { groupSearch } from './finder.js';
import type { Group } from './model.js';

const params = {
  search: p.str(),
  skip_groups: p.intArray({ commaSeparated: true }),
  with_shared: p.bool().default(false),
  shared_min_access_level: p.int().values([10, 20, 30, 40, 50]),
  ...paginationParams,
};

export function projectGroupsRoutes(r: ApiRouter): void {
  r.get('/projects/:id/groups', { params }, (c, prm) => {
    const project = loadProject(c);
    const st = state(c);
    const found = new Map<number, Group>();
    if (project.namespace_kind === 'group')
      for (
        let g = tget(st.groups, project.namespace_id) as Group | undefined;
        g;
        g = g.parent_id === null ? undefined : (tget(st.groups, g.parent_id) as Group | undefined)
      )
        found.set(g.id, g);
    if (prm.with_shared)
      for (const sid of mget(st.idx.sharesBy, String(project.id))) {
        const sh = tget(st.shares, sid)!;
        if (prm.shared_min_access_level !== undefined && sh.group_access < prm.shared_min_access_level)
          continue;
        const g = tget(st.groups, sh.group_id) as Group | undefined;
        if (g) found.set(g.id, g);
      }
    const skip = new Set(prm.skip_groups ?? []);
    // `Group.search` without parents: the group's own path and name.
    const search = prm.search !== undefined && prm.search !== '' ? groupSearch(prm.search) : null;
    const groups = [...found.values()]
      .filter((g) => !skip.has(g.id))
      .filter(
        (g) =>
          !search ||
          search({ g, id: g.id, level: 0, path: g.path.toLowerCase(), name: g.name.toLowerCase() }),
      )
      .sort((a, b) => b.id - a.id);
    const rr = groupRenderer(c);
    return paginate(c, groups, (g) => ({
      id: g.id,
      web_url: rr.webUrl(g),
      name: g.name,
      avatar_url: rr.avatarUrl(g),
      full_name: g.full_name,
      full_path: g.full_path,
    }));
  });
}
