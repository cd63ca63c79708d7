/**
 * The project shapes of the API, in the platform's field order (Grape exposes fields in declaration
 * order, subclasses after their parents, EE additions after the CE ones):
 *
 * - basic (`BasicProjectDetails`): anonymous callers, `simple=true`, `forked_from_project`;
 * - full (`Project`): create, update, fork, star, archive; GroupDetail's `projects`;
 * - withAccess (`ProjectWithAccess`): lists and `GET /projects/:id` for signed-in callers.
 *
 * Rendering is the hot path of every project list, so what is particular to a record (its names, paths,
 * URLs, times) is built once into one flat string and cached by record identity (immer keeps unchanged
 * records identical, so the cache never goes stale); everything records share (default settings, flag
 * combinations, namespaces) is held once and referenced. A request joins those strings with what depends
 * on the viewer (permissions, members-only features, admin fields). A record costs about one copy of its
 * own text, so a world of 100,000 projects caches in about 100 MB.
 *
 * Records are kept from their second ask on (the budget's admission counts): a client walking a large
 * world reads most records once, and a record read once is rendered straight into its answer (a page's
 * renderings that are not kept are joined and encoded together), leaving only young garbage.
 *
 * The pieces are in render-parts.ts, the `namespace` JSON in render-namespace.ts, what is particular to
 * the viewer (memberships, `permissions`, `shared_with_groups`) in render-viewer.ts.
 */
