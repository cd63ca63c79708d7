/**
 * The build a benchmark measures. By default the build this script is part of; with
 * FAUXLAB_BENCH_TARGET=<dir> (a checkout holding `dist/`, or a `dist/` itself) another build, so that one
 * benchmark script can measure two builds alike (`bench/compare.ts`). Only modules and exports that
 * every build since the response cache has are used, each loaded from the target at run time.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Server } from 'node:http';
import type { Draft } from 'immer';
import type { PlatformState } from '../src/core/state.js';
import { listen, type Serve } from './report.js';

type IndexModule = typeof import('../src/index.js');

/** The `dist/` directory of the build measured. */
export function targetDist(): string {
  const dir = process.env.FAUXLAB_BENCH_TARGET;
  if (!dir) return fileURLToPath(new URL('..', import.meta.url));
  const abs = resolve(dir);
  if (existsSync(join(abs, 'dist', 'src', 'index.js'))) return join(abs, 'dist');
  if (existsSync(join(abs, 'src', 'index.js'))) return abs;
  throw new Error(`FAUXLAB_BENCH_TARGET=${dir}: no build there (dist/src/index.js); run npm run build in it`);
}

const load = <T>(rel: string): Promise<T> =>
  import(pathToFileURL(join(targetDist(), rel)).href) as Promise<T>;

/** The public entry point of the target build. */
export const fauxlab = (): Promise<IndexModule> => load<IndexModule>('src/index.js');

/** The CLI of the target build. */
export const fauxlabBin = (): string => join(targetDist(), 'bin', 'fauxlab.js');

/** What the store-write figure needs: the store and the user model, as every build has had them. */
export interface StoreParts {
  Store: new (initial: PlatformState) => { write<R>(fn: (d: Draft<PlatformState>) => R): R };
  createUser: (
    st: Draft<PlatformState>,
    input: { username: string; name: string; email: string },
    now: string,
  ) => number;
}

export async function storeParts(): Promise<StoreParts> {
  const [{ Store }, { createUser }] = await Promise.all([
    load<StoreParts>('src/core/store.js'),
    load<StoreParts>('src/resources/users/model.js'),
  ]);
  return { Store, createUser };
}

/**
 * Every project record of a state, by id, as the target build keeps them: read once through the table
 * module's `tvalues` (every build since the bucketed tables), else through whatever iteration the
 * collection offers, so that a handler outside fauxlab can serve them.
 */
export async function projectRecords(state: PlatformState): Promise<Map<number, object>> {
  const out = new Map<number, object>();
  const coll = state.projects as unknown;
  let values: Iterable<unknown> | undefined;
  try {
    const table = await load<{ tvalues?: (t: unknown) => unknown[] }>('src/core/table.js');
    if (table.tvalues) values = table.tvalues(coll);
  } catch {
    values = undefined;
  }
  if (!values && coll && typeof (coll as Map<unknown, unknown>).values === 'function')
    values = (coll as Map<unknown, unknown>).values();
  for (const v of values ?? []) {
    const id = (v as { id?: unknown }).id;
    if (typeof id === 'number') out.set(id, v as object);
  }
  return out;
}

type NodeServerModule = typeof import('../src/host/node-server.js');

/**
 * Serves an instance of the target build on a free port of 127.0.0.1 as its CLI does: through the
 * build's own Node server where it has one (`src/host/node-server.js`), else through
 * @hono/node-server's `serve` (`listen`), as the CLI of those builds did.
 */
export async function listenFauxlab(
  fetch: (r: Request) => Promise<Response> | Response,
): Promise<{ server: Server; port: number }> {
  const host = existsSync(join(targetDist(), 'src', 'host', 'node-server.js'))
    ? await load<NodeServerModule>('src/host/node-server.js')
    : undefined;
  return host ? listen(fetch, host.serveNode) : listen(fetch);
}

/** The ESM entry of package `name` as code in `from` resolves it (the nearest `node_modules` above). */
function esmEntry(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const pkg = join(dir, 'node_modules', name);
    if (existsSync(join(pkg, 'package.json'))) {
      const json = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as {
        exports?: { '.'?: { import?: string | { default?: string } } };
        module?: string;
      };
      const imp = json.exports?.['.']?.import;
      const rel = typeof imp === 'string' ? imp : (imp?.default ?? json.module);
      return rel === undefined ? undefined : join(pkg, rel);
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * Hono and @hono/node-server's `serve` as the target build loads them, for a baseline served in the same
 * process as the target. A process must load one copy of them: each copy of @hono/node-server, when it
 * serves, makes its own Request and Response classes the global ones, and a listener of one copy sends
 * a Response of another copy's class through its slow path (the body read back as a stream). A target
 * in another checkout than this script's was measured that way beside a baseline of this script's copy.
 */
export async function targetHttp(): Promise<{ Hono: typeof import('hono').Hono; serve: Serve }> {
  const from = targetDist();
  const hono = esmEntry('hono', from);
  const server = esmEntry('@hono/node-server', from);
  const [h, n] = await Promise.all([
    hono ? (import(pathToFileURL(hono).href) as Promise<typeof import('hono')>) : import('hono'),
    server
      ? (import(pathToFileURL(server).href) as Promise<typeof import('@hono/node-server')>)
      : import('@hono/node-server'),
  ]);
  return { Hono: h.Hono, serve: n.serve as unknown as Serve };
}

/**
 * A bare server in the target's process answering pre-serialised JSON bodies (`/name`: `bodies[name]`,
 * whatever the method), on the Hono and `serve` the target loads (see `targetHttp`).
 */
export async function listenBare(bodies: Record<string, string>): Promise<{ server: Server; port: number }> {
  const http = await targetHttp();
  const app = new http.Hono();
  for (const [name, body] of Object.entries(bodies))
    app.all(`/${name}`, (c) => c.body(body, 200, { 'Content-Type': 'application/json' }));
  return listen(app.fetch, http.serve);
}
