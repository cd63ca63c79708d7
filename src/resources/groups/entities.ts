/**
 * The group shapes of the API, in the platform's field order (Grape exposes fields in declaration order,
 * subclasses after their parents, EE additions after the CE ones):
 *
 * - group (`Group`): lists, `GET /groups/:id?with_projects=false`;
 * - detail (`GroupDetail`): `GET /groups/:id`, create and update;
 * - member (`Member`): the members API.
 */
import { canReadGroup, canReadProject } from '../../core/access.js';
import { state, type Ctx } from '../../core/context.js';
import { requestBase } from '../../core/pagination.js';
import type { RecordRenderings } from '../../core/render-cache.js';
import type { MemberRecord, PlatformState, ProjectRecord, UserRecord } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import { projectEntity, projectStatistics } from '../projects/entities.js';
import { repositoryBytes } from '../repository/contents.js';
import { userRenderer, type UserRenderer } from '../users/entities.js';
import type { Group } from './model.js';

type Json = Record<string, unknown>;

/** Times as the platform renders them: ISO 8601 with milliseconds, UTC. */
function time(s: string): string {
  if (/\.\d{3}Z$/.test(s)) return s;
  const t = Date.parse(s);
  return Number.isNaN(t) ? s : new Date(t).toISOString();
}

/** GroupDetail's `projects` and `shared_projects` hold at most this many (`GroupProjectsFinder::DEFAULT_PROJECTS_LIMIT`). */
const PROJECTS_LIMIT = 100;

const STATISTICS = [
  'storage_size',
  'repository_size',
  'wiki_size',
  'lfs_objects_size',
  'job_artifacts_size',
  'packages_size',
  'snippets_size',
] as const;

export interface GroupRenderOptions {
  /** `statistics=true` from an admin (lists only). */
  statistics?: boolean;
  /** `with_custom_attributes=true` from an admin. */
  customAttributes?: boolean;
}

export interface DetailRenderOptions extends GroupRenderOptions {
  /** The endpoint's `user_can_admin_group` option: only `GET /groups/:id` passes it. */
  canAdminGroup?: boolean;
}

const NO_DEPS: readonly unknown[] = [];

/** Renders groups for one request: the request-wide parts (base URL, tier, viewer) are read once. */
export class GroupRenderer {
  readonly base: string;
  readonly st: PlatformState;
  readonly viewer: UserRecord | null;
  readonly paid: boolean;
  readonly #c: Ctx;
  #users?: UserRenderer;
  readonly #kept: RecordRenderings<Group>;

  constructor(c: Ctx) {
    this.#c = c;
    this.base = requestBase(c);
    this.st = state(c);
    this.viewer = c.get('viewer')?.user ?? null;
    const fx = c.get('fx');
    this.paid = fx.tier() !== 'free';
    this.#kept = fx.renderings.kind<Group>('group');
  }

  webUrl(g: Group): string {
    return `${this.base}/groups/${g.full_path}`;
  }

  avatarUrl(g: Group): string | null {
    const a = g.avatar_url;
    return typeof a === 'string' && a !== '' ? (a.startsWith('/') ? this.base + a : a) : null;
  }

  /** `Group`. */
  group(g: Group, o: GroupRenderOptions = {}): Json {
    const out: Json = {
      id: g.id,
      web_url: this.webUrl(g),
      name: g.name,
      path: g.path,
      description: g.description,
      visibility: g.visibility,
      share_with_group_lock: g.share_with_group_lock,
      require_two_factor_authentication: g.require_two_factor_authentication,
      two_factor_grace_period: g.two_factor_grace_period,
      project_creation_level: g.project_creation_level,
      auto_devops_enabled: g.auto_devops_enabled,
      subgroup_creation_level: g.subgroup_creation_level,
      emails_disabled: g.emails_disabled,
      mentions_disabled: g.mentions_disabled,
      lfs_enabled: g.lfs_enabled,
      default_branch_protection: g.default_branch_protection,
      avatar_url: this.avatarUrl(g),
      request_access_enabled: g.request_access_enabled,
      full_name: g.full_name,
      full_path: g.full_path,
      created_at: time(g.created_at),
      parent_id: g.parent_id,
    };
    if (o.customAttributes)
      out.custom_attributes = Object.entries(g.custom_attributes ?? {}).map(([key, value]) => ({
        key,
        value,
      }));
    if (o.statistics) out.statistics = this.statistics(g);
    if (this.paid) {
      out.ldap_cn = g.ldap_cn;
      out.ldap_access = g.ldap_access;
      out.file_template_project_id = g.file_template_project_id;
      out.marked_for_deletion_on = g.marked_for_deletion_on;
    }
    return out;
  }

