/**
 * The user shapes of the API, built per viewer from user records. Field order is the platform's
 * (Grape exposes fields in declaration order, subclasses after their parents):
 *
 * - basic (`UserBasic`): lists for non-admins, authors and assignees elsewhere;
 * - user (`User`): `GET /users/:id` for non-admins;
 * - public (`UserPublic`): `GET /user` for non-admins;
 * - withAdmin (`UserWithAdmin`): lists for admins, `GET /user` for admins, create and update;
 * - details (`UserDetailsWithAdmin`): `GET /users/:id` for admins.
 */
import { createHash } from 'node:crypto';
import { state, type Ctx } from '../../core/context.js';
import { requestBase } from '../../core/pagination.js';
import type { RecordRenderings } from '../../core/render-cache.js';
import type { PlatformState, UserRecord } from '../../core/state.js';
import { highestRole, personalProjects } from './finder.js';
import { setting } from '../settings/model.js';

type Json = Record<string, unknown>;

const emailHashes = new WeakMap<UserRecord, string>();

function gravatarHash(u: UserRecord): string | null {
  let h = emailHashes.get(u);
  if (h === undefined) {
    const id = u.email.trim() || u.username.trim();
    if (!id) return null;
    h = createHash('md5').update(id.toLowerCase()).digest('hex');
    emailHashes.set(u, h);
  }
  return h;
}

/** Times as the platform renders them: ISO 8601 with milliseconds, UTC. */
function time(s: string | null): string | null {
  if (s === null || /\.\d{3}Z$/.test(s)) return s;
  const t = Date.parse(s);
  return Number.isNaN(t) ? s : new Date(t).toISOString();
}

/** The single-line Markdown pipeline of `bio_html`: text, HTML-escaped. */
function escapeHtml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (ch) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": '#39' }[ch]};`,
  );
}

/** The platform's `work_information` helper. */
function workInformation(u: UserRecord): string | null {
  const org = u.organization ?? '';
  if (u.job_title && org) return `${u.job_title} at ${org}`;
  return u.job_title || org || null;
}

const blocked = (u: UserRecord) => u.state === 'blocked' || u.state === 'ldap_blocked';

export interface RenderOptions {
  /** `with_custom_attributes=true` from a viewer allowed to read them. */
  customAttributes?: boolean;
}

/** Renders users for one request: computes the request-wide parts (base URL, tier, settings) once. */
export class UserRenderer {
  readonly base: string;
  readonly st: PlatformState;
  readonly viewer: UserRecord | null;
  readonly #gravatarHost: string | null;
  readonly #paid: boolean;
  readonly #kept: RecordRenderings<UserRecord>;
  /** What every user rendering reads besides its record and key: the settings (Gravatar). */
  readonly #deps: readonly unknown[];

  constructor(c: Ctx) {
    this.base = requestBase(c);
    this.st = state(c);
    this.viewer = c.get('viewer')?.user ?? null;
    const fx = c.get('fx');
    this.#paid = fx.tier() !== 'free';
    this.#kept = fx.renderings.kind<UserRecord>('user');
    this.#deps = [this.st.settings];
    this.#gravatarHost = !setting(this.st, 'gravatar_enabled')
      ? null
      : this.base.startsWith('https:')
        ? 'https://secure.gravatar.com'
        : 'https://www.gravatar.com';
  }

