/**
 * Application settings as the rest of fauxlab reads them. The state keeps only overrides (`st.settings`,
 * from scenarios and `PUT /application/settings`); `setting(st, name)` is the one accessor every area
 * uses, and gives the default when nothing is stored, normalised to one representation per kind (a
 * scenario may write a visibility as `20` or `"public"`).
 */
import type { PlatformState, Visibility } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { SETTING_SPECS, type SettingSpec } from './catalog.js';
import { own } from '../../core/own.js';

/** The settings other areas read, with the type `setting()` returns for them. */
export interface TypedSettings {
  default_project_visibility: Visibility;
  default_group_visibility: Visibility;
  default_snippet_visibility: Visibility;
  restricted_visibility_levels: Visibility[];
  default_projects_limit: number;
  default_branch_protection: number;
  default_project_creation: number;
  default_branch_name: string | null;
  max_attachment_size: number;
  max_import_size: number;
  snippet_size_limit: number;
  deletion_adjourned_period: number;
  gravatar_enabled: boolean;
  user_default_external: boolean;
  auto_devops_enabled: boolean;
  signup_enabled: boolean;
  session_expire_delay: number;
  issues_create_limit: number;
  raw_blob_request_limit: number;
}

const LEVEL_NAMES: Record<string, Visibility> = {
  '0': 'private',
  '10': 'internal',
  '20': 'public',
  private: 'private',
  internal: 'internal',
  public: 'public',
};

/** A visibility given as a level (`20`, `"20"`) or a name; undefined when it is neither. */
export function visibilityName(v: unknown): Visibility | undefined {
  return typeof v === 'number' || typeof v === 'string'
    ? own(LEVEL_NAMES, String(v).toLowerCase())
    : undefined;
}

function asInt(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v)) return Number(v);
  return undefined;
}

function asBool(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 1 || v === '1') return true;
  if (v === 'false' || v === 0 || v === '0') return false;
  return undefined;
}

/** A stored value in the setting's one representation; the default when it does not fit the kind. */
export function normalise(spec: SettingSpec, v: unknown): unknown {
  if (v === undefined) return spec.default;
  if (v === null) return spec.kind === 'visibility' || spec.kind === 'levels' ? spec.default : null;
  switch (spec.kind) {
    case 'visibility':
      return visibilityName(v) ?? spec.default;
    case 'levels':
      return Array.isArray(v)
        ? v.map(visibilityName).filter((x): x is Visibility => x !== undefined)
        : spec.default;
    case 'int':
      return asInt(v) ?? spec.default;
    case 'bool':
      return asBool(v) ?? spec.default;
    case 'float':
    case 'decimal':
      return typeof v === 'number'
        ? v
        : typeof v === 'string' && v.trim() !== '' && !isNaN(+v)
          ? +v
          : spec.default;
    default:
      return v;
  }
}

/** `BigDecimal#to_s` as ActiveSupport formats it: plain digits, at least one after the point. */
export function decimalString(v: number): string {
  const s = Number.isInteger(v) ? `${v}.0` : String(v);
  // Very small or large numbers: no exponent, as `to_s('F')` writes them.
  return /e/i.test(s)
    ? v
        .toFixed(20)
        .replace(/(\.\d*?)0+$/, '$1')
        .replace(/\.$/, '.0')
    : s;
}

/** The effective value of an application setting: the stored override, else the platform's default. */
export function setting<K extends keyof TypedSettings>(st: PlatformState, name: K): TypedSettings[K];
export function setting(st: PlatformState, name: string): unknown;
export function setting(st: PlatformState, name: string): unknown {
  const spec = SETTING_SPECS.get(name);
  const v = own(st.settings, name);
  return spec ? normalise(spec, v) : v;
}

/** `Gitlab::VisibilityLevel.allowed_for?`: admins may use any level; others none that is restricted. */
export function visibilityRestricted(st: PlatformState, v: Visibility): boolean {
  return setting(st, 'restricted_visibility_levels').includes(v);
}

/** When the settings record was made: with the instance, when its first user (the admin) was. */
export function settingsCreatedAt(st: PlatformState): string | null {
  const stored = st.settings.created_at;
  if (typeof stored === 'string') return stored;
  return tget(st.users, 1)?.created_at ?? null;
}
