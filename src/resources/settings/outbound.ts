/**
 * What the application settings make of the URL blocker for each caller: `PublicUrlValidator`
 * (project and group hooks, integrations, remote mirrors, `import_url`, export uploads) and
 * `SystemHookUrlValidator` at save time, and `Gitlab::HTTP`'s connection adapter at delivery.
 */
import type { Fx } from '../../core/context.js';
import type { OutboundPolicy } from '../../core/outbound.js';
import type { PlatformState } from '../../core/state.js';
import { validateLiteralUrl, validateUrl, type BlockerOptions } from '../../core/url-blocker.js';
import { own } from '../../core/own.js';
import { setting } from './model.js';

/** The setting that lets a caller reach local addresses (`allow_setting_local_requests?`). */
export type LocalSetting =
  'allow_local_requests_from_web_hooks_and_services' | 'allow_local_requests_from_system_hooks';

export const WEB_HOOKS: LocalSetting = 'allow_local_requests_from_web_hooks_and_services';
export const SYSTEM_HOOKS: LocalSetting = 'allow_local_requests_from_system_hooks';

/**
 * `strings_to_array`: the raw text split on commas, semicolons and whitespace, stripped, blanks and
 * repeats dropped.
 */
export const splitAllowlist = (text: string): string[] => [
  ...new Set(
    text
      .split(/\s*[,;]\s*|\s|[\r\n]/)
      .map((x) => x.trim())
      .filter((x) => x !== ''),
  ),
];

/** `outbound_local_requests_whitelist` (a scenario may give it as the raw text instead). */
export function allowlist(st: PlatformState): string[] {
  const raw = own(st.settings, 'outbound_local_requests_allowlist_raw');
  if (typeof raw === 'string') return splitAllowlist(raw);
  const v = setting(st, 'outbound_local_requests_whitelist');
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

export interface PublicUrlOptions {
  schemes?: readonly string[];
  ports?: readonly number[];
  enforceUser?: boolean;
  local?: LocalSetting;
}

/**
 * `public_url: true`: the model's message for a URL the blocker refuses (`is blocked: ...`), or null.
 * Validators run without DNS rebinding protection, so a name that does not resolve passes here and
 * is refused, if still unresolved, when the request is made.
 */
export async function publicUrlProblem(
  fx: Fx,
  url: string,
  o: PublicUrlOptions = {},
): Promise<string | null> {
  const r = await validateUrl(url, { ...validatorOptions(fx.store.state, o), resolve: fx.resolve });
  return r.ok ? null : `is blocked: ${r.message}`;
}

/** `publicUrlProblem` without resolving names, for a scenario's records (loaded synchronously). */
export function publicUrlLiteralProblem(
  st: PlatformState,
  url: string,
  o: PublicUrlOptions = {},
): string | null {
  const r = validateLiteralUrl(url, validatorOptions(st, o));
  return r.ok ? null : `is blocked: ${r.message}`;
}

function validatorOptions(st: PlatformState, o: PublicUrlOptions): Omit<BlockerOptions, 'resolve'> {
  return {
    schemes: o.schemes ?? ['http', 'https'],
    ports: o.ports,
    enforceUser: o.enforceUser,
    allowLocal: setting(st, o.local ?? WEB_HOOKS) === true,
    dnsRebindProtection: false,
    allowlist: allowlist(st),
  };
}

/**
 * `addressable_url: true`: the blocker with local addresses allowed (the scheme, the user, the host's
 * spelling), or null.
 */
export async function addressableProblem(
  fx: Fx,
  url: string,
  schemes: readonly string[] = ['http', 'https'],
): Promise<string | null> {
  const r = await validateUrl(url.trim(), {
    schemes,
    allowLocal: true,
    dnsRebindProtection: false,
    allowlist: [],
    resolve: fx.resolve,
  });
  return r.ok ? null : `is blocked: ${r.message}`;
}

/**
 * Why a refused URL was refused, for `X-Fauxlab-Explain`: the setting that would allow a local one, and
 * where a test sets it (a receiver on localhost is what most tests of a webhook have).
 */
export function explainBlocked(problem: string, local: LocalSetting = WEB_HOOKS): string {
  return /localhost|loopback|local network|link local/.test(problem)
    ? `${problem}: the URL is local, and ${local} is off (outbound_local_requests_whitelist names neither its host nor its address); to allow local URLs, set ${local}: true in the scenario's settings`
    : problem;
}

/** `Gitlab::HTTP`'s adapter for one delivery: the settings as they are when the event happens. */
export function outboundPolicy(fx: Fx, local: LocalSetting, base?: string): OutboundPolicy {
  const st = fx.store.state;
  return {
    allowLocal: setting(st, local) === true,
    dnsRebindProtection: setting(st, 'dns_rebinding_protection_enabled') !== false,
    allowlist: allowlist(st),
    resolve: fx.resolve,
    self: [fx.baseUrl, base].filter((x): x is string => typeof x === 'string' && x !== ''),
    selfPorts: fx.servedPorts,
  };
}
