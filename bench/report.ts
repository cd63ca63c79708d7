/**
 * What every benchmark script shares: child processes for measurements, servers and load phases on
 * 127.0.0.1, write-cost timing, and the table formatting of the report.
 */
import { fork, type ChildProcess } from 'node:child_process';
import type { Server } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import autocannon from 'autocannon';

/** A full collection, where the child runs with `--expose-gc` (a no-op elsewhere). */
export const gc = () => (globalThis as { gc?: () => void }).gc?.();
export const mb = (bytes: number) => Math.round(bytes / 1048576);

export const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** One table row: the first cell left-aligned, the others right-aligned, to the given widths. */
export const row = (cells: (string | number)[], widths: number[]) =>
  cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]!) : String(c).padStart(widths[i]!))).join('  ');

/** A port free on 127.0.0.1 now (a server listening on port 0 tells it, then closes). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as { port: number }).port;
  await new Promise((r) => probe.close(r));
  return port;
}

/** A Node server of `fetch` as @hono/node-server's `serve` makes one (a build's `serveNode` too). */
export type Serve = (
  options: { fetch: (r: Request) => Promise<Response> | Response; hostname: string; port: number },
  onListen: (info: AddressInfo) => void,
) => unknown;

/** Serves `fetch` on a free port of 127.0.0.1, through `serveWith` (default @hono/node-server's `serve`). */
export function listen(
  fetch: (r: Request) => Promise<Response> | Response,
  serveWith: Serve = serve,
): Promise<{ server: Server; port: number }> {
  return new Promise((resolve) => {
    const s = serveWith({ fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) => {
      const server = s as Server;
      // Node's 5 s default races the client's pooled connections under sustained load (ECONNRESET).
      server.keepAliveTimeout = 65_000;
      resolve({ server, port: info.port });
    });
  });
}

/** Child side of a served phase: sends `ready` to the parent, then serves until told to stop. */
export function serveUntilStopped(ready: unknown, servers: Server[]): void {
  process.send!(ready);
  process.on('message', (m) => {
    if (m !== 'stop') return;
    for (const s of servers) {
      s.closeAllConnections();
      s.close();
    }
    process.exit(0);
  });
}

export interface Load {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  bytesPerResponse: number;
}

/** One load phase of `seconds` with `connections` connections, each request on the path `nextPath` gives. */
export async function load(
  o: { connections: number; seconds: number },
  name: string,
  port: number,
  nextPath: () => string,
  headers: Record<string, string> = {},
): Promise<Load> {
  const r = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: o.connections,
    duration: o.seconds,
    headers,
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: nextPath() }) }],
  });
  return {
    name,
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    bytesPerResponse: r.requests.total ? Math.round(r.throughput.total / r.requests.total) : 0,
  };
}

