/**
 * The area descriptor: everything the rest of fauxlab needs of one API area, in one value that its
 * folder exports. The area list (src/resources/index.ts) is the only place that names areas; the route
 * table, the empty state, the control plane and the scenario format iterate it.
 */
import type { Cascade } from './cascade.js';
import type { MergeCheck } from './merge-checks.js';
import type { PushHook } from './push.js';
import type { Context, Hono } from 'hono';
import type { Draft } from 'immer';
import type { z } from 'zod';
import type { Env, Fx } from './context.js';
import type { ApiRouter } from './router.js';
import type { AreaStates, PlatformState } from './state.js';

type Entry = Record<string, unknown>;
type S = Draft<PlatformState>;

/**
 * A validated scenario as an area's hooks see it (with every area's fields); each area declares its
 * hooks with the type of what it reads.
 */
export type ScenarioData = Entry;

/** What building a world offers an area's builders. */
export interface ScenarioBuild {
  /** The file's `now`: the creation time of records that give none. */
  readonly now: string;
  /** The id of a user the scenario lists (its cross-checks have made sure of it). */
  uid(username: string): number;
}

/** The lower-cased usernames and group paths a scenario lists, for cross-checks. */
export interface ScenarioRefs {
  readonly users: ReadonlySet<string>;
  readonly groups: ReadonlySet<string>;
}

/**
 * An area's part of the scenario file format. Hooks are methods, so that an area declares them with the
 * types of its own fields. Builders run in the area list's order: `buildFirst` before the users, the
 * entry builders right after their entry is created, `build` after every project.
 */
export interface AreaScenario {
  /** Top-level fields, and fields of a user, group and project entry (zod shapes). */
  readonly fields?: z.ZodRawShape;
  readonly userFields?: z.ZodRawShape;
  readonly groupFields?: z.ZodRawShape;
  readonly projectFields?: z.ZodRawShape;
  /** Problems the schema cannot see, as `path: message` lines. */
  problems?(s: ScenarioData, refs: ScenarioRefs): string[];
  /** The same for one project entry (`at` is `projects[i]`), reported with the project's other problems. */
  projectProblems?(p: Entry, at: string, refs: ScenarioRefs): string[];
  buildFirst?(st: S, s: ScenarioData, b: ScenarioBuild): void;
  buildUser?(st: S, id: number, u: Entry, b: ScenarioBuild): void;
  buildGroup?(st: S, id: number, g: Entry, b: ScenarioBuild): void;
  buildProject?(st: S, id: number, p: Entry, b: ScenarioBuild): void;
  build?(st: S, s: ScenarioData, b: ScenarioBuild): void;
  /** Counts of generated records (fields of `generate`), and the generator, run after the core's. */
  readonly generateFields?: z.ZodRawShape;
  generate?(st: S, counts: Entry, seed: number, now: Date): void;
  /**
   * Writes the area's records into an exported scenario (src/scenario/export.ts), as the fields its
   * builders read back: loading the export gives the same records again.
   */
  export?(st: PlatformState, out: ScenarioOut): void;
}

export interface Area {
  /** The folder name under src/resources/. */
  readonly name: string;
  /** The area's own slice of the state root, when it keeps records of its own. */
  readonly state?: { readonly key: keyof AreaStates; readonly empty: () => unknown };
  /** Registers the area's API routes (under `/api/v4`, and any web pages) on the shared router. */
  readonly routes?: (r: ApiRouter) => void;
  /** Registers the runners of the background jobs the area queues (src/core/jobs.ts). */
  readonly jobs?: (r: ApiRouter) => void;
  /** Registers the area's control-plane routes (under `/__fauxlab/`). */
  readonly control?: (app: Hono<Env>, fxOf: (c: Context<Env>) => Fx) => void;
  readonly scenario?: AreaScenario;
  /** What the area removes when a project or group is deleted (src/core/cascade.ts). */
  readonly cascade?: Cascade;
  /** What the area does when a branch moves (src/core/push.ts). */
  readonly push?: PushHook;
  /** What else a merge request needs before it merges (src/core/merge-checks.ts). */
  readonly mergeCheck?: MergeCheck;
}

/** The slice's type must be the one the area declares for its key. */
type StateChecked<A> = A extends { readonly state: { readonly key: infer K extends keyof AreaStates } }
  ? { readonly state: { readonly key: K; readonly empty: () => AreaStates[K] } }
  : unknown;

/** An area's descriptor, its type kept as written (the scenario schema's type is built from the fields). */
export function defineArea<const A extends Area>(area: A & StateChecked<A>): A {
  return area;
}

/** Where an area's exporter writes: the file's top level and the entries of the exported records. */
export interface ScenarioOut {
  /** The file's `now` (the instance clock when exporting). */
  readonly now: string;
  /** The scenario file's top-level object. */
  readonly file: Entry;
  /** The entry of a group or project by id, or undefined when it is not exported. */
  group(id: number): Entry | undefined;
  project(id: number): Entry | undefined;
  /** The entry of a user by id, or undefined. */
  user(id: number): Entry | undefined;
  /** The username of a user id, or undefined for a user that is gone. */
  username(id: number | null): string | undefined;
}
