/**
 * The area descriptor: everything the rest of fauxlab needs of one API area, in one value that its
 * folder exports. The area list (src/resources/index.ts) is the only place that names areas; the route
 * table, the empty state and the control plane iterate it.
 */
import type { Context, Hono } from 'hono';
import type { Env, Fx } from './context.js';
import type { ApiRouter } from './router.js';
import type { AreaStates, PlatformState } from './state.js';

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
  /** The area's part of the scenario file format. */
  readonly scenario?: {
    /**
     * Writes the area's records into an exported scenario (src/scenario/export.ts), as the fields its
     * builder reads back: loading the export gives the same records again.
     */
    readonly export?: (st: PlatformState, out: ScenarioOut) => void;
  };
}

type Entry = Record<string, unknown>;

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

/** An area's descriptor; the state slice's type is checked against the key the area declares. */
export function defineArea<K extends keyof AreaStates>(
  area: Omit<Area, 'state'> & { readonly state?: { readonly key: K; readonly empty: () => AreaStates[K] } },
): Area {
  return area;
}