/** Forks the script `self` in a fresh process (its own heap and event loop) and waits for its first message. */
export async function forkSelf<T>(
  self: string,
  args: string[],
): Promise<{ child: ChildProcess; message: T }> {
  const child = fork(self, args, {
    execArgv: [...process.execArgv, '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const message = await new Promise<T>((resolve, reject) => {
    child.once('message', (m) => resolve(m as T));
    child.once('exit', (code) =>
      reject(new Error(`bench child ${args.join(' ')} exited early (code ${code})`)),
    );
  });
  return { child, message };
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.send('stop');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** Runs one in-process measurement in a child, so that earlier phases' heaps do not skew it. */
export async function inChild<T>(self: string, args: string[]): Promise<T> {
  const { child, message } = await forkSelf<T>(self, args);
  await stopChild(child);
  return message;
}

/** Child side of `inChild`: one measurement, sent back to the parent, then wait to be stopped. */
export async function measure(run: () => Promise<unknown>, watchdogMs: number): Promise<void> {
  setTimeout(() => process.exit(3), watchdogMs).unref();
  process.on('disconnect', () => process.exit(0));
  process.on('message', (m) => m === 'stop' && process.exit(0));
  process.send!(await run());
}

export interface WriteTimes {
  apiUs: number;
  apiStatus: Record<string, number>;
  storeUs: number;
}

/**
 * µs per create through the store and through the API (with the count of each status it answered),
 * `writes` of each after 200 unmeasured ones.
 */
export async function timeCreates(
  writes: number,
  storeCreate: () => unknown,
  apiCreate: () => Promise<number>,
): Promise<WriteTimes> {
  for (let i = 0; i < 200; i++) storeCreate();
  let t0 = performance.now();
  for (let i = 0; i < writes; i++) storeCreate();
  const storeUs = ((performance.now() - t0) * 1000) / writes;

  const statuses: Record<string, number> = {};
  for (let i = 0; i < 200; i++) await apiCreate();
  t0 = performance.now();
  for (let i = 0; i < writes; i++) {
    const s = await apiCreate();
    statuses[s] = (statuses[s] ?? 0) + 1;
  }
  const apiUs = ((performance.now() - t0) * 1000) / writes;
  return { apiUs, apiStatus: statuses, storeUs };
}

/**
 * The write-cost table of a small and a big world: `what` is created (`user`), the worlds hold `sizes`
 * of `noun` (`users`), `labels` name the API and the store rows.
 */
export function writeCostLines(
  what: string,
  noun: string,
  labels: [api: string, store: string],
  sizes: [small: number, big: number],
  small: WriteTimes,
  big: WriteTimes,
  columnWidth: number,
): string[] {
  const w = [42, columnWidth, columnWidth, 8];
  return [
    row(
      [
        `writes (in process, µs per ${what} create)`,
        `${fmt(sizes[0])} ${noun}`,
        `${fmt(sizes[1])} ${noun}`,
        'ratio',
      ],
      w,
    ),
    row([labels[0], fmt(small.apiUs, 1), fmt(big.apiUs, 1), fmt(big.apiUs / small.apiUs, 2)], w),
    row([labels[1], fmt(small.storeUs, 1), fmt(big.storeUs, 1), fmt(big.storeUs / small.storeUs, 2)], w),
    `  POST statuses: ${JSON.stringify(small.apiStatus)} / ${JSON.stringify(big.apiStatus)}; linear growth would be a ratio near ${fmt(sizes[1] / sizes[0])}`,
  ];
}

/** One target of a load set: a server, the path of each request, its headers. */
export interface LoadTarget {
  name: string;
  port: number;
  nextPath: () => string;
  headers?: Record<string, string>;
  /**
   * Requests sent before the measured slices, besides the unmeasured second: the number of distinct
   * requests the target makes, so that the slices measure the steady state (each asked once before).
   */
  warm?: number;
  /** A header that differs on every request (its name): no answer is ever asked for twice. */
  unique?: string;
}

/**
 * Loads the targets of a set in turn: one unmeasured second each first (JIT, caches, the garbage the
 * previous set left), then `rounds` slices each, alternating, for `seconds` per target in all. A burst
 * of other work on the machine then weighs on every target of the set alike, so that their ratios (the
 * figures that count) hold steady where two long phases back to back drift apart. Rates are requests
 * over the measured time; p50 is the median of the slices', p99 the worst slice's.
 */
export async function loadSet(
  o: { connections: number; seconds: number; rounds: number },
  targets: LoadTarget[],
): Promise<Load[]> {
  let n = 0;
  const run = (t: LoadTarget, limit: { duration: number } | { amount: number }) =>
    autocannon({
      url: `http://127.0.0.1:${t.port}`,
      connections: o.connections,
      ...limit,
      headers: t.headers ?? {},
      requests: [
        {
          method: 'GET',
          setupRequest: (req) => ({
            ...req,
            path: t.nextPath(),
            ...(t.unique && { headers: { ...req.headers, [t.unique]: String(++n) } }),
          }),
        },
      ],
    });
  for (const t of targets) {
    if (t.warm) await run(t, { amount: Math.max(t.warm, o.connections) });
    await run(t, { duration: 1 });
  }
  const slice = Math.max(1, Math.round(o.seconds / o.rounds));
  const acc = targets.map(() => ({
    requests: 0,
    seconds: 0,
    bytes: 0,
    non2xx: 0,
    errors: 0,
    p50: [] as number[],
    p99: 0,
  }));
  for (let r = 0; r < o.rounds; r++)
    for (const [i, t] of targets.entries()) {
      const res = await run(t, { duration: slice });
      const a = acc[i]!;
      a.requests += res.requests.total;
      a.seconds += res.duration;
      a.bytes += res.throughput.total;
      a.non2xx += res.non2xx;
      a.errors += res.errors;
      a.p50.push(res.latency.p50);
      a.p99 = Math.max(a.p99, res.latency.p99);
    }
  return targets.map((t, i) => {
    const a = acc[i]!;
    const p50 = a.p50.sort((x, y) => x - y)[a.p50.length >> 1]!;
    return {
      name: t.name,
      rps: Math.round(a.requests / a.seconds),
      p50,
      p99: a.p99,
      non2xx: a.non2xx,
      errors: a.errors,
      bytesPerResponse: a.requests ? Math.round(a.bytes / a.requests) : 0,
    };
  });
}
