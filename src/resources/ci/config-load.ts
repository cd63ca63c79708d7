/**
 * Reading `.gitlab-ci.yml` before its entries are checked: YAML as Psych loads it, with the platform's
 * bounds (`Gitlab::Config::Loader::Yaml`), `include:` (`Gitlab::Ci::Config::External::Processor`: local
 * files and vendored templates), `extends:` (`Config::Extendable`) and the `.pre`/`.post` stages
 * (`Config::EdgeStagesInjector`).
 */
import { createRequire } from 'node:module';
import type { Document, ScalarTag, Tags } from 'yaml';

export type Json = Record<string, unknown>;

export const RESERVED = new Set([
  'image',
  'services',
  'stages',
  'types',
  'before_script',
  'after_script',
  'variables',
  'cache',
  'include',
  'default',
  'workflow',
]);

/** The YAML library, loaded on the first CI configuration read: most servers never read one. */
export const yaml = () => createRequire(import.meta.url)('yaml') as typeof import('yaml');

/** `Gitlab::Config::Loader::Yaml::MAX_YAML_SIZE` and `MAX_YAML_DEPTH`. */
export const YAML_LIMITS = {
  bytes: 1024 * 1024,
  depth: 100,
  aliases: 100,
  includes: 100,
  jobs: 500,
  /** The file and its includes together: a hundred megabyte includes would hold the instance for long. */
  totalBytes: 4 * 1024 * 1024,
};

/** Where includes come from: the project's files at the pipeline's commit, and the vendored templates. */
export interface IncludeSource {
  /** A repository file's text, or undefined; absent when there is no project (instance lint). */
  local?: (path: string) => string | undefined;
  template: (path: string) => string | undefined;
}

export const isHash = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export class LoadError extends Error {}

/**
 * YAML 1.1 as Psych reads it: `yes`/`no`/`on`/`off`/`true`/`false` are booleans, but not the single
 * letters `y` and `n` that the 1.1 spec (and the `yaml` package) also list: `script: y` is a string.
 */