  /**
   * `Group` as UTF-8 bytes, kept per record (core renderings). The shape reads nothing but the record
   * (full path and full name are kept on it, and renames and transfers rewrite every group below) and the
   * values in the key; statistics sum the group's projects, so a shape with them is built every time.
   */
  groupBytes(g: Group, o: GroupRenderOptions = {}): Buffer<ArrayBuffer> {
    if (o.statistics) return Buffer.from(JSON.stringify(this.group(g, o)));
    const key = `g|${+!!o.customAttributes}${+this.paid}|${this.base}`;
    return this.#kept.bytes(g, key, NO_DEPS, () => JSON.stringify(this.group(g, o)));
  }

  /** `GroupDetail`: the group with its (deprecated) project lists. */
  detail(g: Group, o: DetailRenderOptions = {}): Json {
    const out = this.group(g, o);
    out.shared_with_groups = this.sharedWithGroups(g);
    if (o.canAdminGroup) out.runners_token = g.runners_token;
    out.projects = this.#projects(mget(this.st.idx.projectsByNamespace, `group:${g.id}`));
    const shared: number[] = [];
    for (const id of mget(this.st.idx.sharesBy, `g${g.id}`)) {
      const sh = tget(this.st.shares, id);
      if (sh) shared.push(sh.project_id);
    }
    out.shared_projects = this.#projects(shared);
    if (this.paid) {
      out.shared_runners_minutes_limit = g.shared_runners_minutes_limit;
      out.extra_shared_runners_minutes_limit = g.extra_shared_runners_minutes_limit;
    }
    return out;
  }

  /**
   * `SharedGroupWithGroup` of the group's links (`shared_with_group_links.public_or_visible_to_user`):
   * the groups it is shared with that the viewer may see, in the order the links were made.
   */
  sharedWithGroups(g: Group): Json[] {
    const out: Json[] = [];
    const ids = [...mget(this.st.idx.groupLinksBy, `s${g.id}`)].sort((a, b) => a - b);
    for (const id of ids) {
      const link = tget(this.st.groupLinks, id)!;
      const w = tget(this.st.groups, link.shared_with_group_id);
      if (!w || !canReadGroup(this.st, this.viewer, w)) continue;
      out.push({
        group_id: w.id,
        group_name: w.name,
        group_full_path: w.full_path,
        group_access_level: link.group_access,
        expires_at: link.expires_at,
      });
    }
    return out;
  }

  /** The projects a viewer may read, newest first, at most 100, as `Entities::Project`. */
  #projects(ids: number[]): Json[] {
    const out: Json[] = [];
    const sorted = [...new Set(ids)].sort((a, b) => b - a);
    for (const id of sorted) {
      const p = tget(this.st.projects, id) as ProjectRecord | undefined;
      if (!p || !canReadProject(this.st, this.viewer, p)) continue;
      out.push(projectEntity(this.#c, p, { shape: 'full' }));
      if (out.length >= PROJECTS_LIMIT) break;
    }
    return out;
  }

  /** The sums of the statistics of the group's own projects (`with_statistics`). */
  statistics(g: Group): Json {
    const sums: Record<string, number> = {};
    for (const k of STATISTICS) sums[k] = 0;
    for (const id of mget(this.st.idx.projectsByNamespace, `group:${g.id}`)) {
      const s = projectStatistics(id, repositoryBytes(this.st, tget(this.st.projects, id)!));
      for (const k of STATISTICS) sums[k]! += s[k];
    }
    return sums;
  }

  /** `Member`: the user's basic shape, then the membership. */
  member(m: MemberRecord): Json {
    const u = tget(this.st.users, m.user_id)!;
    this.#users ??= userRenderer(this.#c);
    const out = this.#users.basic(u);
    out.access_level = m.access_level;
    out.expires_at = m.expires_at;
    return out;
  }
}

/** A renderer for this request. */
export const groupRenderer = (c: Ctx) => new GroupRenderer(c);
