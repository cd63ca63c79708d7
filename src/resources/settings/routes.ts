/**
 * `GET` and `PUT /application/settings` (admins only, checked before the params as the platform's
 * `before { authenticated_as_admin! }` does). `PUT` declares a typed param per setting, applies Grape's
 * `given ... requires` dependencies, maps the legacy names, then validates the whole record as the model
 * does (400 with the errors hash).
 */
import { state, write, type Ctx } from '../../core/context.js';
import { ApiError, grapeError, validationError } from '../../core/errors.js';
import { mutuallyExclusive, p, parseParams, type Param, type Shape } from '../../core/params.js';
import { requestBase } from '../../core/pagination.js';
import type { ApiRouter } from '../../core/router.js';
import { iget, tget } from '../../core/table.js';
import { ALIASES, GIVEN_REQUIRES, SETTINGS, SETTING_SPECS, type SettingSpec } from './catalog.js';
import { outputChronic, parseChronic } from './duration.js';
import { decimalString, normalise, setting, settingsCreatedAt, visibilityName } from './model.js';
import { allowlist, splitAllowlist } from './outbound.js';
import { has, inSpan, type Minor } from '../../core/versions.js';

const paid = (c: Ctx) => c.get('fx').tier() !== 'free';

/** The `ApplicationSetting` entity. `echo` carries values shown as given in this request's answer. */
export function renderSettings(c: Ctx, echo: Record<string, unknown> = {}): Record<string, unknown> {
  const st = state(c);
  const withPaid = paid(c);
  const created = settingsCreatedAt(st);
  const out: Record<string, unknown> = { id: 1 };
  for (const spec of SETTINGS) {
    if ((spec.paid && !withPaid) || spec.writeOnly || (spec.span && !has(c, spec.span))) continue;
    const n = spec.name;
    if (n in echo) out[n] = echo[n];
    else if (n === 'created_at') out[n] = created;
    else if (n === 'updated_at') out[n] = (st.settings.updated_at as string | undefined) ?? created;
    else if (n === 'archive_builds_in_human_readable') {
      const secs = st.settings.archive_builds_in_seconds;
      out[n] = typeof secs === 'number' ? outputChronic(secs) : null;
    } else if (n === 'commit_email_hostname')
      out[n] = setting(st, n) ?? `users.noreply.${new URL(requestBase(c)).hostname}`;
    else if (n === 'outbound_local_requests_allowlist_raw') out[n] = allowlist(st).join('\n');
    else if (spec.kind === 'decimal') out[n] = decimalString(setting(st, n) as number);
    else out[n] = setting(st, n);
  }
  const web = setting(st, 'password_authentication_enabled_for_web');
  out.password_authentication_enabled = web;
  out.signin_enabled = web;
  out.allow_local_requests_from_hooks_and_services = setting(
    st,
    'allow_local_requests_from_web_hooks_and_services',
  );
  return out;
}

function paramOf(spec: SettingSpec): Param<unknown> {
  switch (spec.kind) {
    case 'bool':
      return p.bool();
    case 'int':
      return spec.values ? p.int().values(spec.values as number[]) : p.int();
    case 'float':
    case 'decimal':
      return p.float();
    case 'visibility':
      return p.str().values(['private', 'internal', 'public']);
    case 'levels':
      return p.strArray({ commaSeparated: true });
    case 'list':
      return p.strArray({ commaSeparated: true });
    case 'strings':
      // Grape checks each element of an array against `values`.
      return spec.values ? (p.strArray() as Param<unknown>).values(spec.values) : p.strArray();
    default:
      return spec.values ? p.str().values(spec.values as string[]) : p.str();
  }
}

const shapes = new Map<string, Shape>();

/**
 * The declared params of `PUT`, per tier (EE settings exist on paid tiers only) and release (a setting
 * the release lacks is undeclared: ignored, as Grape ignores any undeclared param).
 */
function putShape(withPaid: boolean, minor: Minor): Shape {
  const key = `${+withPaid}${minor}`;
  let shape = shapes.get(key);
  if (!shape) {
    shape = {};
    for (const spec of SETTINGS)
      if (!spec.readOnly && (!spec.paid || withPaid) && (!spec.span || inSpan(minor, spec.span)))
        shape[spec.name] = paramOf(spec);
    shape.performance_bar_allowed_group_id = p.intOrStr();
    for (const alias of Object.keys(ALIASES)) shape[alias] = p.bool();
    shapes.set(key, shape);
  }
  return shape;
}

// ---------------------------------------------------------------------------------------------------
// Model validations (`ApplicationSetting` and its EE part), in the model's order.

type Errors = Record<string, string[]>;

const blank = (v: unknown) =>
  v === null ||
  v === undefined ||
  (typeof v === 'string' && v.trim() === '') ||
  (Array.isArray(v) && !v.length);

function httpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

