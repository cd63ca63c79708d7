/**
 * Strict scenario objects, everywhere: a typo such as `admn: true` or `visiblity: public` must fail
 * validation instead of silently leaving the default. Done once, generically, over the whole schema
 * (wherever its fragments are defined): every object schema becomes strict, open ones (users, groups,
 * projects, integrations, which take any field their record has) accept exactly the extra fields their
 * record knows, the settings map takes the settings there are, and an unknown field is reported with
 * the closest known one.
 */
import { z } from 'zod';
import { EVENT_FLAG, INTEGRATIONS } from '../resources/integrations/catalog.js';
import { SETTING_SPECS } from '../resources/settings/catalog.js';
import { tvalues, type Table } from '../core/table.js';
import { buildWorld } from './build.js';
import { scenarioSchema } from './schema.js';

type Schema = z.ZodType;
interface Def {
  type: string;
  [k: string]: unknown;
}
const defOf = (s: Schema) => (s as unknown as { _zod: { def: Def } })._zod.def;
/** A copy of `s` with another def; `parent` keeps the description and other registry metadata. */
const withDef = (s: Schema, def: Def): Schema =>
  (s as unknown as { clone(def: Def, params: { parent: boolean }): Schema }).clone(def, { parent: true });

/** Unknown keys given suggestions at most; the rest are only counted (an object may be huge). */
const MAX_REPORTED = 20;
/** Longer keys are not compared: no field name comes close, and the comparison is quadratic. */
const MAX_COMPARED_LENGTH = 64;

/** Optimal string alignment distance (edits, with swaps of neighbours counted once). */
function distance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      row.push(d);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

/** The known key closest to `key`, when it is close enough to be a typo of it. */
export function didYouMean(key: string, known: readonly string[]): string | undefined {
  if (key.length > MAX_COMPARED_LENGTH) return undefined;
  const k = key.toLowerCase();
  let best: string | undefined;
  let bestD = Infinity;
  for (const candidate of known) {
    const d = distance(k, candidate.toLowerCase());
    if (d < bestD) [best, bestD] = [candidate, d];
  }
  // One edit in four characters: `admn` -> `admin`, `visiblity` -> `visibility`; short keys only differ
  // in case, else `ix` would become `id`.
  const limit = Math.floor(Math.min(k.length, best?.length ?? 0) / 4);
  return bestD <= limit ? best : undefined;
}

/** `unknown field "admn" (did you mean "admin"?)`, for every unknown key of one object. */
export function unknownKeysMessage(keys: readonly string[], known: readonly string[]): string {
  const parts = keys.slice(0, MAX_REPORTED).map((key) => {
    const near = didYouMean(key, known);
    return near === undefined ? `"${key}"` : `"${key}" (did you mean "${near}"?)`;
  });
  const more = keys.length > MAX_REPORTED ? `, and ${keys.length - MAX_REPORTED} more` : '';
  return `unknown field${keys.length === 1 ? '' : 's'} ${parts.join(', ')}${more}`;
}

type ExtrasAt = (path: string) => readonly string[] | undefined;

/**
 * An object schema made strict: `out` its fields (made strict already), an open object given the extra
 * fields `extrasAt` names for its path, unknown keys named with the closest known one.
 */
function strictObject(s: Schema, out: Record<string, Schema>, path: string, extrasAt: ExtrasAt): Schema {
  const def = defOf(s);
  const catchall = def.catchall as Schema | undefined;
  const open = catchall === undefined || ['unknown', 'any'].includes(defOf(catchall).type);
  if (open)
    for (const k of extrasAt(path) ?? [])
      if (!(k in out)) out[k] = z.unknown().optional().describe('a field of the record, as the API shows it');
  const known = Object.keys(out);
  return withDef(s, {
    ...def,
    shape: out,
    catchall: open ? z.never() : catchall,
    error: (iss: { code: string; keys?: string[] }) =>
      iss.code === 'unrecognized_keys' ? unknownKeysMessage(iss.keys ?? [], known) : undefined,
  });
}

/**
 * `schema` with every object strict. `extrasAt` names, by path (`users[]`, `projects[].integrations[]`),
 * the extra fields an open object accepts; an open object it says nothing of becomes strict on its
 * declared fields alone. Every object names its unknown keys with the closest known one; schemas that
 * hold no object come back as they are. `path` is where `schema` sits ('' for the file).
 */
