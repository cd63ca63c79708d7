/** `Entities::Runner`, `Entities::RunnerDetails` and `Entities::RunnerRegistrationDetails` (13.12). */
import { memberKey, projectAccess } from '../../core/access.js';
import { state, type Ctx } from '../../core/context.js';
import type { PlatformState, ProjectRecord, UserRecord } from '../../core/state.js';
import { iget, mget, tget } from '../../core/table.js';
import { groupRenderer } from '../groups/entities.js';
import type { Group } from '../groups/model.js';
import { projectRenderer } from '../projects/entities.js';
import { runnerOnline, runnerStatus } from './model.js';
import type { RunnerRecord } from './store.js';

type Json = Record<string, unknown>;

/** `Entities::Runner` (13.12 has no `runner_type` in it yet). */
export function runnerEntity(r: RunnerRecord, now: number): Json {
  return {
    id: r.id,
    description: r.description,
    ip_address: r.ip_address,
    active: r.active,
    is_shared: r.runner_type === 'instance_type',
    name: r.name,
    online: runnerOnline(r, now),
    status: runnerStatus(r, now),
  };
}

/**
 * `authorized_groups`: the groups the user is a direct member of, and the namespaces of the projects
 * the user is authorized for.
 */
function inAuthorizedGroups(st: PlatformState, user: UserRecord, groupId: number): boolean {
  if (iget(st.idx.members, memberKey('group', groupId, user.id)) !== undefined) return true;
  return mget(st.idx.projectsByNamespace, `group:${groupId}`).some((id) => {
    const p = tget(st.projects, id);
    return p !== undefined && projectAccess(st, user, p) > 0;
  });
}

/**
 * `Entities::RunnerDetails`: the projects and groups are all of the runner's for an admin, else those of
 * them the caller is authorized for (`authorized_projects` / `authorized_groups`).
 */
export function runnerDetails(c: Ctx, r: RunnerRecord, now: number): Json {
  const st = state(c);
  const user = c.get('viewer').user!;
  const projects: ProjectRecord[] = [...r.project_ids]
    .sort((a, b) => a - b)
    .flatMap((id) => tget(st.projects, id) ?? [])
    .filter((p) => user.admin || projectAccess(st, user, p) > 0);
  const group = r.group_id === null ? undefined : (tget(st.groups, r.group_id) as Group | undefined);
  const groups = group && (user.admin || inAuthorizedGroups(st, user, group.id)) ? [group] : [];
  const pr = projectRenderer(c);
  const gr = groupRenderer(c);
  return {
    ...runnerEntity(r, now),
    tag_list: r.tag_list,
    run_untagged: r.run_untagged,
    locked: r.locked,
    maximum_timeout: r.maximum_timeout,
    access_level: r.access_level,
    version: r.version,
    revision: r.revision,
    platform: r.platform,
    architecture: r.architecture,
    contacted_at: r.contacted_at,
    projects: projects.map((p) => JSON.parse(pr.json(p, { shape: 'basic' })) as Json),
    groups: groups.map((g) => ({ id: g.id, web_url: gr.webUrl(g), name: g.name })),
  };
}