function modelErrors(next: Record<string, unknown>, withPaid: boolean): Errors {
  const errors: Errors = {};
  const add = (k: string, m: string) => (errors[k] ??= []).push(m);
  const get = (n: string) => {
    const spec = SETTING_SPECS.get(n);
    return spec ? normalise(spec, next[n]) : next[n];
  };
  const num = (n: string, min: number, opts: { strict?: boolean; max?: number; message?: string } = {}) => {
    const v = get(n);
    if (typeof v !== 'number') return;
    if (opts.strict ? v <= min : v < min)
      add(n, opts.message ?? `must be greater than ${opts.strict ? '' : 'or equal to '}${min}`);
    else if (opts.max !== undefined && v > opts.max) add(n, `must be less than or equal to ${opts.max}`);
  };
  const presentIf = (n: string, on: unknown) => {
    if (on === true && blank(get(n))) add(n, "can't be blank");
  };
  const urlIf = (n: string) => {
    const v = get(n);
    if (typeof v === 'string' && v !== '' && !httpUrl(v)) add(n, 'must be a valid URL');
  };

  num('session_expire_delay', 0);
  urlIf('home_page_url');
  urlIf('help_page_support_url');
  urlIf('after_sign_out_path');
  const abuse = get('admin_notification_email');
  if (typeof abuse === 'string' && abuse !== '' && !/^[^@\s]+@[^@\s]+$/.test(abuse))
    add('admin_notification_email', 'is invalid');
  num('two_factor_grace_period', 0);
  const recaptcha = get('recaptcha_enabled') === true || get('login_recaptcha_protection_enabled') === true;
  presentIf('recaptcha_site_key', recaptcha);
  presentIf('recaptcha_private_key', recaptcha);
  presentIf('akismet_api_key', get('akismet_enabled'));
  if (get('unique_ips_limit_enabled') === true) {
    num('unique_ips_limit_per_user', 1);
    num('unique_ips_limit_time_window', 0);
  }
  presentIf('plantuml_url', get('plantuml_enabled'));
  presentIf('sourcegraph_url', get('sourcegraph_enabled'));
  presentIf('snowplow_collector_hostname', get('snowplow_enabled'));
  num('max_attachment_size', 0, { strict: true });
  num('max_artifacts_size', 0, { strict: true });
  num('max_import_size', 0);
  num('max_pages_size', 0);
  num('container_registry_token_expire_delay', 0, { strict: true });
  const storages = get('repository_storages');
  if (blank(storages)) add('repository_storages', "can't be blank");
  else if (Array.isArray(storages)) {
    const bad = storages.filter((x) => x !== 'default');
    if (bad.length) add('repository_storages', `can't include: ${bad.join(', ')}`);
  }
  if (get('domain_blacklist_enabled') === true && blank(get('domain_blacklist')))
    add('domain_blacklist', 'Domain blacklist cannot be empty if Blacklist is enabled.');
  num('housekeeping_incremental_repack_period', 0, { strict: true });
  num('housekeeping_full_repack_period', Number(get('housekeeping_incremental_repack_period')));
  num('housekeeping_gc_period', Number(get('housekeeping_full_repack_period')));
  num('terminal_max_session_time', 0);
  num('polling_interval_multiplier', 0);
  num('diff_max_patch_bytes', 102400, { max: 512000 });
  const host = get('commit_email_hostname');
  if (typeof host === 'string' && host.includes('@')) add('commit_email_hostname', 'is invalid');
  const archive = next.archive_builds_in_seconds;
  if (typeof archive === 'number' && archive < 86400)
    add('archive_builds_in_seconds', 'must be at least 1 day');
  num('local_markdown_version', 0, { max: 65535 });
  if (get('asset_proxy_enabled') === true) {
    const url = get('asset_proxy_url');
    if (blank(url)) add('asset_proxy_url', "can't be blank");
    if (typeof url !== 'string' || !httpUrl(url)) add('asset_proxy_url', 'must be a valid URL');
    presentIf('asset_proxy_secret_key', true);
  }
  num('push_event_hooks_limit', 0);
  num('push_event_activities_limit', 0);
  num('snippet_size_limit', 0, { strict: true });
  num('wiki_page_max_content_bytes', 1024);
  const levels = next.restricted_visibility_levels;
  if (Array.isArray(levels))
    for (const l of levels)
      if (visibilityName(l) === undefined)
        add('restricted_visibility_levels', `'${String(l)}' is not a valid visibility level`);
  if (get('enforce_terms') === true && blank(get('terms')))
    add('terms', 'You need to set terms to be enforced');
  if (get('external_authorization_service_enabled') === true) {
    presentIf('external_authorization_service_default_label', true);
    urlIf('external_authorization_service_url');
    num('external_authorization_service_timeout', 0, { strict: true, max: 10 });
  }
  if (!blank(get('external_auth_client_cert'))) presentIf('external_auth_client_key', true);
  const ciPath = get('default_ci_config_path');
  if (typeof ciPath === 'string' && /(\.{2}|^\/)/.test(ciPath))
    add('default_ci_config_path', 'cannot include leading slash or directory traversal.');
  num('issues_create_limit', 0);
  num('raw_blob_request_limit', 0);
  // `length: { maximum: 1_000 }` and `qualified_domain_array: true`.
  const outbound = get('outbound_local_requests_whitelist');
  if (Array.isArray(outbound)) {
    const k = 'outbound_local_requests_whitelist';
    if (outbound.length > 1000) add(k, 'is too long (maximum is 1000 entries)');
    if (outbound.some((x) => String(x).length > 255)) add(k, 'entries cannot be larger than 255 characters');
    if (outbound.some((x) => /<[^>]*>/.test(String(x)))) add(k, 'entries cannot contain HTML tags');
  }
  if (withPaid) {
    const period = get('deletion_adjourned_period');
    if (period === null || period === undefined) add('deletion_adjourned_period', "can't be blank");
    else num('deletion_adjourned_period', 0, { max: 90 });
  }
  return errors;
}

