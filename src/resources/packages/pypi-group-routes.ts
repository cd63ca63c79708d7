/**
 * The group-level PyPI registry of 13.12 (`lib/api/pypi_packages.rb`, `resource :groups`): the PEP 503
 * simple index of a name across the group's projects, and file downloads by digest and name. The group
 * is `requires :id, type: Integer` (a path is `400 id is invalid`), found whoever asks (`after_validation
 * { unauthorized_user_group! }`, else `404 Not Found`). Credentials as `BasicAuthHelpers` reads them.
 * The packages are those of the group's tree that `Packages::FinderHelper#packages_visible_to_user`
 * gives: none without `read_group`, else the projects the actor reports on or whose visibility its
 * level allows (`public_or_visible_to_user(user, REPORTER)`; a deploy token's `accessible_projects`).
 */
import { ACCESS, canReadGroup, groupAccess, projectAccess } from '../../core/access.js';
import { state, type Ctx } from '../../core/context.js';
import { forbidden, grapeError, notFound, recordNotFound } from '../../core/errors.js';
import { pathParam, type ApiRouter } from '../../core/router.js';
import type { GroupRecord, PlatformState } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import { groupChain } from '../projects/access.js';
import type { Project } from '../projects/record.js';
import { packageActor, type Actor } from './access.js';
import {
  normalized,
  presentPypiFile,
  pypiPackages,
  simpleIndex,
  unauthorizedWithHeader,
} from './pypi-routes.js';
import type { PackageRecord } from './store.js';

const AUTH = { auth: 'optional', deployToken: true } as const;

/** `Gitlab::Utils.check_path_traversal!`: what the `file_path` validator refuses. */
const TRAVERSAL = /(^\.{1,2}$|^\.\.[/\\]|[/\\]\.\.$|[/\\]\.\.[/\\]|\n)/;

/** Grape's params (every problem in one message), then `unauthorized_user_group!`. */
function groupOf(c: Ctx, pathParamName: string, pathProblem: string): GroupRecord {
  const id = c.req.param('id') ?? '';
  const problems: string[] = [];
  if (!/^[+-]?\d+$/.test(id)) problems.push('id is invalid');
  if (TRAVERSAL.test(pathParam(c, pathParamName))) problems.push(pathProblem);
  if (problems.length) throw grapeError(400, problems.join(', '));
  const group = tget(state(c).groups, Number(id));
  if (!group) throw notFound();
  return group;
}

/** The group and its subgroups, nearest first. */
function groupTree(st: PlatformState, root: GroupRecord): number[] {
  const out: number[] = [];
  const queue = [root.id];
  const seen = new Set<number>();
  while (queue.length) {
    const g = queue.shift()!;
    if (seen.has(g)) continue;
    seen.add(g);
    out.push(g);
    queue.push(...mget(st.idx.subgroups, String(g)));
  }
  return out;
}

/** A deploy token of this group or an ancestor, with a package registry scope (GroupPolicy's rules). */
function deployTokenReadsGroup(st: PlatformState, actor: Actor, group: GroupRecord): boolean {
  if (actor.kind !== 'deploy' || actor.token.owner !== 'group') return false;
  const scopes = actor.token.scopes;
  if (!scopes.includes('read_package_registry') && !scopes.includes('write_package_registry')) return false;
  for (
    let g: GroupRecord | undefined = group;
    g;
    g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id)
  )
    if (g.id === actor.token.owner_id) return true;
  return false;
}

/** `can?(current_user, :read_group, group)` for the actor. */
function readsGroup(st: PlatformState, actor: Actor | null, group: GroupRecord): boolean {
  if (actor?.kind === 'deploy')
    return deployTokenReadsGroup(st, actor, group) || canReadGroup(st, null, group);
  return canReadGroup(st, actor?.user ?? null, group);
}

/** `packages_visible_to_user(current_user, within_group: group)`, PyPI's, in id order. */
function groupPypiPackages(c: Ctx, actor: Actor | null, group: GroupRecord): PackageRecord[] {
  const st = state(c);
  if (!readsGroup(st, actor, group)) return [];
  const out: PackageRecord[] = [];
  for (const gid of groupTree(st, group))
    for (const pid of mget(st.idx.projectsByNamespace, `group:${gid}`)) {
      const p = tget(st.projects, pid);
      if (!p) continue;
      let visible: boolean;
      if (actor?.kind === 'deploy') {
        const t = actor.token;
        visible =
          t.owner === 'project'
            ? t.owner_id === pid
            : groupChain(st, p as Project).some((g) => g.id === t.owner_id);
      } else {
        const user = actor?.user ?? null;
        visible =
          user?.admin === true ||
          p.visibility === 'public' ||
          (p.visibility === 'internal' && user !== null && !user.external) ||
          projectAccess(st, user, p) >= ACCESS.REPORTER;
      }
      if (visible) out.push(...pypiPackages(c, pid));
    }
  return out.sort((a, b) => a.id - b.id);
}

/** GroupPolicy's `read_package`: reporters of the group, administrators, and its deploy tokens. */
function canReadGroupPackages(st: PlatformState, actor: Actor | null, group: GroupRecord): boolean {
  if (actor?.kind === 'deploy') return deployTokenReadsGroup(st, actor, group);
  const user = actor?.user ?? null;
  return user?.admin === true || groupAccess(st, user, group) >= ACCESS.REPORTER;
}

export function pypiGroupRoutes(r: ApiRouter): void {
  r.get('/groups/:id/-/packages/pypi/simple/:package_name{.+}', AUTH, (c) => {
    const group = groupOf(c, 'package_name', 'package_name should be a valid file path');
    const actor = packageActor(c);
    const st = state(c);
    // `find_authorized_group!`: a group the actor may not read is 401 to anonymous (with the realm).
    if (!readsGroup(st, actor, group)) {
      if (!actor) unauthorizedWithHeader();
      throw notFound();
    }
    if (!canReadGroupPackages(st, actor, group)) throw forbidden();
    const wanted = pathParam(c, 'package_name').toLowerCase();
    const packages = groupPypiPackages(c, actor, group).filter((p) => normalized(p.name) === wanted);
    if (!packages.length) throw recordNotFound('no PyPI package of this name in the group');
    return c.body(simpleIndex(c, `groups/${group.id}/-/packages/pypi`, packages), 200, {
      'Content-Type': 'text/html; charset=utf-8',
    });
  });

  // No ability is checked beyond the finder's: the digest in the link is what pip follows.
  r.get('/groups/:id/-/packages/pypi/files/:sha256/:file_identifier{.+}', AUTH, (c) => {
    const group = groupOf(c, 'file_identifier', 'file_identifier should be a valid file path');
    const actor = packageActor(c);
    const sha = c.req.param('sha256') ?? '';
    return presentPypiFile(c, groupPypiPackages(c, actor, group), sha, pathParam(c, 'file_identifier'));
  });
}