import { ACCESS, canReadProject } from '../../core/access.js';
import { type Ctx, type Fx } from '../../core/context.js';
import { requestBase } from '../../core/pagination.js';
import { keptBytes } from '../../core/respond.js';
import { type PlatformState, type ProjectRecord, type UserRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { setting } from '../settings/model.js';
import { userRenderer, type UserRenderer } from '../users/entities.js';
import { authorizationLevel, canDownloadCode, featureAvailable } from './access.js';
import { PROJECT_DEFAULTS, type Project } from './model.js';
import {
  EMPTY_ARRAY,
  FEATURE_FLAGS,
  IS_DEFAULT,
  LICENSE,
  NO_CUSTOM,
  NamespaceJson,
  RecordJson,
  SHARED_BUILDERS,
  SHARED_PIECES,
  Shared,
  SharedPiece,
  VIEWS_PER_RECORD,
  disabledFeatures,
  flat,
  utf8,
  hostOf,
  flagsJson,
  linkTemplates,
  policyHeadJson,
  punctuation,
  recordHeld,
  records,
  registryJson,
  sharedCache,
  viewHeld,
  withoutBranch,
} from './render-parts.js';
import type { ProjectEntityOptions, ProjectShape, RenderSlot, View } from './render-types.js';
import { repositoryBytes } from '../repository/contents.js';
import { namespaceJson } from './render-namespace.js';
import { PROJECT_TOPICS } from './versions.js';
import { has, type Minor } from '../../core/versions.js';
import { ViewerAccess, sharedWithGroups } from './render-viewer.js';
import { dayAfter, isoTime, projectStatistics } from './statistics.js';

export type { ProjectEntityOptions, ProjectShape, RenderSlot } from './render-types.js';
export { isoTime, projectLanguages, projectStatistics, type ProjectStatistics } from './statistics.js';

const q = JSON.stringify;

const sumHeld = (views: readonly View[]) => views.reduce((n, v) => n + viewHeld(v), 0);

/** Renders projects for one request: the request-wide facts (base URL, tier, viewer) are read once. */
export class ProjectRenderer {
  readonly base: string;
  readonly host: string;
  readonly viewer: UserRecord | null;
  readonly admin: boolean;
  readonly paid: boolean;
  /** This instance's release, and the fields it has (projects/versions.ts). */
  readonly minor: Minor;
  readonly #topics: boolean;
  #users?: UserRenderer;
  readonly #viewerAccess: ViewerAccess;
  #shared_?: Shared;
  readonly #fx: Fx;
  #links?: string[][];
  /** The base URL and host as JSON string contents (escaped, without quotes). */
  readonly #escapedBase: string;
  readonly #escapedHost: string;

  constructor(readonly c: Ctx) {
    this.#fx = c.get('fx');
    this.base = requestBase(c);
    this.host = hostOf(this.base);
    this.#escapedBase = q(this.base).slice(1, -1);
    this.#escapedHost = q(this.host).slice(1, -1);
    this.viewer = c.get('viewer')?.user ?? null;
    this.admin = this.viewer?.admin === true;
    this.paid = this.#fx.tier() !== 'free';
    this.minor = this.#fx.gitlab();
    this.#topics = has(c, PROJECT_TOPICS);
    this.#viewerAccess = new ViewerAccess(this.#fx, this.viewer);
  }

  /** Read per call: a renderer made before the request's write must see the written state. */
  get st(): PlatformState {
    return this.#fx.store.state;
  }

  get users(): UserRenderer {
    return (this.#users ??= userRenderer(this.c));
  }

  /**
   * The record's own JSON for this request's namespace JSON and tier, built on first use. `slot` is a
   * list key's place for it: a hit there needs neither the record nor the id lookup.
   */
  #record(p: Project, st: PlatformState, slot?: RenderSlot): RecordJson {
    const hit = (slot?.rendered as RecordJson | undefined) ?? records.get(p);
    if (hit && hit.record === p && hit.paid === this.paid && hit.minor === this.minor) {
      const ns = hit.ns;
      // The same record in the same groups (or users) table has the same namespace records.
      if (
        (ns.base === this.base &&
          ns.settings === st.settings &&
          ns.table === (hit.userNamespace ? st.users : st.groups) &&
          ns.deps.length > 0) ||
        namespaceJson(this.st, this.base, this.users, p) === ns
      )
        return this.#kept(hit, slot);
    }
    const ns = namespaceJson(this.st, this.base, this.users, p);
    // Kept from the second ask on: a record read once (a client walking the world) is rendered and
    // forgotten, young garbage only; what a kept one costs more (flat, interned text) pays from then on.
    if (this.#fx.renderings.budget.ask(p.id) < 2) return this.#build(p, ns, false);
    return this.#kept(this.#build(p, ns, true), slot, true);
  }

  /** A record's JSON for namespace JSON `ns`; `keep`: made to last (its text flat, shared pieces interned). */
  #build(p: Project, ns: NamespaceJson, keep: boolean): RecordJson {
    const base = this.base;
    const path = q(p.path_with_namespace);
    // JSON escapes character by character, and none of these joins pairs surrogates: the URLs are the
    // escaped pieces joined, with no string made and escaped again for each.
    const inPath = path.slice(1, -1);
    const head = `{"id":${p.id},"description":${q(p.description)},"name":${q(p.name)},"name_with_namespace":${q(`${ns.fullName} / ${p.name}`)},"path":${q(p.path)},"path_with_namespace":${path},"created_at":${q(isoTime(p.created_at))}`;
    const branch = `,"default_branch":${q(p.default_branch)}`;
    const url = this.#escapedBase;
    // 14.0's `topics` repeats `tag_list`, which stays as its deprecated alias.
    const tags = q(p.tag_list);
    const mid = `,"tag_list":${tags}${this.#topics ? `,"topics":${tags}` : ''},"ssh_url_to_repo":"git@${this.#escapedHost}:${inPath}.git","http_url_to_repo":"${url}/${inPath}.git","web_url":"${url}/${inPath}","readme_url":null`;
    const tail = `,"avatar_url":${q(p.avatar_url ? (p.avatar_url.startsWith('/') ? base + p.avatar_url : p.avatar_url) : null)},"forks_count":${p.forks_count},"star_count":${p.star_count},"last_activity_at":${q(isoTime(p.last_activity_at))},"namespace":`;
    const policy = p.container_expiration_policy;
    // A computed time is ISO already (toISOString): only a stored one needs isoTime.
    const stored = policy.next_run_at as string | null | undefined;
    const nextRun = typeof stored === 'string' ? isoTime(stored) : dayAfter(p.created_at);
    let custom: Partial<Record<SharedPiece, string>> = NO_CUSTOM;
    for (let i = 0; i < SHARED_PIECES.length; i++) {
      const k = SHARED_PIECES[i]!;
      if (!IS_DEFAULT[k](p)) {
        if (custom === NO_CUSTOM) custom = {};
        const piece = SHARED_BUILDERS[k](p, this);
        custom[k] = keep ? flat(piece) : piece;
      }
    }
    const text = head + branch + mid + tail;
    return new RecordJson(
      p,
      ns,
      this.paid,
      this.minor,
      keep ? flat(text) : text,
      head.length,
      head.length + branch.length,
      head.length + branch.length + mid.length,
      flagsJson(p),
      registryJson(p),
      policyHeadJson(policy),
      q(nextRun),
      custom,
      p.namespace_kind === 'user',
      disabledFeatures(p),
      p.archived,
      p.creator_id,
      p.forked_from_project_id,
      p.id,
      p.namespace_id,
      p.owner_id,
    );
  }

  /**
   * A record's JSON as just used: the newest in the budget, kept by record and on the list key, when the
   * budget admits it; else it serves this request only.
   */
  #kept(r: RecordJson, slot: RenderSlot | undefined, counted = false): RecordJson {
    const budget = this.#fx.renderings.budget;
    if (r.cached) budget.touch(r);
    else if (budget.add(r, recordHeld(r) + (r.views ? sumHeld(r.views) : 0), counted))
      records.set(r.record, r);
    else {
      // Not kept anywhere: whatever still points to it lets go, so that only the budget holds renderings.
      if (records.get(r.record) === r) records.delete(r.record);
      if (slot && slot.rendered === r) slot.rendered = slot.view = undefined;
      r.views = undefined;
      return r;
    }
    if (slot && slot.rendered !== r) {
      slot.rendered = r;
      r.slot = slot;
    }
    return r;
  }

  /** The shared pieces of a default-valued project, for this request's settings and tier. */
  #shared(): Shared {
    if (this.#shared_) return this.#shared_;
    const st = this.st;
    const key = this.paid ? 'paid' : 'free';
    let byTier = sharedCache.get(st.settings);
    if (!byTier) sharedCache.set(st.settings, (byTier = {}));
    let out = byTier[key];
    if (!out) {
      const d = PROJECT_DEFAULTS as unknown as Project;
      const pieces = {} as Record<SharedPiece, string>;
      for (const k of Object.keys(SHARED_BUILDERS) as SharedPiece[]) pieces[k] = SHARED_BUILDERS[k](d, this);
      out = { pieces, afterPolicy: [], beforeRunners: [], afterRunners: [], afterShares: [] };
      byTier[key] = out;
    }
    return (this.#shared_ = out);
  }

  /** `auto_devops_enabled`: the project's own choice, else the instance setting (on by default). */
  autoDevops(p: Project): boolean {
    return p.auto_devops_enabled ?? setting(this.st, 'auto_devops_enabled');
  }

  /** The entity as a JSON string. */
  json(record: ProjectRecord, o: ProjectEntityOptions = {}): string {
    const parts: string[] = [];
    const v = this.#view(record as Project, this.st, o, this.#viewKey(o), parts);
    return v ? v.json.toString('utf8') : parts.join('');
  }

  /**
   * The entity's JSON for a response: a kept rendering's UTF-8 bytes, else the string, which a Node server
   * writes as UTF-8 itself (the same bytes: both replace a lone surrogate alike) without an encoding here.
   */
  body(record: ProjectRecord, o: ProjectEntityOptions = {}): string | Buffer<ArrayBuffer> {
    const parts: string[] = [];
    const v = this.#view(record as Project, this.st, o, this.#viewKey(o), parts);
    return v ? v.json : parts.join('');
  }

  /** What a rendering depends on besides the record and tables: the viewer and the options. */
  #viewKey(o: ProjectEntityOptions): string {
    return `${this.viewer?.id ?? 0}|${o.shape ?? 'full'}|${+!!o.statistics}${+!!o.license}${+!!o.customAttributes}${+!!o.canAdminProject}${+!!o.directGroupAccess}`;
  }

  /** Whether a kept rendering stands for this request: same key, viewer, base URL, tier and tables. */
  #fresh(v: View | undefined, key: string, st: PlatformState): v is View {
    return (
      v !== undefined &&
      v.key === key &&
      v.viewer === this.viewer &&
      v.projects === st.projects &&
      v.members === st.members &&
      v.shares === st.shares &&
      v.groupLinks === st.groupLinks &&
      v.groups === st.groups &&
      v.users === st.users &&
      v.settings === st.settings &&
      (v.refs === undefined || v.refs === st.refs) &&
      v.paid === this.paid &&
      v.minor === this.minor &&
      v.base === this.base
    );
  }

  /**
   * One entity's rendering for this viewer and these options. A record keeps its last few, so that a
   * client reading the same projects again gets the same bytes without a rebuild or an encoding; any
   * write to the tables they were made from makes a fresh one. Kept as UTF-8 (outside the JS heap, which
   * the garbage collector then need not trace). A record that is not kept keeps no rendering either: its
   * JSON is appended to `parts` (nothing is returned), to be joined and encoded with what surrounds it.
   */
  #view(
    p: Project,
    st: PlatformState,
    o: ProjectEntityOptions,
    key: string,
    parts: string[],
    slot?: RenderSlot,
  ): View | undefined {
    const r = this.#record(p, st, slot);
    const views = r.views;
    const i = views ? views.findIndex((x) => x.key === key) : -1;
    const v = i >= 0 ? views![i] : undefined;
    if (this.#fresh(v, key, st)) return v;
    if (!r.cached) {
      this.#write(parts, p, o, r);
      return undefined;
    }
    const own: string[] = [];
    this.#write(own, p, o, r);
    const made: View = {
      key,
      base: this.base,
      paid: this.paid,
      minor: this.minor,
      viewer: this.viewer,
      projects: st.projects,
      members: st.members,
      shares: st.shares,
      groupLinks: st.groupLinks,
      groups: st.groups,
      users: st.users,
      settings: st.settings,
      // Statistics show the repository's size: a moved ref anywhere makes a fresh rendering.
      refs: o.statistics === true ? st.refs : undefined,
      json: keptBytes(own.join('')),
    };
    // One per key; a record read by many viewers starts over rather than growing.
    let delta = viewHeld(made);
    if (!views || views.length >= VIEWS_PER_RECORD) {
      if (views) delta -= sumHeld(views);
      r.views = [made];
    } else if (i >= 0) {
      delta -= viewHeld(views[i]!);
      views[i] = made;
    } else views.push(made);
    this.#fx.renderings.budget.charge(r, delta);
    return made;
  }

  /** The entity as an object. */
  entity(p: ProjectRecord, o: ProjectEntityOptions = {}): Record<string, unknown> {
    return JSON.parse(this.json(p, o)) as Record<string, unknown>;
  }

  /**
   * A JSON array of the entities of records that come with a slot for their cached JSON (the list keys):
   * as its pieces (brackets, commas and the cached renderings), which a response writes or joins; or, when
   * no rendering on the page is kept, as one string, which a Node server writes as UTF-8 itself.
   */
  listChunks(
    items: readonly RenderSlot[],
    o: ProjectEntityOptions = {},
  ): { chunks: Buffer<ArrayBuffer>[]; size: number } | { text: string } {
    if (items.length === 0) return { chunks: [EMPTY_ARRAY], size: EMPTY_ARRAY.length };
    const st = this.st;
    const key = this.#viewKey(o);
    const chunks: Buffer<ArrayBuffer>[] = [];
    let size = 0;
    // The text between kept renderings (punctuation and renderings that are not kept), encoded in one go.
    let pending: string[] = [];
    const flush = () => {
      const b = pending.length === 1 ? punctuation(pending[0]!) : undefined;
      const bytes = b ?? utf8(pending.join(''));
      chunks.push(bytes);
      size += bytes.length;
      pending = [];
    };
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      pending.push(i === 0 ? '[' : ',');
      let v = item.view as View | undefined;
      if (!this.#fresh(v, key, st)) {
        v = this.#view(item.p as Project, st, o, key, pending, item);
        // Kept on the key only along with a record JSON the budget keeps.
        const r = item.rendered as RecordJson | undefined;
        item.view = v && r?.cached && r.views?.includes(v) ? v : undefined;
      } else if (item.rendered) this.#fx.renderings.budget.touch(item.rendered as RecordJson);
      if (v) {
        flush();
        chunks.push(v.json);
        size += v.json.length;
      }
    }
    pending.push(']');
    if (chunks.length === 0) return { text: pending.join('') };
    flush();
    return { chunks, size };
  }

  /** Appends the pieces of one entity's JSON to `parts`. */
  #write(parts: string[], p: Project, o: ProjectEntityOptions, known?: RecordJson): void {
    const st = this.st;
    const viewer = this.viewer;
    const admin = this.admin;
    const r = known ?? this.#record(p, st);
    // Admins may do everything a membership would allow: their level changes no field, and only a
    // disabled feature is closed to them (read from the cache entry, without touching the record).
    const access = viewer && !admin ? this.#viewerAccess.access(p) : admin ? ACCESS.OWNER : 0;
    const download = admin ? (r.disabled & 32) === 0 : canDownloadCode(p, viewer, access);
    const shape = o.shape ?? 'full';

    const t = r.text;
    if (o.license) {
      const left = t.slice(0, r.licenseAt);
      parts.push(download ? left : withoutBranch(r, left), LICENSE, t.slice(r.licenseAt));
    } else parts.push(download ? t : withoutBranch(r, t));
    parts.push(r.ns.json);
    if (o.customAttributes)
      parts.push(
        `,"custom_attributes":${q(Object.entries(p.custom_attributes).map(([key, value]) => ({ key, value })))}`,
      );
    if (shape === 'basic') {
      parts.push('}');
      return;
    }

    let features: number;
    if (admin) features = ~r.disabled & 31;
    else
      features =
        +featureAvailable(p.issues_access_level, 'issues', access, admin) |
        (+featureAvailable(p.merge_requests_access_level, 'merge_requests', access, admin) << 1) |
        (+featureAvailable(p.wiki_access_level, 'wiki', access, admin) << 2) |
        (+featureAvailable(p.builds_access_level, 'builds', access, admin) << 3) |
        (+featureAvailable(p.snippets_access_level, 'snippets', access, admin) << 4);
    const issues = (features & 1) !== 0;
    const mrs = (features & 2) !== 0;
    const canMr = !!viewer && mrs && !r.archived;
    const canAdmin = o.canAdminProject === true;
    const shared = this.#shared();
    const sh = shared.pieces;
    const cu = r.custom;
    const plain = cu === NO_CUSTOM;

    const links = (this.#links ??= linkTemplates(this.base))[features & 3]!;
    const id = String(r.id);
    parts.push(links[0]!);
    for (let i = 1; i < links.length; i++) parts.push(id, links[i]!);
    parts.push(r.flags, r.ns.owner, r.registry, r.policyHead, r.nextRun);
    if (plain) {
      const k = features | (+canMr << 5);
      parts.push(
        (shared.afterPolicy[k] ??= flat(
          '}' +
            FEATURE_FLAGS[features]! +
            sh.b +
            `,"can_create_merge_request_in":${canMr}` +
            sh.c +
            ',"creator_id":',
        )),
      );
    } else
      parts.push(
        '}',
        FEATURE_FLAGS[features]!,
        cu.b ?? sh.b,
        `,"can_create_merge_request_in":${canMr}`,
        cu.c ?? sh.c,
        ',"creator_id":',
      );
    parts.push(String(r.creatorId));

    if (r.forkedFrom !== null) {
      const parent = tget(st.projects, r.forkedFrom);
      if (parent && canReadProject(st, viewer, parent)) {
        parts.push(',"forked_from_project":');
        this.#write(parts, parent as Project, {
          shape: 'basic',
          license: o.license,
          customAttributes: o.customAttributes,
        });
      }
    }
    if (plain) {
      parts.push(
        (shared.beforeRunners[+canAdmin | (+issues << 1)] ??= flat(
          sh.d + (canAdmin ? sh.importError : '') + (issues ? sh.openIssues : ''),
        )),
      );
      if (canAdmin) parts.push(',"runners_token":', q(p.runners_token));
      parts.push(
        (shared.afterRunners[+canAdmin | (+download << 1)] ??= flat(
          sh.e +
            (canAdmin ? sh.gitStrategy : '') +
            sh.f +
            (download ? sh.ciConfig : '') +
            ',"shared_with_groups":',
        )),
      );
    } else {
      parts.push(cu.d ?? sh.d);
      if (canAdmin) parts.push(cu.importError ?? sh.importError);
      if (issues) parts.push(cu.openIssues ?? sh.openIssues);
      if (canAdmin) parts.push(',"runners_token":', q(p.runners_token));
      parts.push(cu.e ?? sh.e);
      if (canAdmin) parts.push(cu.gitStrategy ?? sh.gitStrategy);
      parts.push(cu.f ?? sh.f);
      if (download) parts.push(cu.ciConfig ?? sh.ciConfig);
      parts.push(',"shared_with_groups":');
    }
    parts.push(sharedWithGroups(p, st));
    const statistics = o.statistics === true && (admin || access >= ACCESS.REPORTER);
    if (plain && !statistics)
      parts.push((shared.afterShares[+admin] ??= flat(sh.g + sh.h + (admin ? sh.storage : '') + sh.ee)));
    else {
      parts.push(cu.g ?? sh.g);
      if (statistics) parts.push(`,"statistics":${q(projectStatistics(p.id, repositoryBytes(st, p)))}`);
      parts.push(cu.h ?? sh.h);
      if (admin) parts.push(cu.storage ?? sh.storage);
      parts.push(cu.ee ?? sh.ee);
    }
    if (shape === 'withAccess')
      parts.push(',"permissions":', this.#viewerAccess.permissions(r, p, o.directGroupAccess === true));
    parts.push('}');
  }

  /** The viewer's authorization on a project (`min_access_level`, `membership`). */
  authorization(p: ProjectRecord): number {
    return authorizationLevel(this.st, this.viewer, p as Project);
  }
}

const RENDERER = Symbol('projectRenderer');

/** The renderer of this request (kept on the context: one per request, gone with it). */
export function projectRenderer(c: Ctx): ProjectRenderer {
  const holder = c as unknown as { [RENDERER]?: ProjectRenderer };
  return (holder[RENDERER] ??= new ProjectRenderer(c));
}

/**
 * One project as the given entity for this request's viewer (default `full`, the `Project` entity that
 * GroupDetail's `projects` and `shared_projects` use).
 */
export function projectEntity(
  c: Ctx,
  p: ProjectRecord,
  opts: {
    shape?: ProjectShape;
    statistics?: boolean;
    license?: boolean;
    customAttributes?: boolean;
  } = {},
): Record<string, unknown> {
  return projectRenderer(c).entity(p, opts);
}