function psychBooleans(tags: Tags): Tags {
  const BOOL = 'tag:yaml.org,2002:bool';
  return tags.map((t): Tags[number] => {
    if (typeof t !== 'object' || t.tag !== BOOL || !('resolve' in t) || !(t.test instanceof RegExp)) return t;
    const scalar = t as ScalarTag;
    const truthy = scalar.test!.test('true');
    return {
      ...scalar,
      test: truthy ? /^(?:[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$/ : /^(?:[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/,
    };
  });
}

/**
 * Whether the text nests deeper than the platform takes, seen before parsing: the parser recurses per
 * level, so a megabyte of `[` (or of `- `) would hold the instance for seconds before any depth check
 * on the result. Flow brackets outside quoted scalars and compact block indicators (`- - - x`) count.
 */
function nestsTooDeep(text: string): boolean {
  const max = YAML_LIMITS.depth;
  let flow = 0;
  let quote: string | null = null;
  let prev = '\n';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === '\\' && quote === '"') i++;
    } else if (ch === '#' && /\s/.test(prev)) {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl - 1;
    } else if ((ch === '"' || ch === "'") && /[\s[{,:]/.test(prev)) quote = ch;
    else if (ch === '[' || ch === '{') {
      if (++flow > max) return true;
    } else if ((ch === ']' || ch === '}') && flow > 0) flow--;
    else if (prev === '\n' && flow === 0) {
      const m = /^[ \t]*((?:[-?:][ \t]+)+)/.exec(text.slice(i, i + 4 * max + 8));
      if (m && m[1]!.replace(/[ \t]/g, '').length > max) return true;
    }
    prev = ch;
  }
  return false;
}

/** `Gitlab::Config::Loader::Yaml`: a hash, or the platform's message. */
export function load(text: string): Json {
  if (Buffer.byteLength(text) > YAML_LIMITS.bytes) throw new LoadError('The parsed YAML is too big');
  if (nestsTooDeep(text)) throw new LoadError('The parsed YAML is too deep');
  let doc: Document;
  try {
    doc = yaml().parseDocument(text, {
      version: '1.1',
      customTags: psychBooleans,
      merge: true,
      uniqueKeys: false,
      prettyErrors: false,
    });
  } catch (e) {
    throw new LoadError(`(<unknown>): ${(e as Error).message}`);
  }
  const err = doc.errors[0];
  if (err) {
    const pos = err.linePos?.[0];
    throw new LoadError(
      `(<unknown>): ${err.message.split('\n')[0]}${pos ? ` at line ${pos.line} column ${pos.col}` : ''}`,
    );
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: YAML_LIMITS.aliases });
  } catch (e) {
    throw new LoadError(`(<unknown>): ${(e as Error).message}`);
  }
  if (depthOf(value, 0) > YAML_LIMITS.depth) throw new LoadError('The parsed YAML is too deep');
  if (!isHash(value)) throw new LoadError('Invalid configuration format');
  return value;
}

function depthOf(v: unknown, d: number): number {
  if (d > YAML_LIMITS.depth) return d;
  if (Array.isArray(v)) return v.reduce((m: number, x) => Math.max(m, depthOf(x, d + 1)), d + 1);
  if (isHash(v)) return Object.values(v).reduce((m: number, x) => Math.max(m, depthOf(x, d + 1)), d + 1);
  return d;
}

/** `Hash#deep_merge`: nested hashes merge, anything else from `b` wins. */
function deepMerge(a: Json, b: Json): Json {
  const out: Json = Object.assign(Object.create(null) as Json, a);
  for (const [k, v] of Object.entries(b)) {
    const prev = Object.hasOwn(out, k) ? out[k] : undefined;
    out[k] = isHash(prev) && isHash(v) ? deepMerge(prev, v) : v;
  }
  return out;
}

/** A plain object again (prototype-free maps above), keys in order, for rendering. */
export const plain = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(plain)
    : isHash(v)
      ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]))
      : v;

// ---------------------------------------------------------------------------------------------------
// include

interface IncludeState {
  count: number;
  /** Bytes of YAML read so far, the file's own included. */
  bytes: number;
  source: IncludeSource;
}

export const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** One `include:` entry's configuration (with its own includes resolved). */
function includeOne(entry: unknown, st: IncludeState): Json {
  if (++st.count > YAML_LIMITS.includes)
    throw new LoadError(`Maximum of ${YAML_LIMITS.includes} nested includes are allowed!`);
  let kind: string;
  let location: string;
  if (typeof entry === 'string') {
    kind = /^https?:\/\//.test(entry) ? 'remote' : 'local';
    location = entry;
  } else if (isHash(entry)) {
    const keys = Object.keys(entry).filter((k) => k !== 'rules');
    const known = keys.filter((k) =>
      ['local', 'template', 'remote', 'project', 'file', 'artifact', 'job', 'ref'].includes(k),
    );
    if (entry.project !== undefined) {
      throw new LoadError(`Project \`${show(entry.project)}\` not found or access denied!`);
    }
    if (known.length !== 1 || keys.length !== 1 || typeof entry[known[0]!] !== 'string')
      throw new LoadError(`Include \`${show(plain(entry))}\` needs to match exactly one accessor!`);
    kind = known[0]!;
    location = entry[kind] as string;
  } else throw new LoadError(`Include \`${show(entry)}\` needs to match exactly one accessor!`);

  let text: string | undefined;
  // `External::File::Base#validate_location!`, for every kind.
  if (!/.+\.(yml|yaml)$/i.test(location))
    throw new LoadError(`Included file \`${location}\` does not have YAML extension!`);
  if (kind === 'remote')
    // No network: a remote include fails as the platform's fetch does when it cannot connect.
    throw new LoadError(`Remote file \`${location}\` could not be fetched because of a socket error!`);
  else if (kind === 'template') {
    if (!location.endsWith('.gitlab-ci.yml'))
      throw new LoadError(`Template file \`${location}\` is not a valid location!`);
    text = st.source.template(location);
    if (text === undefined) throw new LoadError(`Included file \`${location}\` is empty or does not exist!`);
  } else if (kind === 'local') {
    if (!st.source.local) throw new LoadError(`Local file \`${location}\` does not have project!`);
    text = st.source.local(location.replace(/^\/+/, ''));
    if (text === undefined) throw new LoadError(`Local file \`${location}\` does not exist!`);
    if (text.trim() === '') throw new LoadError(`Local file \`${location}\` is empty!`);
  } else throw new LoadError(`Include \`${show(plain(entry))}\` needs to match exactly one accessor!`);

  st.bytes += Buffer.byteLength(text);
  if (st.bytes > YAML_LIMITS.totalBytes) throw new LoadError('The parsed YAML is too big');
  let loaded: Json;
  try {
    loaded = load(text);
  } catch {
    throw new LoadError(`Included file \`${location}\` does not have valid YAML syntax!`);
  }
  return withIncludes(loaded, st);
}

