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
import { hash } from 'node:crypto';
import { state, type Ctx } from '../../core/context.js';
import { requestBase } from '../../core/pagination.js';
import type { RecordRenderings, Renderings } from '../../core/render-cache.js';
import { isBlocked, type PlatformState, type UserRecord } from '../../core/state.js';
import { highestRole, personalProjects } from './finder.js';
import { setting } from '../settings/model.js';

type Json = Record<string, unknown>;

const emailHashes = new WeakMap<UserRecord, string>();

/** The Gravatar hash of a user's identity. */
function gravatarDigest(u: UserRecord): string | null {
  const id = u.email.trim() || u.username.trim();
  // The one-shot digest: a Hash object per user was most of a cold user rendering.
  return id ? hash('md5', id.toLowerCase(), 'hex') : null;
}

/** The Gravatar hash, remembered per user for renderings that are not kept (members, authors). */
function gravatarHash(u: UserRecord): string | null {
  let h = emailHashes.get(u);
  if (h === undefined) {
    const digest = gravatarDigest(u);
    if (digest === null) return null;
    emailHashes.set(u, (h = digest));
  }
  return h;
}

/** Times as the platform renders them: ISO 8601 with milliseconds, UTC. */
function time(s: string | null): string | null {
  if (s === null || isIsoMillis(s)) return s;
  const t = Date.parse(s);
  return Number.isNaN(t) ? s : new Date(t).toISOString();
}

const isDigit = (c: number) => c >= 48 && c <= 57;

/** `/\.\d{3}Z$/` without a regular expression: most stored times already end so. */
function isIsoMillis(s: string): boolean {
  const n = s.length;
  return (
    n >= 5 &&
    s.charCodeAt(n - 1) === 90 &&
    s.charCodeAt(n - 5) === 46 &&
    isDigit(s.charCodeAt(n - 4)) &&
    isDigit(s.charCodeAt(n - 3)) &&
    isDigit(s.charCodeAt(n - 2))
  );
}

