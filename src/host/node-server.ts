/**
 * The Node HTTP server the CLI serves an instance with: @hono/node-server's request listener, run in
 * turns of the event loop.
 *
 * Two things a busy mock meets that plain `serve()` leaves to chance:
 * - Since libuv 1.45 (Node 20) a listening socket accepts one connection per turn of the event loop. A
 *   turn that answers every request read in it holds back every client still connecting: 50 clients
 *   connecting at once to a fresh server (its code not yet compiled, a create taking 1-3 ms) waited up
 *   to a second for their first answer. Requests are queued as they are read and answered in the
 *   check phase for at most `turnMs` at a time, so a waiting connection is accepted within about that.
 * - Answers made in one turn are written together at its end, when the microtasks of that turn are
 *   done: a client reading many connections is woken once for them rather than once per answer (on a
 *   2-core machine the write of each answer to an idle load generator had cost more than making it).
 * Requests are answered in the order they were read; one connection's answers keep their order.
 */
import { createServer, ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';

export interface ServeNodeOptions {
  fetch: (request: Request, env: { incoming: IncomingMessage; outgoing: ServerResponse }) => unknown;
  port?: number;
  hostname?: string;
  /** Longest run of requests answered in one turn of the event loop, in ms (default 2). */
  turnMs?: number;
}

/** Requests read and waiting for a turn beyond which they are answered at once. */
const MAX_WAITING = 1024;

/**
 * A string body at least this long goes to Node with its encoding named `'utf-8'`. For `'utf8'` or none,
 * Node joins the head and the body into one string, and writing it flattens that string: a copy of the
 * whole body in the JS heap for every answer (a page of 20 users, 19 KB: two thirds of what its replay
 * allocated, 30 -> 11 KB). Named otherwise, the head and the body go as two pieces of one write, encoded
 * outside the heap. At 19 KB that took 6% less CPU (29.3 against 31.2 µs a request for a plain Node server
 * at 12,000 requests a second); at 9 KB both cost the same, and a 1 KB body was dearer split.
 */
const SPLIT_AT = 16_384;

// What `end` was called with (chunk, encoding, callback: each optional), handed on as it came but for a
// long string body's encoding (SPLIT_AT).
type EndArgs = [unknown?, unknown?, unknown?];

/**
 * Serves `fetch` over HTTP on `port` (0: any free one) and `hostname`; `onListen` gets the address.
 * The server is plain `node:http` (close it, set its timeouts as usual).
 */
export function serveNode(options: ServeNodeOptions, onListen?: (info: AddressInfo) => void): Server {
  const listener = getRequestListener(options.fetch as Parameters<typeof getRequestListener>[0], {
    hostname: options.hostname,
  });
  const turnMs = options.turnMs ?? 2;

  // Requests read and not yet answered, in order, from `head` on: [incoming, outgoing, ...]. A slot is
  // emptied when its request is taken, and the taken part is cut off once it is long, so a queue that
  // never empties under sustained load holds only what waits.
  let queue: (IncomingMessage | ServerResponse | undefined)[] = [];
  let head = 0;
  let turnScheduled = false;
  const answer = (budgetMs: number): void => {
    const t0 = performance.now();
    while (head < queue.length) {
      const incoming = queue[head] as IncomingMessage;
      const outgoing = queue[head + 1] as ServerResponse;
      queue[head] = queue[head + 1] = undefined;
      head += 2;
      void listener(incoming, outgoing);
      if (performance.now() - t0 >= budgetMs) break;
    }
    if (head === queue.length) {
      queue = [];
      head = 0;
    } else if (head >= 1024) {
      queue = queue.slice(head);
      head = 0;
    }
  };
  const turn = (): void => {
    turnScheduled = false;
    answer(turnMs);
    if (head < queue.length) {
      turnScheduled = true;
      setImmediate(turn);
    }
  };
  const admit = (incoming: IncomingMessage, outgoing: ServerResponse): void => {
    queue.push(incoming, outgoing);
    // Requests read faster than turns answer them (pipelined by the thousand): what waits is answered
    // now, in order, as a server without turns would, so that Node's own backpressure (it stops reading
    // a connection whose answers pile up unsent) bounds what a client can make the server hold.
    if (queue.length - head >= 2 * MAX_WAITING) answer(Infinity);
    else if (!turnScheduled) {
      turnScheduled = true;
      setImmediate(turn);
    }
  };

  // Ends deferred to the end of the current tick (after its microtasks): [response, args, ...].
  let ends: (ServerResponse | EndArgs)[] = [];
  let flushScheduled = false;
  const end = ServerResponse.prototype.end as unknown as (this: ServerResponse, ...args: EndArgs) => unknown;
  const flush = (): void => {
    flushScheduled = false;
    const due = ends;
    ends = [];
    for (let i = 0; i < due.length; i += 2) end.apply(due[i] as ServerResponse, due[i + 1] as EndArgs);
  };
  class TurnResponse extends ServerResponse {
    override end(...args: EndArgs): this {
      if (this.writableEnded) {
        end.apply(this, args);
        return this;
      }
      const [chunk, encoding] = args;
      if (
        typeof chunk === 'string' &&
        chunk.length >= SPLIT_AT &&
        (encoding === undefined || encoding === null || typeof encoding === 'function')
      )
        args = [chunk, 'utf-8', typeof encoding === 'function' ? encoding : args[2]];
      ends.push(this, args);
      if (!flushScheduled) {
        flushScheduled = true;
        process.nextTick(flush);
      }
      return this;
    }
  }

  const server = createServer({ ServerResponse: TurnResponse }, admit);
  server.listen(options.port ?? 0, options.hostname, () => onListen?.(server.address() as AddressInfo));
  return server;
}
