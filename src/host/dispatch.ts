/**
 * How an instance answers a request (its `fetch`): a GET that a route answers at once goes the lean
 * table's way, replayed from the response memo when the world has not changed, and journaled when the
 * journal is read; a light write goes the lean way too; anything else (faults set, throttles on, a body
 * in parts, a path outside `/api/v4/`) goes through the full table and its middleware.
 */
import { types } from 'node:util';
import { recordActivity } from '../core/activity.js';
import type { Clock } from '../core/clock.js';
import { ApiError } from '../core/errors.js';
import type { Fx } from '../core/context.js';
import { knownBody, knownText } from '../core/fetch.js';
import type { Kept, ResponseMemo } from '../core/memo.js';
import {
  chunkResponse,
  madeOf,
  materialize,
  plainHeaders,
  plainResponse,
  textOf,
  type Made,
} from '../core/respond.js';
import type { PlatformState } from '../core/state.js';
import type { Store } from '../core/store.js';
import { iget, tget } from '../core/table.js';
import { settleJobs } from '../core/jobs.js';
import {
  captureResponse,
  HeldResponse,
  holdBody,
  journalBodyKept,
  journalHeaders,
  PendingEntry,
  type HeldBody,
  type Journal,
  type JournalEntry,
} from '../testing/journal.js';
import type { Faults } from '../testing/faults.js';
import { deliver, rawHeadersOf } from './deliver.js';
import type { PendingRequest, Probe, RequestEnv } from './env.js';
import type { Binding } from './instance.js';
import { withSecurityHeaders } from './security.js';
import { NO_MATCH, type RouteTable } from './table.js';
import { throttlesOn } from './throttle.js';

/**
 * What the journal holds of a made response's body: the same string or bytes (see `holdBody`). A string
 * body without a type is sent as `text/plain;charset=UTF-8`, as `Response` names it.
 */
function heldOf(made: Made): HeldBody | undefined {
  const type = made.headers['content-type'] ?? (typeof made.body === 'string' ? 'text/plain' : '');
  return holdBody(made.body, made.size, type);
}

/** Whether a URL's raw path is under `/api/v4/` (the routes the lean path may answer). */
function isApiUrl(url: string): boolean {
  const start = url.indexOf('/', url.indexOf('://') + 3);
  return start >= 0 && url.startsWith('/api/v4/', start);
}

/**
 * `{ ...env, fauxlab, probe }`. A Node server's bindings (`{ incoming, outgoing }`, nothing else) are
 * written out: V8 made the spread object, with the two members added after, about a microsecond, and
 * each later read of its members as much again.
 */
function requestEnv(env: object | undefined, fauxlab: Binding, probe: Probe): object {
  if (env === undefined || env === null) return { fauxlab, probe };
  if (isNodeBindings(env)) return { incoming: env.incoming, outgoing: env.outgoing, fauxlab, probe };
  return { ...env, fauxlab, probe };
}

/**
 * Whether what a spread of `env` copies is exactly `incoming` and `outgoing`, in that order: its own
 * enumerable members (a getter is read once either way; the prototype is not copied).
 */
function isNodeBindings(env: object): env is { incoming: unknown; outgoing: unknown } {
  if (types.isProxy(env)) return false;
  const keys = Object.keys(env);
  return (
    keys.length === 2 &&
    keys[0] === 'incoming' &&
    keys[1] === 'outgoing' &&
    Object.getOwnPropertySymbols(env).length === 0
  );
}

/** What an instance's dispatch works with. */
export interface DispatchParts {
  fx: Fx;
  store: Store;
  clock: Clock;
  table: RouteTable;
  journal: Journal;
  faults: Faults;
  memo: ResponseMemo | undefined;
  logger: (message: string, error: unknown) => void;
  /** The instance's binding (made after the dispatch, as it names the instance). */
  binding: () => Binding;
}

