/**
 * Scenario files: loading (JSON or YAML), validation with errors that name the file and field path,
 * and building the initial state of an instance.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { createRequire } from 'node:module';
import type { z } from 'zod';
import { digest } from '../core/store.js';
import type { ScenarioRefs } from '../core/area.js';
import type { Scenario, ScenarioFile } from './schema.js';
import { strictSchemaFor } from './strict.js';
import { SCENARIO_PARTS } from './build.js';
import { generateProblems } from './limits.js';
import { builtInScenario, scenarioFile } from './builtin.js';

export { preloadGenerator } from './generate.js';

export type { Scenario, ScenarioFile };
/** A scenario object, or the path of a `.json`, `.yaml` or `.yml` file. */
export type ScenarioInput = ScenarioFile | string;

/** A scenario that does not validate; the message names the file and each field path. */
export class ScenarioError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file}: invalid scenario\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ScenarioError';
  }
}

/** `users[2].tokens[0].scopes` */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path)
    out += typeof seg === 'number' ? `[${seg}]` : out === '' ? String(seg) : `.${String(seg)}`;
  return out || '(root)';
}

function issuesOf(error: z.ZodError): string[] {
  return error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`);
}

/** The YAML parser, loaded on the first YAML file: a tenth of start-up for worlds given otherwise. */
const yaml = () => createRequire(import.meta.url)('yaml') as typeof import('yaml');

/**
 * A parser's message without the excerpt of the text it quotes (its first line, quoted strings left
 * out): the file may not be a scenario at all, and an error must not show what it holds.
 */
const withoutExcerpt = (message: string) =>
  message
    .split('\n')[0]!
    .replace(/"(?:[^"\\]|\\.)*"(?:\.\.\.)?/g, '…')
    .replace(/:\s*$/, '');

export function readScenarioFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new ScenarioError(file, [
      err.code === 'ENOENT' ? 'no such file' : `cannot read file: ${err.message}`,
    ]);
  }
  try {
    return /\.ya?ml$/i.test(file) ? yaml().parse(text) : JSON.parse(text);
  } catch (e) {
    throw new ScenarioError(file, [
      `not valid ${/\.ya?ml$/i.test(file) ? 'YAML' : 'JSON'}: ${withoutExcerpt((e as Error).message)}`,
    ]);
  }
}

/**
 * Reads (if a path) and validates a scenario, including its cross-references, after resolving
 * `extends`. Each file is validated on its own (errors name that file); cross-references are checked on
 * the merged result, and a problem in an inherited entry names the file it came from.
 */
export function loadScenario(input: ScenarioInput): Scenario {
  const file = typeof input === 'string' ? input : '(scenario)';
  const { raw, origins } = resolveExtends(typeof input === 'string' ? scenarioFile(input) : input, []);
  const result = strictSchemaFor(raw ?? {}).safeParse(raw ?? {});
  if (!result.success) throw new ScenarioError(file, issuesOf(result.error));
  const problems = [
    ...generateProblems(result.data),
    ...crossReferenceProblems(result.data).map((p) => relocate(p, origins, file)),
  ];
  if (problems.length) throw new ScenarioError(file, problems);
  return result.data;
}

const MERGED = ['users', 'groups', 'projects', 'features'] as const;
type Merged = (typeof MERGED)[number];
/** Where each entry of a merged list came from: a file other than the root one, and its index there. */
type Origins = Record<Merged, ({ file: string; index: number } | null)[]>;

const entryKey = (list: Merged, e: unknown): string | undefined => {
  if (typeof e !== 'object' || e === null) return undefined;
  const v = (e as Record<string, unknown>)[
    list === 'users' ? 'username' : list === 'features' ? 'name' : 'path'
  ];
  return typeof v === 'string' ? v.toLowerCase() : undefined;
};

/**
 * Reads a scenario and the ones it `extends` (paths relative to it; to the working directory for an
 * object), validating each, and merges them raw: a later file's scalars win, `settings` merge key by
 * key, and a list entry with the same username, path or name replaces the inherited one in place.
 */
function resolveExtends(
  input: ScenarioInput,
  chain: string[],
  root = true,
  tree?: string,
): { raw: Record<string, unknown>; origins: Origins } {
  const file = typeof input === 'string' ? resolve(input) : '(scenario)';
  // A file extends only files in its own directory tree (the root file's) or the working directory's
  // (where the person running fauxlab keeps their files), whatever the path says; and the built-in
  // scenarios shipped with fauxlab.
  if (typeof input === 'string') tree ??= realDir(file);
  const label = typeof input === 'string' ? input : '(scenario)';
  const raw = (typeof input === 'string' ? readScenarioFile(input) : input) ?? {};
  const own: Origins = { users: [], groups: [], projects: [], features: [] };
  const ownOrigin = (i: number) => (root ? null : { file, index: i });
  const fresh = (r: Record<string, unknown>): Origins => {
    for (const k of MERGED)
      own[k] = Array.isArray(r[k]) ? (r[k] as unknown[]).map((_, i) => ownOrigin(i)) : [];
    return own;
  };
  if (typeof raw !== 'object' || Array.isArray(raw) || !('extends' in raw)) {
    // Shape errors of an inherited file are reported against that file.
    if (!root) {
      const r = strictSchemaFor(raw).safeParse(raw);
      if (!r.success) throw new ScenarioError(label, issuesOf(r.error));
    }
    return { raw: raw as Record<string, unknown>, origins: fresh(raw as Record<string, unknown>) };
  }
  const self = raw as Record<string, unknown>;
  const checked = strictSchemaFor(self).safeParse(self);
  if (!checked.success) throw new ScenarioError(label, issuesOf(checked.error));
  const bases = ([] as string[]).concat(checked.data.extends ?? []);
  const dir = typeof input === 'string' ? dirname(file) : process.cwd();
  let merged: Record<string, unknown> = {};
  let origins: Origins = { users: [], groups: [], projects: [], features: [] };
  bases.forEach((b, i) => {
    const at = `extends${Array.isArray(self.extends) ? `[${i}]` : ''}`;
    const builtIn = builtInScenario(b);
    const path = builtIn ?? resolve(dir, b);
    if (path === file || chain.includes(path))
      throw new ScenarioError(label, [
        `${at}: "${b}" extends itself (${[...chain, file, path].map((p) => relative(process.cwd(), p) || p).join(' -> ')})`,
      ]);
    if (builtIn === undefined && tree !== undefined && !inside(tree, path) && !inside(process.cwd(), path))
      throw new ScenarioError(label, [
        `${at}: "${b}" is outside the scenario's directory (${tree}) and the working directory`,
      ]);
    if (!existsSync(path)) throw new ScenarioError(label, [`${at}: no such file "${b}"`]);
    const base = resolveExtends(path, [...chain, file], false, builtIn === undefined ? tree : undefined);
    [merged, origins] = mergeRaw(merged, origins, base.raw, base.origins);
  });
  const { extends: _extends, $schema: _schema, ...rest } = self;
  [merged, origins] = mergeRaw(merged, origins, rest, fresh(rest));
  return { raw: merged, origins };
}