export function strictDeep(schema: Schema, extrasAt: ExtrasAt, path = ''): Schema {
  const walk = (s: Schema, path: string): Schema => {
    const def = defOf(s);
    const inner = (key: string, at = path) => {
      const child = def[key] as Schema | undefined;
      if (!child) return undefined;
      const next = walk(child, at);
      return next === child ? undefined : next;
    };
    switch (def.type) {
      case 'object': {
        const shape = def.shape as Record<string, Schema>;
        const out: Record<string, Schema> = {};
        for (const [k, v] of Object.entries(shape)) out[k] = walk(v, path ? `${path}.${k}` : k);
        return strictObject(s, out, path, extrasAt);
      }
      case 'array': {
        const element = inner('element', `${path}[]`);
        return element ? withDef(s, { ...def, element }) : s;
      }
      case 'optional':
      case 'nullable':
      case 'default':
      case 'prefault':
      case 'nonoptional':
      case 'readonly':
      case 'catch': {
        const innerType = inner('innerType');
        return innerType ? withDef(s, { ...def, innerType }) : s;
      }
      case 'pipe': {
        const [a, b] = [inner('in'), inner('out')];
        return a || b ? withDef(s, { ...def, in: a ?? def.in, out: b ?? def.out }) : s;
      }
      case 'union': {
        const options = def.options as Schema[];
        const next = options.map((o) => walk(o, path));
        return next.some((o, i) => o !== options[i]) ? withDef(s, { ...def, options: next }) : s;
      }
      case 'record': {
        // A map whose keys are known (application settings) is an object like any other.
        const keys = extrasAt(path);
        if (keys)
          return walk(z.strictObject(Object.fromEntries(keys.map((k) => [k, z.unknown().optional()]))), path);
        const valueType = inner('valueType', `${path}.*`);
        return valueType ? withDef(s, { ...def, valueType }) : s;
      }
      default:
        return s;
    }
  };
  return walk(schema, path);
}

/** The fields each open object of the scenario format takes besides its declared ones. */
function recordFields(): Map<string, readonly string[]> {
  // The records a minimal import makes hold every field a user, group or project has.
  const st = buildWorld(
    scenarioSchema.parse({
      users: [{ username: 'u' }],
      groups: [{ path: 'g' }],
      projects: [{ path: 'g/p' }],
    }),
    { now: new Date(0) },
  );
  const keysOf = (table: Table<object>) => Object.keys(tvalues(table)[0] ?? {});
  const integrationParams = new Set<string>(Object.values(EVENT_FLAG));
  for (const spec of INTEGRATIONS.values())
    for (const f of [...spec.fields, ...(spec.hiddenParams ?? [])]) integrationParams.add(f.name);
  // Settings are stored by name, with what `PUT /application/settings` stores besides: timestamps, the
  // archive duration in seconds, the performance bar's group id.
  const settings = [
    ...SETTING_SPECS.keys(),
    'created_at',
    'updated_at',
    'archive_builds_in_seconds',
    'performance_bar_allowed_group_id',
  ];
  return new Map<string, readonly string[]>([
    ['settings', [...new Set(settings)]],
    ['users[]', keysOf(st.users)],
    ['groups[]', keysOf(st.groups)],
    ['projects[]', keysOf(st.projects)],
    ['projects[].integrations[]', [...integrationParams]],
  ]);
}

/** The paths `recordFields` names: asking of any other needs no world built. */
const RECORD_PATHS = new Set(['settings', 'users[]', 'groups[]', 'projects[]', 'projects[].integrations[]']);
let recordFieldsMap: Map<string, readonly string[]> | undefined;
const extrasAt: ExtrasAt = (path) =>
  RECORD_PATHS.has(path) ? (recordFieldsMap ??= recordFields()).get(path) : undefined;

/**
 * The top-level fields made strict, each on first need. Making the whole format strict clones a few
 * thousand zod schemas (and builds a world for the records' fields): a tenth of the command's start-up,
 * spent on the fields a file does not even give.
 */
const strictFields = new Map<string, Schema>();
const topShape = () => defOf(scenarioSchema).shape as Record<string, Schema>;
const strictField = (key: string): Schema => {
  let s = strictFields.get(key);
  if (!s) strictFields.set(key, (s = strictDeep(topShape()[key]!, extrasAt, key)));
  return s;
};

/** The formats made for the sets of fields files gave; a few in practice, bounded whatever they give. */
const strictTops = new Map<string, typeof scenarioSchema>();
const MAX_TOPS = 64;

/** The format strict in the top-level fields `given` (shape order), open in the others. */
function strictTop(given: readonly string[]): typeof scenarioSchema {
  const id = given.join(',');
  let top = strictTops.get(id);
  if (!top) {
    const shape = topShape();
    const out: Record<string, Schema> = {};
    for (const k of Object.keys(shape)) out[k] = given.includes(k) ? strictField(k) : shape[k]!;
    top = strictObject(scenarioSchema, out, '', extrasAt) as typeof scenarioSchema;
    if (strictTops.size >= MAX_TOPS) strictTops.clear();
    strictTops.set(id, top);
  }
  return top;
}

/**
 * A value whose strict and open schemas answer alike: absent, an empty list or an empty plain object
 * (strictness is about keys, and it has none). A loaded scenario, given again (`createFauxlab`), is
 * mostly such lists.
 */
function holdsNothing(v: unknown): boolean {
  if (v === undefined) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return (proto === Object.prototype || proto === null) && Object.keys(v).length === 0;
}

/**
 * The scenario format as a file is checked against it: strict (see `strictScenarioSchema`) in the
 * fields `input` gives. A field left out takes its default or stays out, whatever its schema's
 * strictness (a default is not parsed), and one that holds nothing has no key to refuse, so the result
 * is the fully strict schema's.
 */
export function strictSchemaFor(input: unknown): typeof scenarioSchema {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return strictTop([]);
  const given = Object.keys(topShape()).filter((k) => !holdsNothing((input as Record<string, unknown>)[k]));
  return strictTop(given);
}

/** The scenario format as its JSON Schema shows it: strict in every field. */
export const strictScenarioSchema = (): typeof scenarioSchema => strictTop(Object.keys(topShape()));