/** The configuration with its `include:` merged under it: includes in order, the file itself last. */
export function withIncludes(config: Json, st: IncludeState): Json {
  if (!Object.hasOwn(config, 'include')) return config;
  const inc = config.include;
  const list = Array.isArray(inc) ? inc : [inc];
  let merged: Json = Object.create(null) as Json;
  for (const e of list) merged = deepMerge(merged, includeOne(e, st));
  const own: Json = Object.assign(Object.create(null) as Json, config);
  delete own.include;
  return deepMerge(merged, own);
}

// ---------------------------------------------------------------------------------------------------
// extends

const MAX_EXTENDS_NESTING = 10;

/** `Gitlab::Ci::Config::Extendable`: each job's `extends` merged under it, bases first. */
export function resolveExtends(config: Json): Json {
  const out: Json = Object.assign(Object.create(null) as Json, config);
  const done = new Set<string>();
  const resolve = (key: string, path: string[]): Json => {
    const job = out[key];
    if (!isHash(job) || !Object.hasOwn(job, 'extends') || done.has(key)) return job as Json;
    if (path.includes(key)) throw new LoadError(`${key}: circular dependency detected in \`extends\``);
    if (path.length > MAX_EXTENDS_NESTING) throw new LoadError(`${key}: nesting too deep in \`extends\``);
    const ext = job.extends;
    const bases = typeof ext === 'string' ? [ext] : Array.isArray(ext) ? ext : null;
    if (!bases || bases.some((b) => typeof b !== 'string')) return job;
    const unknown = bases.filter((b) => !Object.hasOwn(out, b as string));
    if (unknown.length)
      throw new LoadError(`${key}: unknown keys in \`extends\` (${(bases as string[]).join(', ')})`);
    let merged: Json = Object.create(null) as Json;
    for (const b of bases as string[]) {
      const base = resolve(b, [...path, key]);
      if (!isHash(base)) throw new LoadError(`${key}: invalid base hashes in \`extends\``);
      merged = deepMerge(merged, base);
    }
    // The job keeps its `extends` key, as the platform's merged configuration shows it.
    out[key] = deepMerge(merged, job);
    done.add(key);
    return out[key] as Json;
  };
  for (const key of Object.keys(out)) if (!RESERVED.has(key)) resolve(key, []);
  return out;
}

/** `Config::EdgeStagesInjector`: a list of `stages` (or `types`) gains `.pre` first and `.post` last. */
export function withEdgeStages(config: Json): Json {
  const key = Object.hasOwn(config, 'stages') ? 'stages' : Object.hasOwn(config, 'types') ? 'types' : null;
  if (!key || !Array.isArray(config[key])) return config;
  const stages = [...(config[key] as unknown[])];
  if (!stages.includes('.pre')) stages.unshift('.pre');
  if (!stages.includes('.post')) stages.push('.post');
  const out: Json = Object.assign(Object.create(null) as Json, config);
  out[key] = stages;
  return out;
}