  /** An uploaded avatar, else the Gravatar URL the platform builds (size 40 at scale 2), else null. */
  avatarUrl(u: UserRecord): string | null {
    if (u.avatar_url) return u.avatar_url.startsWith('/') ? this.base + u.avatar_url : u.avatar_url;
    if (!this.#gravatarHost) return null;
    const h = gravatarHash(u);
    return h === null ? null : `${this.#gravatarHost}/avatar/${h}?s=80&d=identicon`;
  }

  webUrl(u: UserRecord): string {
    return `${this.base}/${u.username}`;
  }

  /** `UserBasic`. */
  basic(u: UserRecord, o: RenderOptions = {}): Json {
    const out: Json = {
      id: u.id,
      name: u.name,
      username: u.username,
      state: u.state,
      avatar_url: this.avatarUrl(u),
    };
    if (o.customAttributes)
      out.custom_attributes = Object.entries(u.custom_attributes).map(([key, value]) => ({ key, value }));
    out.web_url = this.webUrl(u);
    return out;
  }

  /** Whether the viewer may see the profile details (`read_user_profile`): private and blocked users hide them. */
  canReadProfile(u: UserRecord): boolean {
    const v = this.viewer;
    if (v && (v.admin || v.id === u.id)) return true;
    return !u.private_profile && !blocked(u);
  }

  /** `User`: the single-user shape. */
  user(u: UserRecord, o: RenderOptions = {}): Json {
    const out = this.basic(u, o);
    if (this.canReadProfile(u)) out.created_at = time(u.created_at);
    out.bio = u.bio;
    out.bio_html = escapeHtml(u.bio ?? '');
    out.location = u.location;
    out.public_email = u.public_email;
    out.skype = u.skype;
    out.linkedin = u.linkedin;
    out.twitter = u.twitter;
    out.website_url = u.website_url;
    out.organization = u.organization;
    out.job_title = u.job_title;
    out.bot = u.bot;
    out.work_information = workInformation(u);
    return out;
  }

  /** `UserPublic`: what a user sees of themselves. */
  public(u: UserRecord, o: RenderOptions = {}): Json {
    const out = this.user(u, o);
    out.last_sign_in_at = time(u.last_sign_in_at);
    out.confirmed_at = time(u.confirmed_at);
    out.last_activity_on = u.last_activity_on;
    out.email = u.email;
    out.theme_id = u.theme_id;
    out.color_scheme_id = u.color_scheme_id;
    out.projects_limit = u.projects_limit;
    out.current_sign_in_at = time(u.current_sign_in_at);
    out.identities = u.identities.map((i) =>
      i.provider === 'group_saml'
        ? { provider: i.provider, extern_uid: i.extern_uid, saml_provider_id: i.saml_provider_id }
        : { provider: i.provider, extern_uid: i.extern_uid },
    );
    out.can_create_group = u.can_create_group;
    out.can_create_project = this.#canCreateProject(u);
    out.two_factor_enabled = u.two_factor_enabled;
    out.external = u.external;
    out.private_profile = u.private_profile;
    out.commit_email = u.commit_email ?? u.email;
    if (this.#paid) {
      out.shared_runners_minutes_limit = u.shared_runners_minutes_limit;
      out.extra_shared_runners_minutes_limit = u.extra_shared_runners_minutes_limit;
    }
    return out;
  }

  /** `UserWithAdmin`. */
  withAdmin(u: UserRecord, o: RenderOptions = {}): Json {
    const out = this.#admin(u, o);
    out.current_sign_in_ip = u.current_sign_in_ip;
    out.last_sign_in_ip = u.last_sign_in_ip;
    return out;
  }

  /** `UserDetailsWithAdmin`. */
  details(u: UserRecord, o: RenderOptions = {}): Json {
    const out = this.#admin(u, o);
    out.highest_role = highestRole(this.st, u.id);
    out.current_sign_in_ip = u.current_sign_in_ip;
    out.last_sign_in_ip = u.last_sign_in_ip;
    if (this.#paid) {
      // Self-managed instances have no namespace subscription: no plan, no trial.
      out.plan = null;
      out.trial = false;
    }
    out.sign_in_count = u.sign_in_count;
    return out;
  }

  /*
   * The same shapes as UTF-8 bytes, kept per record (core renderings). What a shape reads besides the
   * record and the settings goes into its key as a value: the base URL, the tier, the viewer's right to
   * the profile, can_create_project and highest_role, so that a write elsewhere (a new project, a new
   * membership) leaves the renderings it does not change in place.
   */

  /** `UserBasic` as bytes. */
  basicBytes(u: UserRecord, o: RenderOptions = {}): Buffer<ArrayBuffer> {
    return this.#kept.bytes(u, `b|${+!!o.customAttributes}|${this.base}`, this.#deps, () =>
      JSON.stringify(this.basic(u, o)),
    );
  }

  /** `User` as bytes. */
  userBytes(u: UserRecord, o: RenderOptions = {}): Buffer<ArrayBuffer> {
    const key = `u|${+!!o.customAttributes}${+this.canReadProfile(u)}|${this.base}`;
    return this.#kept.bytes(u, key, this.#deps, () => JSON.stringify(this.user(u, o)));
  }

  /** `UserPublic` as bytes. */
  publicBytes(u: UserRecord): Buffer<ArrayBuffer> {
    const key = `p|${+this.#paid}${+this.#canCreateProject(u)}|${this.base}`;
    return this.#kept.bytes(u, key, this.#deps, () => JSON.stringify(this.public(u)));
  }

  /** `UserWithAdmin` as bytes. */
  withAdminBytes(u: UserRecord, o: RenderOptions = {}): Buffer<ArrayBuffer> {
    const key = `a|${+!!o.customAttributes}${+this.#paid}${+this.#canCreateProject(u)}|${this.base}`;
    return this.#kept.bytes(u, key, this.#deps, () => JSON.stringify(this.withAdmin(u, o)));
  }

  /** `UserDetailsWithAdmin` as bytes. */
  detailsBytes(u: UserRecord, o: RenderOptions = {}): Buffer<ArrayBuffer> {
    const key = `d|${+!!o.customAttributes}${+this.#paid}${+this.#canCreateProject(u)}${highestRole(this.st, u.id)}|${this.base}`;
    return this.#kept.bytes(u, key, this.#deps, () => JSON.stringify(this.details(u, o)));
  }

  #canCreateProject(u: UserRecord): boolean {
    return u.projects_limit - (personalProjects(this.st).get(u.id)?.length ?? 0) > 0;
  }

  #admin(u: UserRecord, o: RenderOptions): Json {
    const out = this.public(u, o);
    out.is_admin = u.admin;
    out.note = u.note;
    return out;
  }
}

/** A renderer for this request (one per request: it reads the base URL and tier once). */
export const userRenderer = (c: Ctx) => new UserRenderer(c);