const HTML_SPECIAL = /[&<>"']/;

/** The single-line Markdown pipeline of `bio_html`: text, HTML-escaped. */
function escapeHtml(s: string): string {
  if (!HTML_SPECIAL.test(s)) return s;
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

/**
 * What `JSON.stringify` escapes in a string: quotes, backslashes, control characters and lone surrogates
 * (any surrogate here: a pair goes the slow way and comes out as it is).
 */
// eslint-disable-next-line no-control-regex -- control characters are what JSON escapes
const JSON_SPECIAL = /["\\\u0000-\u001f\ud800-\udfff]/;

/** Thrown by `j` on a value the string builders do not render; the caller stringifies the object instead. */
class Unrenderable extends Error {}

/**
 * A JSON value as `JSON.stringify` writes it inside an object, for the values user records hold
 * (strings, finite numbers, booleans, null). Anything else (an undefined field, which `JSON.stringify`
 * would leave out, a nested object) sends the whole shape back to the object path.
 */
function j(v: unknown): string {
  switch (typeof v) {
    case 'string':
      // A string with nothing to escape is itself between quotes: testing for that is cheaper than
      // `JSON.stringify`, and most values (names, URLs, times, e-mails) have nothing to escape.
      return JSON_SPECIAL.test(v) ? JSON.stringify(v) : `"${v}"`;
    case 'number':
      if (Number.isFinite(v)) return String(v);
      break;
    case 'boolean':
      return v ? 'true' : 'false';
    default:
      if (v === null) return 'null';
  }
  throw new Unrenderable();
}

/** The string builder's JSON, or the object's through `JSON.stringify` when a value is unusual. */
function built(fast: () => string, slow: () => Json): string {
  try {
    return fast();
  } catch (e) {
    if (e instanceof Unrenderable) return JSON.stringify(slow());
    throw e;
  }
}

const blocked = (u: UserRecord) => isBlocked(u);

export interface RenderOptions {
  /** `with_custom_attributes=true` from a viewer allowed to read them. */
  customAttributes?: boolean;
}

/** What a renderer reads of its request (given directly outside a request, as in tests). */
export interface UserRendererParts {
  base: string;
  st: PlatformState;
  viewer: UserRecord | null;
  paid: boolean;
  renderings: Renderings;
}

/** Renders users for one request: computes the request-wide parts (base URL, tier, settings) once. */
export class UserRenderer {
  readonly base: string;
  readonly st: PlatformState;
  readonly viewer: UserRecord | null;
  readonly #gravatarHost: string | null;
  /** Whether JSON escapes nothing in the base URL. */
  readonly #basePlain: boolean;
  readonly #paid: boolean;
  readonly #kept: RecordRenderings<UserRecord>;
  /** What every user rendering reads besides its record and key: the settings (Gravatar). */
  readonly #deps: readonly unknown[];
  /** The instance's view keys for this base URL (see `#key`). */
  readonly #keys: Map<string, string>;
  #personal?: Map<number, number[]>;

  constructor(c: Ctx | UserRendererParts) {
    const parts: UserRendererParts =
      'req' in c
        ? {
            base: requestBase(c),
            st: state(c),
            viewer: c.get('viewer')?.user ?? null,
            paid: c.get('fx').tier() !== 'free',
            renderings: c.get('fx').renderings,
          }
        : c;
    this.base = parts.base;
    this.st = parts.st;
    this.viewer = parts.viewer;
    this.#paid = parts.paid;
    this.#kept = parts.renderings.kind<UserRecord>('user');
    this.#deps = [this.st.settings];
    this.#keys = this.#kept.keysFor(this.base);
    this.#basePlain = !JSON_SPECIAL.test(this.base);
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
    return h === null ? null : this.#gravatarUrl(h);
  }

  #gravatarUrl(hash: string): string {
    return `${this.#gravatarHost}/avatar/${hash}?s=80&d=identicon`;
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
   * The same shapes as JSON strings, written directly: byte for byte what `JSON.stringify` makes of the
   * objects above (same fields, same order), without building an object per user. Each `...Head` is its
   * shape without the closing brace, which the next shape extends.
   */

  #basicHead(u: UserRecord, o: RenderOptions): string {
    const username = j(u.username);
    let s = `{"id":${j(u.id)},"name":${j(u.name)},"username":${username},"state":${j(u.state)},"avatar_url":${this.#avatarJson(u)}`;
    if (o.customAttributes) {
      let list = '';
      for (const [key, value] of Object.entries(u.custom_attributes))
        list += `${list === '' ? '' : ','}{"key":${j(key)},"value":${j(value)}}`;
      s += `,"custom_attributes":[${list}]`;
    }
    // The base and the username as they are, when JSON escapes neither (the username came out as itself
    // between quotes): the URL need not be joined and searched again.
    const web =
      this.#basePlain && username.length === u.username.length + 2
        ? `"${this.base}/${u.username}"`
        : j(this.webUrl(u));
    return `${s},"web_url":${web}`;
  }

  /**
   * `avatar_url` as JSON. The Gravatar hash is not remembered here: what the string builders make is
   * kept by the renderings from its second ask, so they hash a user about once, and a new key in a
   * WeakMap of 100,000 users cost more than the digest.
   */
  #avatarJson(u: UserRecord): string {
    if (u.avatar_url || !this.#gravatarHost) return j(this.avatarUrl(u));
    const h = emailHashes.get(u) ?? gravatarDigest(u);
    // A fixed host and a hex digest: nothing in a Gravatar URL for JSON to escape.
    return h === null ? 'null' : `"${this.#gravatarUrl(h)}"`;
  }

  #userHead(u: UserRecord, o: RenderOptions): string {
    const created = this.canReadProfile(u) ? `,"created_at":${j(time(u.created_at))}` : '';
    return `${this.#basicHead(u, o)}${created},"bio":${j(u.bio)},"bio_html":${j(escapeHtml(u.bio ?? ''))},"location":${j(u.location)},"public_email":${j(u.public_email)},"skype":${j(u.skype)},"linkedin":${j(u.linkedin)},"twitter":${j(u.twitter)},"website_url":${j(u.website_url)},"organization":${j(u.organization)},"job_title":${j(u.job_title)},"bot":${j(u.bot)},"work_information":${j(workInformation(u))}`;
  }

  #publicHead(u: UserRecord, o: RenderOptions): string {
    let ids = '';
    for (const i of u.identities) {
      const saml = i.provider === 'group_saml' ? `,"saml_provider_id":${j(i.saml_provider_id)}` : '';
      ids += `${ids === '' ? '' : ','}{"provider":${j(i.provider)},"extern_uid":${j(i.extern_uid)}${saml}}`;
    }
    const minutes = this.#paid
      ? `,"shared_runners_minutes_limit":${j(u.shared_runners_minutes_limit)},"extra_shared_runners_minutes_limit":${j(u.extra_shared_runners_minutes_limit)}`
      : '';
    return `${this.#userHead(u, o)},"last_sign_in_at":${j(time(u.last_sign_in_at))},"confirmed_at":${j(time(u.confirmed_at))},"last_activity_on":${j(u.last_activity_on)},"email":${j(u.email)},"theme_id":${j(u.theme_id)},"color_scheme_id":${j(u.color_scheme_id)},"projects_limit":${j(u.projects_limit)},"current_sign_in_at":${j(time(u.current_sign_in_at))},"identities":[${ids}],"can_create_group":${j(u.can_create_group)},"can_create_project":${j(this.#canCreateProject(u))},"two_factor_enabled":${j(u.two_factor_enabled)},"external":${j(u.external)},"private_profile":${j(u.private_profile)},"commit_email":${j(u.commit_email ?? u.email)}${minutes}`;
  }

  #adminHead(u: UserRecord, o: RenderOptions): string {
    return `${this.#publicHead(u, o)},"is_admin":${j(u.admin)},"note":${j(u.note)}`;
  }

  /** `JSON.stringify(this.basic(u, o))`, written directly. */
  basicJson(u: UserRecord, o: RenderOptions = {}): string {
    return built(
      () => `${this.#basicHead(u, o)}}`,
      () => this.basic(u, o),
    );
  }

  /** `JSON.stringify(this.user(u, o))`, written directly. */
  userJson(u: UserRecord, o: RenderOptions = {}): string {
    return built(
      () => `${this.#userHead(u, o)}}`,
      () => this.user(u, o),
    );
  }

  /** `JSON.stringify(this.public(u, o))`, written directly. */
  publicJson(u: UserRecord, o: RenderOptions = {}): string {
    return built(
      () => `${this.#publicHead(u, o)}}`,
      () => this.public(u, o),
    );
  }

  /** `JSON.stringify(this.withAdmin(u, o))`, written directly. */
  withAdminJson(u: UserRecord, o: RenderOptions = {}): string {
    return built(
      () =>
        `${this.#adminHead(u, o)},"current_sign_in_ip":${j(u.current_sign_in_ip)},"last_sign_in_ip":${j(u.last_sign_in_ip)}}`,
      () => this.withAdmin(u, o),
    );
  }

  /** `JSON.stringify(this.details(u, o))`, written directly. */
  detailsJson(u: UserRecord, o: RenderOptions = {}): string {
    return built(
      () => {
        const plan = this.#paid ? ',"plan":null,"trial":false' : '';
        return `${this.#adminHead(u, o)},"highest_role":${j(highestRole(this.st, u.id))},"current_sign_in_ip":${j(u.current_sign_in_ip)},"last_sign_in_ip":${j(u.last_sign_in_ip)}${plan},"sign_in_count":${j(u.sign_in_count)}}`;
      },
      () => this.details(u, o),
    );
  }

  /*
   * The same shapes as response bodies, kept per record (core renderings): the string a first ask builds,
   * or the one kept since. What a shape reads besides the record and the settings goes into its key as a
   * value: the base URL, the tier, the viewer's right to the profile, can_create_project and
   * highest_role, so that a write elsewhere (a new project, a new membership) leaves the renderings it
   * does not change in place.
   */

  /** `UserBasic` as a body. */
  basicBody(u: UserRecord, o: RenderOptions = {}): string | Buffer<ArrayBuffer> {
    return this.#kept.json(u, this.#key(`b|${+!!o.customAttributes}`), this.#deps, () =>
      this.basicJson(u, o),
    );
  }

  /** `User` as a body. */
  userBody(u: UserRecord, o: RenderOptions = {}): string | Buffer<ArrayBuffer> {
    const key = this.#key(`u|${+!!o.customAttributes}${+this.canReadProfile(u)}`);
    return this.#kept.json(u, key, this.#deps, () => this.userJson(u, o));
  }

  /** `UserPublic` as a body. */
  publicBody(u: UserRecord): string | Buffer<ArrayBuffer> {
    const key = this.#key(`p|${+this.#paid}${+this.#canCreateProject(u)}`);
    return this.#kept.json(u, key, this.#deps, () => this.publicJson(u));
  }

  /** `UserWithAdmin` as a body. */
  withAdminBody(u: UserRecord, o: RenderOptions = {}): string | Buffer<ArrayBuffer> {
    const key = this.#key(`a|${+!!o.customAttributes}${+this.#paid}${+this.#canCreateProject(u)}`);
    return this.#kept.json(u, key, this.#deps, () => this.withAdminJson(u, o));
  }

  /** `UserDetailsWithAdmin` as a body. */
  detailsBody(u: UserRecord, o: RenderOptions = {}): string | Buffer<ArrayBuffer> {
    const key = this.#key(
      `d|${+!!o.customAttributes}${+this.#paid}${+this.#canCreateProject(u)}${highestRole(this.st, u.id)}`,
    );
    return this.#kept.json(u, key, this.#deps, () => this.detailsJson(u, o));
  }

  /**
   * The full view key for a short head (a few dozen: options, tier, rights, role), made once per instance
   * and base URL (`keysFor`): a key built per request or per user is a new joined string that each
   * comparison with a kept view has to flatten and read through.
   */
  #key(head: string): string {
    let key = this.#keys.get(head);
    if (key === undefined) this.#keys.set(head, (key = `${head}|${this.base}`));
    return key;
  }

  #canCreateProject(u: UserRecord): boolean {
    const personal = (this.#personal ??= personalProjects(this.st));
    return u.projects_limit - (personal.get(u.id)?.length ?? 0) > 0;
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