// ---------------------------------------------------------------------------------------------------

function updateSettings(c: Ctx): Response {
  const st = state(c);
  const raw = c.var.params;
  const withPaid = paid(c);
  const shape = putShape(withPaid, c.get('fx').gitlab());
  const names = Object.keys(shape);
  if (!names.some((n) => raw[n] !== undefined))
    throw grapeError(400, `${names.join(', ')} are missing, at least one parameter must be provided`);
  mutuallyExclusive(
    raw,
    'password_authentication_enabled_for_web',
    'password_authentication_enabled',
    'signin_enabled',
  );

  // Type problems first, then the `given` blocks' missing params, in one Grape message.
  const problems: string[] = [];
  let prm: Record<string, unknown> = {};
  try {
    prm = parseParams(shape, raw);
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    problems.push(String((e.body as { error: string }).error));
  }
  for (const [flag, needs] of GIVEN_REQUIRES) {
    if (prm[flag] !== true || !(flag in shape)) continue;
    for (const n of needs) if (raw[n] === undefined || raw[n] === null) problems.push(`${n} is missing`);
  }
  if (problems.length) throw grapeError(400, problems.join(', '));

  const changes: Record<string, unknown> = {};
  const echo: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(prm)) {
    if (v === undefined) continue;
    changes[ALIASES[k] ?? k] = v;
  }
  for (const alias of Object.keys(ALIASES)) delete changes[alias];
  if (changes.enabled_git_access_protocol === 'nil') changes.enabled_git_access_protocol = null;
  // `CommaSeparatedToArray` strips each entry.
  for (const [k, v] of Object.entries(changes))
    if (SETTING_SPECS.get(k)?.kind === 'list' && Array.isArray(v))
      changes[k] = v.map((x) => String(x).trim()).filter((x) => x !== '');
  // Only the sign-in sources configured on the instance can be disabled: none are.
  if (changes.disabled_oauth_sign_in_sources !== undefined) changes.disabled_oauth_sign_in_sources = [];
  if (changes.restricted_visibility_levels !== undefined)
    changes.restricted_visibility_levels = (changes.restricted_visibility_levels as string[]).map(
      (l) => visibilityName(l) ?? l,
    );
  if ('performance_bar_allowed_group_id' in changes) {
    const g = changes.performance_bar_allowed_group_id;
    const id =
      typeof g === 'number'
        ? g
        : typeof g === 'string' && g !== ''
          ? iget(st.idx.namespaces, g.toLowerCase())
          : undefined;
    changes.performance_bar_allowed_group_id = id !== undefined && id > 0 && tget(st.groups, id) ? id : null;
  }
  if ('outbound_local_requests_allowlist_raw' in changes) {
    // `outbound_local_requests_allowlist_raw=`: `strings_to_array` splits on commas, semicolons and
    // whitespace, strips, drops blanks and repeats.
    const text = changes.outbound_local_requests_allowlist_raw;
    changes.outbound_local_requests_whitelist = splitAllowlist(typeof text === 'string' ? text : '');
  }
  // A scenario's raw text gives way to the list written now.
  if ('outbound_local_requests_whitelist' in changes)
    changes.outbound_local_requests_allowlist_raw = undefined;
  const invalid: Record<string, string[]> = {};
  if (typeof changes.archive_builds_in_human_readable === 'string') {
    const text = changes.archive_builds_in_human_readable;
    if (text.trim() === '') changes.archive_builds_in_seconds = null;
    else {
      const secs = parseChronic(text);
      if (secs === undefined) invalid.archive_builds_in_human_readable = ['is not a correct duration'];
      else changes.archive_builds_in_seconds = secs;
    }
    // The model keeps the text it was given for the rest of the request.
    echo.archive_builds_in_human_readable = text === '' ? null : text;
    delete changes.archive_builds_in_human_readable;
  }

  const next = { ...st.settings, ...changes };
  const errors = { ...invalid, ...modelErrors(next, withPaid) };
  if (Object.keys(errors).length) throw validationError(errors);

  const now = c.get('fx').clock.iso();
  const created = settingsCreatedAt(st) ?? now;
  write(c, (d) => {
    for (const [k, v] of Object.entries(changes)) d.settings[k] = v as never;
    d.settings.created_at ??= created;
    d.settings.updated_at = now;
  });
  return c.json(renderSettings(c, echo));
}

export function settingsRoutes(r: ApiRouter): void {
  r.get('/application/settings', { auth: 'admin' }, (c) => c.json(renderSettings(c)));
  r.put('/application/settings', { auth: 'admin' }, updateSettings);
}