/** The real directory of a file (symbolic links resolved where they exist). */
function realDir(file: string): string {
  try {
    return dirname(realpathSync(file));
  } catch {
    return dirname(file);
  }
}

/** Whether `path` (symbolic links resolved) is in the directory tree `dir`. */
function inside(dir: string, path: string): boolean {
  let real = path;
  try {
    real = realpathSync(path);
  } catch {
    // A file that does not exist is judged by its path, and then reported missing.
  }
  const rel = relative(dir, real);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

function mergeRaw(
  base: Record<string, unknown>,
  baseOrigins: Origins,
  top: Record<string, unknown>,
  topOrigins: Origins,
): [Record<string, unknown>, Origins] {
  const out: Record<string, unknown> = { ...base };
  const origins: Origins = { ...baseOrigins };
  for (const [k, v] of Object.entries(top)) {
    if (k === 'extends' || k === '$schema') continue;
    if (k === 'settings' && typeof v === 'object' && v !== null && typeof base.settings === 'object')
      out.settings = { ...(base.settings as object), ...v };
    else if ((MERGED as readonly string[]).includes(k) && Array.isArray(v) && Array.isArray(base[k])) {
      const list = k as Merged;
      const entries = [...(base[k] as unknown[])];
      const from = [...baseOrigins[list]];
      const at = new Map<string, number>();
      entries.forEach((e, i) => {
        const key = entryKey(list, e);
        if (key !== undefined) at.set(key, i);
      });
      v.forEach((e, j) => {
        const key = entryKey(list, e);
        const i = key === undefined ? undefined : at.get(key);
        if (i === undefined) {
          entries.push(e);
          from.push(topOrigins[list][j] ?? null);
        } else {
          entries[i] = e;
          from[i] = topOrigins[list][j] ?? null;
        }
      });
      out[k] = entries;
      origins[list] = from;
    } else {
      out[k] = v;
      if ((MERGED as readonly string[]).includes(k)) origins[k as Merged] = topOrigins[k as Merged];
    }
  }
  return [out, origins];
}

/** Rewrites `projects[3].creator: ...` to name the inherited file and index the entry came from. */
function relocate(problem: string, origins: Origins, rootFile: string): string {
  const m = /^(users|groups|projects|features)\[(\d+)\]/.exec(problem);
  const o = m ? origins[m[1] as Merged][Number(m[2])] : null;
  if (!m || !o) return problem;
  const base = rootFile === '(scenario)' ? process.cwd() : dirname(resolve(rootFile));
  return `${relative(base, o.file)}: ${m[1]}[${o.index}]${problem.slice(m[0].length)}`;
}

function crossReferenceProblems(s: Scenario): string[] {
  const problems: string[] = [];
  const users = new Set<string>();
  s.users.forEach((u, i) => {
    const k = u.username.toLowerCase();
    if (users.has(k)) problems.push(`users[${i}].username: "${u.username}" is used twice`);
    users.add(k);
  });
  const emails = new Set<string>();
  s.users.forEach((u, i) => {
    const e = (u.email ?? `${u.username}@example.com`).toLowerCase();
    if (emails.has(e)) problems.push(`users[${i}].email: "${e}" is used twice`);
    emails.add(e);
  });
  const tokens = new Set<string>();
  s.users.forEach((u, i) =>
    u.tokens.forEach((t, j) => {
      const key = t.token_digest ?? digest(t.token);
      const field = t.token_digest === undefined ? 'token' : 'token_digest';
      if (tokens.has(key)) problems.push(`users[${i}].tokens[${j}].${field}: the same token is given twice`);
      tokens.add(key);
    }),
  );
  const features = new Set<string>();
  s.features.forEach((f, i) => {
    if (features.has(f.name)) problems.push(`features[${i}].name: "${f.name}" is listed twice`);
    features.add(f.name);
  });
  const memberProblems = (at: string, members: readonly { username: string }[]) => {
    const seen = new Set<string>();
    members.forEach((m, j) => {
      const k = m.username.toLowerCase();
      if (!users.has(k)) problems.push(`${at}.members[${j}].username: no user "${m.username}"`);
      else if (seen.has(k)) problems.push(`${at}.members[${j}].username: "${m.username}" is listed twice`);
      seen.add(k);
    });
  };
  const groups = new Set<string>();
  const refs: ScenarioRefs = { users, groups };
  s.groups.forEach((g, i) => {
    const k = g.path.toLowerCase();
    const parent = k.includes('/') ? k.slice(0, k.lastIndexOf('/')) : null;
    if (groups.has(k) || users.has(k)) problems.push(`groups[${i}].path: "${g.path}" is already taken`);
    if (parent && !groups.has(parent))
      problems.push(`groups[${i}].path: parent group "${parent}" must be listed before "${g.path}"`);
    groups.add(k);
    memberProblems(`groups[${i}]`, g.members);
  });
  // Links may name a group listed later: checked once every group is known.
  s.groups.forEach((g, i) => {
    const seen = new Set<string>();
    g.shared_with.forEach((sh, j) => {
      const k = sh.group.toLowerCase();
      if (!groups.has(k)) problems.push(`groups[${i}].shared_with[${j}].group: no group "${sh.group}"`);
      else if (seen.has(k))
        problems.push(`groups[${i}].shared_with[${j}].group: "${sh.group}" is listed twice`);
      seen.add(k);
    });
  });
  const projects = new Set<string>();
  s.projects.forEach((p, i) => {
    const k = p.path.toLowerCase();
    const ns = k.slice(0, k.lastIndexOf('/'));
    if (!groups.has(ns) && !users.has(ns)) problems.push(`projects[${i}].path: no group or user "${ns}"`);
    if (projects.has(k)) problems.push(`projects[${i}].path: "${p.path}" is used twice`);
    projects.add(k);
    if (p.creator && !users.has(p.creator.toLowerCase()))
      problems.push(`projects[${i}].creator: no user "${p.creator}"`);
    memberProblems(`projects[${i}]`, p.members);
    p.starred_by.forEach((u, j) => {
      if (!users.has(u.toLowerCase())) problems.push(`projects[${i}].starred_by[${j}]: no user "${u}"`);
    });
    p.shared_with.forEach((sh, j) => {
      if (!groups.has(sh.group.toLowerCase()))
        problems.push(`projects[${i}].shared_with[${j}].group: no group "${sh.group}"`);
    });
    if (p.forked_from && !projects.has(p.forked_from.toLowerCase()))
      problems.push(`projects[${i}].forked_from: no project "${p.forked_from}" listed before`);
    for (const a of SCENARIO_PARTS) problems.push(...(a.projectProblems?.(p, `projects[${i}]`, refs) ?? []));
  });
  const gen = s.generate;
  if (gen && gen.projects > 0 && gen.users + s.users.length + gen.groups + s.groups.length === 0)
    problems.push('generate.projects: projects need an owner: give users or groups (or generate.users)');
  for (const a of SCENARIO_PARTS) problems.push(...(a.problems?.(s, refs) ?? []));
  return problems;
}

export { buildWorld, type BuildOptions } from './build.js';
