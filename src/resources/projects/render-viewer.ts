/**
 * What project entities show of the viewer's own access: direct memberships (kept per members table),
 * the level a membership gives, `permissions`; and the project's `shared_with_groups`.
 */
import { ACCESS, projectAccess } from '../../core/access.js';
import type { Fx } from '../../core/context.js';
import { type PlatformState, type UserRecord } from '../../core/state.js';
import { iget, mget, tget } from '../../core/table.js';
import { highestGroupLevel, isPersonalOwner } from './access.js';
import type { Project } from './model.js';
import { NO_PERMISSIONS, accessJson, type RecordJson } from './render-parts.js';

const q = JSON.stringify;

interface Memberships {
  projects: Map<number, number>;
  groups: Map<number, number>;
}

/** Viewers' direct memberships, per members table (any membership change makes a new one). */
const membershipCaches = new WeakMap<PlatformState['members'], Map<number, Memberships>>();

/** One request's viewer's memberships and levels, read once. */
export class ViewerAccess {
  #levels?: Memberships;

  constructor(
    readonly fx: Fx,
    readonly viewer: UserRecord | null,
  ) {}

  /** Read per call: the request's write may come after the renderer was made. */
  get st(): PlatformState {
    return this.fx.store.state;
  }

  /**
   * The viewer's direct memberships: lists ask for every record, and a viewer with none (an admin,
   * usually) then needs no lookup at all. Kept across requests while the members table is unchanged.
   */
  memberships(): Memberships {
    if (this.#levels) return this.#levels;
    const st = this.st;
    const none = { projects: new Map<number, number>(), groups: new Map<number, number>() };
    if (!this.viewer) return (this.#levels = none);
    let byUser = membershipCaches.get(st.members);
    if (!byUser) membershipCaches.set(st.members, (byUser = new Map()));
    let out = byUser.get(this.viewer.id);
    if (!out) {
      out = none;
      for (const id of mget(st.idx.membersByUser, String(this.viewer.id))) {
        const m = tget(st.members, id);
        if (m) (m.source === 'project' ? out.projects : out.groups).set(m.source_id, m.access_level);
      }
      byUser.set(this.viewer.id, out);
    }
    return (this.#levels = out);
  }

  /** `projectAccess` for the request's (non-admin) viewer, from the membership maps. */
  access(p: Project): number {
    const v = this.viewer!;
    if (isPersonalOwner(p, v)) return ACCESS.OWNER;
    const { projects, groups } = this.memberships();
    let level = projects.get(p.id) ?? 0;
    if (groups.size === 0) return level;
    const st = this.st;
    if (p.namespace_kind === 'group')
      for (
        let g = tget(st.groups, p.namespace_id);
        g;
        g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id)
      )
        level = Math.max(level, groups.get(g.id) ?? 0);
    // Shares and group links count only for a member of some group: the slower core rule then decides.
    return iget(st.idx.sharesBy, String(p.id)) || st.groupLinks.size > 0 ? projectAccess(st, v, p) : level;
  }

  permissions(r: RecordJson, p: Project, directGroupOnly: boolean): string {
    const v = this.viewer;
    if (!v) return NO_PERMISSIONS;
    const { projects, groups } = this.memberships();
    let projectLevel = projects.size > 0 ? (projects.get(r.id) ?? 0) : 0;
    // The personal project's owner is its maintainer in the 13.x era.
    if (projectLevel === 0 && r.userNamespace && r.ownerId === v.id) projectLevel = ACCESS.MAINTAINER;
    let groupLevel = 0;
    if (!r.userNamespace && groups.size > 0)
      groupLevel = directGroupOnly ? (groups.get(r.namespaceId) ?? 0) : highestGroupLevel(this.st, p, v.id);
    if (projectLevel === 0 && groupLevel === 0) return NO_PERMISSIONS;
    return `{"project_access":${accessJson(projectLevel)},"group_access":${accessJson(groupLevel)}}`;
  }
}

/** `shared_with_groups`: the groups the project is shared with. */
export function sharedWithGroups(p: Project, st: PlatformState): string {
  // Most worlds share few projects: with no share at all, no lookup.
  if (st.shares.size === 0) return '[]';
  const ids = mget(st.idx.sharesBy, String(p.id));
  if (ids.length === 0) return '[]';
  const out: string[] = [];
  for (const id of ids) {
    const sh = tget(st.shares, id)!;
    const g = tget(st.groups, sh.group_id);
    if (!g) continue;
    out.push(
      `{"group_id":${g.id},"group_name":${q(g.name)},"group_full_path":${q(g.full_path)},"group_access_level":${sh.group_access},"expires_at":${q(sh.expires_at)}}`,
    );
  }
  return `[${out.join(',')}]`;
}