/** The instance's `fetch` (always a promise) and `handle` (a response at once where it can). */
export function dispatcher(parts: DispatchParts): {
  fetch: (request: Request, env?: object) => Promise<Response>;
  handle: (request: Request, env?: object) => Response | Promise<Response>;
} {
  const { fx, store, clock, table, journal, faults, memo, logger, binding } = parts;
  // The sockets already counted in `fx.servedPorts` (a keep-alive socket brings many requests).
  const seenSockets = new WeakSet<object>();
  const nowMs = () => clock.ms();

  function fetch(request: Request, env?: object): Promise<Response> {
    try {
      const res = handle(request, env);
      return res instanceof Promise ? res : Promise.resolve(res);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /**
   * `fetch`, answering at once where it can: a GET that needs nothing asynchronous gets its response
   * without a promise, which lets @hono/node-server write it on its synchronous path (`app.fetch`).
   */
  function handle(request: Request, env?: object): Response | Promise<Response> {
    const socket = (env as { incoming?: { socket?: { localPort?: number } } } | undefined)?.incoming?.socket;
    if (socket !== undefined && !seenSockets.has(socket)) {
      seenSockets.add(socket);
      if (socket.localPort !== undefined) fx.servedPorts.add(socket.localPort);
    }
    // Background work that fell due since the last request happens before this one is answered.
    if (store.state.jobs.length > 0) settleJobs(fx, table.jobs, logger);
    if (faults.size > 0 || !isApiUrl(request.url) || throttlesOn(store.state)) return fullFetch(request, env);
    if (request.method !== 'GET') return leanWrite(request, env);
    const t0 = performance.now();
    const at = journal.enabled ? clock.ms() : 0;
    const root = store.state;
    const raw = memo || journal.enabled ? rawHeadersOf(request, env) : undefined;
    let key: string | undefined;
    if (memo) {
      key = memo.key(request, raw);
      const kept = memo.get(key, root, nowMs);
      // Replayed with the journal on too: the entry holds the kept bytes themselves.
      if (kept) return replay(kept, request, env, t0, at);
    }
    const probe: Probe = {};
    const reads = clock.reads;
    const res = table.lean.fetch(request, requestEnv(env, binding(), probe));
    const done = (r: Response) => {
      if (r !== NO_MATCH && key !== undefined && store.state === root) keep(key, root, r, probe, reads);
      return leanDone(request, env, raw, probe, r, t0, at);
    };
    return res instanceof Promise ? res.then(done) : done(res);
  }

  /**
   * A write whose body is a light request's string (or none) within the body cap, with no declared
   * length and not a form in parts: the lean table answers it as it answers a GET (the body cap has
   * nothing to refuse, no fault is set, the journal entry is made when read). Anything else goes the
   * full way, through the middleware.
   */
  function leanWrite(request: Request, env?: object): Response | Promise<Response> {
    const m = request.method;
    if (m !== 'POST' && m !== 'PUT' && m !== 'PATCH' && m !== 'DELETE') return fullFetch(request, env);
    const body = knownBody(request);
    if (body === undefined || request.headers.has('content-length')) return fullFetch(request, env);
    const type = (request.headers.get('content-type') ?? '').toLowerCase();
    if (type.startsWith('multipart/form-data')) return fullFetch(request, env);
    const max = binding().maxBodySize;
    if (body !== null && body.length * 3 > max && Buffer.byteLength(body, 'utf8') > max)
      return fullFetch(request, env);
    const t0 = performance.now();
    const at = journal.enabled ? clock.ms() : 0;
    const raw = journal.enabled ? rawHeadersOf(request, env) : undefined;
    const journaled =
      journal.enabled && body !== null
        ? { text: journalBodyKept(knownText(request)!, journal.bodyLimit), type, limit: journal.bodyLimit }
        : undefined;
    const probe: Probe = {};
    const res = table.lean.fetch(request, requestEnv(env, binding(), probe));
    const done = (r: Response) => leanDone(request, env, raw, probe, r, t0, at, journaled);
    return res instanceof Promise ? res.then(done) : done(res);
  }

  /** Keeps a lean answer that wrote nothing, when it is held as bytes. */
  function keep(key: string, root: PlatformState, res: Response, probe: Probe, reads: number): void {
    const made = madeOf(res);
    if (!made || !memo || !memo.admits(key, made.size)) return;
    const err = probe.error instanceof ApiError ? probe.error : undefined;
    memo.set(key, root, {
      key,
      status: res.status,
      headers: made.headers,
      body: made.body,
      size: made.size,
      route: probe.route ?? null,
      user: probe.viewer?.user?.username ?? null,
      sudoFrom: probe.viewer?.sudoFrom?.username,
      explain: err?.explain,
      clockMs: clock.reads !== reads ? clock.ms() : undefined,
    });
  }

  /** Sends a kept answer again, and journals it as the route would have. */
  function replay(kept: Kept, request: Request, env: object | undefined, t0: number, at: number): Response {
    const b = kept.body;
    const res =
      typeof b === 'string' || b instanceof Uint8Array
        ? plainResponse(b, kept.status, kept.headers)
        : chunkResponse(b, kept.size, kept.status, kept.headers);
    const out = deliver(res, env);
    // The day may have turned since the answer was kept: the activity it records is still due.
    if (kept.user !== null && kept.status < 400) {
      const id = iget(store.state.idx.usernames, kept.user.toLowerCase());
      recordActivity(fx, id === undefined ? undefined : tget(store.state.users, id));
    }
    if (journal.enabled)
      journal.addPending(
        // The request as its key, which the memo keeps anyway: nothing of this request outlives it.
        new PendingEntry(
          at,
          request.method,
          kept.key,
          undefined,
          kept.status,
          kept.headers,
          Math.round((performance.now() - t0) * 1000) / 1000,
          kept.route,
          kept.user,
          kept.sudoFrom,
          kept.explain,
          journal.recordsBody(kept.status) ? heldOf(kept) : undefined,
          undefined,
          journal.bodyLimit,
        ),
      );
    return out;
  }

  /** Completes a lean request: security headers, then the journal entry (made when the journal is read). */
  function leanDone(
    request: Request,
    env: object | undefined,
    raw: readonly string[] | undefined,
    probe: Probe,
    res: Response,
    t0: number,
    at: number,
    requestBody?: PendingEntry['requestBody'],
  ): Response | Promise<Response> {
    if (res === NO_MATCH) return fullFetch(request, env);
    const plain = plainHeaders(res);
    if (!plain) res = withSecurityHeaders(res);
    // A body in pieces goes to a Node server's response as it is; anywhere else it is joined.
    const out = deliver(res, env);
    if (!journal.enabled) return out;
    const durationMs = Math.round((performance.now() - t0) * 1000) / 1000;
    const err = probe.error instanceof ApiError ? probe.error : undefined;
    const caughtAll = err?.status === 404 && (err.body as { error?: unknown })?.error === '404 Not Found';
    const viewer = probe.viewer;
    const answered = res;
    const headers = raw ?? request.headers;
    const pending = (body?: HeldBody) =>
      new PendingEntry(
        at,
        request.method,
        request.url,
        headers,
        answered.status,
        plain ?? answered.headers,
        durationMs,
        probe.route !== undefined && !caughtAll ? probe.route : null,
        viewer?.user?.username ?? null,
        viewer?.sudoFrom?.username,
        err?.explain,
        body,
        requestBody,
        journal.bodyLimit,
      );
    const made = madeOf(answered);
    const text = made ? undefined : textOf(answered);
    if (!journal.recordsBody(res.status) || made || text !== undefined) {
      // The bytes (or the text) the response was made of, held as they are: the answer stays on the
      // fast path.
      const body = !journal.recordsBody(res.status) ? undefined : made ? heldOf(made) : text || undefined;
      journal.addPending(pending(body));
      return out;
    }
    // A response built otherwise (its body a stream): read once, held as bytes, sent rebuilt.
    return captureResponse(out).then(
      (captured) => {
        journal.addPending(pending(captured.body));
        return captured.response;
      },
      (e: unknown) => {
        logger('fauxlab: could not record a response in the journal', e);
        return out;
      },
    );
  }

  async function fullFetch(request: Request, env?: object): Promise<Response> {
    const probe: Probe = {};
    const res = materialize(await table.app.fetch(request, requestEnv(env, binding(), probe)));
    if (probe.pending && !probe.drop) return recordPending(probe.pending, res);
    if (probe.entry && !probe.drop) return record(probe.entry, res);
    if (!probe.drop) return res;
    if (probe.entry) journal.add(probe.entry);
    const socket = (env as RequestEnv | undefined)?.incoming?.socket;
    if (socket) {
      // On a real server: close the socket, and tell @hono/node-server not to answer.
      socket.destroy();
      return new Response(null, { headers: { 'x-hono-already-sent': '1' } });
    }
    // In process and in MSW, a network error (MSW 2 rejects the client's fetch with a TypeError).
    return Response.error();
  }

  /** The response body the journal holds: the made bytes, else read once (a stream) and rebuilt. */
  async function held(res: Response): Promise<{ response: Response; body?: HeldBody }> {
    if (!journal.recordsBody(res.status)) return { response: res };
    const made = madeOf(res);
    if (made) return { response: res, body: heldOf(made) };
    const text = textOf(res);
    return text !== undefined ? { response: res, body: text || undefined } : captureResponse(res);
  }

  /** Completes a journal entry with the response; returns the response to send. */
  async function record(entry: Omit<JournalEntry, 'id'>, res: Response): Promise<Response> {
    try {
      const captured = await held(res);
      const base = { ...entry, status: res.status, responseHeaders: journalHeaders(res.headers) };
      if (captured.body === undefined) journal.add(base);
      else journal.addPending(new HeldResponse(base, res.headers, captured.body, journal.bodyLimit));
      return captured.response;
    } catch (e) {
      logger('fauxlab: could not record a response in the journal', e);
      return res;
    }
  }

  /** `record` of a request kept for a pending entry (`PendingRequest`). */
  async function recordPending(p: PendingRequest, res: Response): Promise<Response> {
    try {
      const captured = await held(res);
      const plain = plainHeaders(res);
      // The plain headers only where they are all the response has (a string body names its type);
      // anything else is copied, as the caller may change the response's headers afterwards.
      const headers =
        plain && ('content-type' in plain || typeof madeOf(res)?.body !== 'string')
          ? plain
          : new Headers(res.headers);
      journal.addPending(
        new PendingEntry(
          p.atMs,
          p.method,
          p.url,
          p.headers,
          res.status,
          headers,
          p.durationMs,
          p.route,
          p.user,
          p.sudoFrom,
          p.explain,
          captured.body,
          p.body,
          journal.bodyLimit,
        ),
      );
      return captured.response;
    } catch (e) {
      logger('fauxlab: could not record a response in the journal', e);
      return res;
    }
  }

  return { fetch, handle };
}
