/**
 * The nested params of `lib/api/feature_flags.rb` (13.12) as Grape declares and coerces them: `strategies`
 * and legacy `scopes` are arrays of hashes whose own `requires` fail as `strategies[0][name] is missing`,
 * and `parameters`/`strategies` are `type: JSON` (a JSON string parsed, or a hash or an array of hashes
 * as sent).
 */
import { grapeError } from '../../core/errors.js';
import { jsonParams, type ParamValue } from '../../core/params.js';
import type { JsonValue } from './store.js';

const isHash = (v: unknown): v is Record<string, ParamValue> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof File);

export interface ScopeInput {
  id?: number;
  environment_scope?: string;
  _destroy?: boolean;
}

export interface StrategyInput {
  id?: number;
  name?: string;
  parameters?: JsonValue;
  _destroy?: boolean;
  scopes?: ScopeInput[];
  /** A scenario's gitlabUserList strategy's list: the API of 13.12 declares no `user_list_id`. */
  user_list_id?: number;
}

export interface LegacyScopeInput {
  environment_scope: string;
  active: boolean;
  strategies: JsonValue;
}

const INVALID = Symbol('invalid');

/** `Grape::Types::Json`: a hash, or an array of hashes; a string is parsed first. Prototype-free copies. */
function coerceJson(v: ParamValue): JsonValue | typeof INVALID {
  let value: unknown = v;
  if (typeof v === 'string') {
    try {
      value = JSON.parse(v);
    } catch {
      return INVALID;
    }
  }
  const copy = jsonParams(value);
  if (copy === undefined) return INVALID;
  if (isHash(copy)) return copy as JsonValue;
  if (Array.isArray(copy) && copy.every(isHash)) return copy as JsonValue;
  return INVALID;
}

const TRUE = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

function coerceBool(v: ParamValue): boolean | typeof INVALID {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && TRUE.has(v.trim().toLowerCase())) return true;
  if (typeof v === 'string' && FALSE.has(v.trim().toLowerCase())) return false;
  return INVALID;
}

function coerceInt(v: ParamValue): number | typeof INVALID {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : INVALID;
  if (typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v)) {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : INVALID;
  }
  return INVALID;
}

const coerceStr = (v: ParamValue): string | typeof INVALID =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : INVALID;

type Field = { kind: 'str' | 'int' | 'bool' | 'json'; required: boolean };
const COERCE = { str: coerceStr, int: coerceInt, bool: coerceBool, json: coerceJson } as const;

/**
 * One array-of-hashes param: each element's declared fields in order, Grape's problems collected as
 * `name[i][field] is missing|is invalid`; undeclared keys dropped (`declared_params`).
 */
function hashes(
  name: string,
  raw: ParamValue | undefined,
  fields: Record<string, Field>,
  problems: string[],
  nested?: (h: Record<string, ParamValue>, at: string, out: Record<string, unknown>) => void,
): Record<string, unknown>[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) {
    problems.push(`${name} is invalid`);
    return undefined;
  }
  const out: Record<string, unknown>[] = [];
  raw.forEach((el, i) => {
    const at = `${name}[${i}]`;
    if (!isHash(el)) {
      problems.push(`${at} is invalid`);
      return;
    }
    const item: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const [k, f] of Object.entries(fields)) {
      const v = Object.hasOwn(el, k) ? el[k] : undefined;
      if (v === undefined || v === null) {
        if (f.required) problems.push(`${at}[${k}] is missing`);
        continue;
      }
      if (v === '' && f.kind !== 'str') continue;
      const c = COERCE[f.kind](v);
      if (c === INVALID) problems.push(`${at}[${k}] is invalid`);
      else item[k] = c;
    }
    nested?.(el, at, item);
    out.push(item);
  });
  return out;
}

const req = (kind: Field['kind']): Field => ({ kind, required: true });
const opt = (kind: Field['kind']): Field => ({ kind, required: false });

/** POST's `strategies` (name and parameters required, scopes with a required environment_scope) and `scopes`. */
export function createInput(raw: Record<string, ParamValue>): {
  strategies?: StrategyInput[];
  scopes?: LegacyScopeInput[];
} {
  const problems: string[] = [];
  const scopes = hashes(
    'scopes',
    raw.scopes,
    { environment_scope: req('str'), active: req('bool'), strategies: req('json') },
    problems,
  ) as LegacyScopeInput[] | undefined;
  const strategies = hashes(
    'strategies',
    raw.strategies,
    { name: req('str'), parameters: req('json') },
    problems,
    (h, at, out) => {
      const s = hashes(`${at}[scopes]`, h.scopes, { environment_scope: req('str') }, problems);
      if (s) out.scopes = s;
    },
  ) as StrategyInput[] | undefined;
  if (problems.length) throw grapeError(400, problems.join(', '));
  return { strategies, scopes };
}

/** PUT's `strategies`: every field optional, with `id` and `_destroy` at both levels. */
export function updateInput(raw: Record<string, ParamValue>): StrategyInput[] | undefined {
  const problems: string[] = [];
  const strategies = hashes(
    'strategies',
    raw.strategies,
    { id: opt('int'), name: opt('str'), parameters: opt('json'), _destroy: opt('bool') },
    problems,
    (h, at, out) => {
      const s = hashes(
        `${at}[scopes]`,
        h.scopes,
        { id: opt('int'), environment_scope: opt('str'), _destroy: opt('bool') },
        problems,
      );
      if (s) out.scopes = s;
    },
  ) as StrategyInput[] | undefined;
  if (problems.length) throw grapeError(400, problems.join(', '));
  return strategies;
}
