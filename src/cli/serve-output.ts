/**
 * What `fauxlab serve` writes on a terminal: the build progress of a generated world, its size, a line per request.
 */

export const thousands = (n: number) => n.toLocaleString('en-US');

/**
 * Shows a generated world's build on a terminal: one line, rewritten as records are made (a large world
 * takes tens of seconds). Returns the function that clears it.
 */
export async function showProgress(): Promise<() => void> {
  const { onGenerateProgress } = await import('../scenario/progress.js');
  let shown = 0;
  let last = 0;
  onGenerateProgress((what, done, total) => {
    const now = performance.now();
    if (now - last < 100 && done !== total) return;
    last = now;
    const line = `  generating ${what}: ${thousands(done)} / ${thousands(total)}`;
    process.stderr.write(`\r${line.padEnd(shown)}`);
    shown = line.length;
  });
  return () => {
    onGenerateProgress(undefined);
    if (shown) process.stderr.write(`\r${' '.repeat(shown)}\r`);
  };
}

/** The size of what was built: the records a generated world is made of, the time and the memory. */
export function worldSummary(st: import('../core/state.js').PlatformState, ms: number): string {
  const n = (k: number, what: string) => `${thousands(k)} ${what}${k === 1 ? '' : 's'}`;
  const counts = [
    n(st.users.size, 'user'),
    n(st.groups.size, 'group'),
    n(st.projects.size, 'project'),
    n(st.issuables.issues.size, 'issue'),
    n(st.issuables.mergeRequests.size, 'merge request'),
  ];
  const { heapUsed, rss } = process.memoryUsage();
  const mb = (bytes: number) => `${thousands(Math.round(bytes / 2 ** 20))} MiB`;
  return `${counts.join(', ')}; built in ${(ms / 1000).toFixed(1)} s, heap ${mb(heapUsed)}, RSS ${mb(rss)}`;
}

export type Handler = (request: Request, env?: object) => Response | Promise<Response>;

/**
 * Writes one line per request to stdout: method, path (without the query, which may carry a token),
 * status, time and acting user. The user is the journal's (authentication is the instance's business),
 * so the lines come from its entries; without a journal, and for the control plane (never journaled),
 * from the exchange itself.
 */
export function logRequests(fx: import('../app.js').Fauxlab, handler: Handler): Handler {
  let logged = 0;
  const line = (method: string, path: string, status: number, ms: number, user: string | null) =>
    process.stdout.write(
      `${method} ${path} ${status} ${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms ${user ?? '-'}\n`,
    );
  const journaled = fx.requests.capacity > 0;
  const done = (request: Request, t0: number) => (res: Response) => {
    const path = pathOf(request.url);
    if (journaled && !path.startsWith('/__fauxlab/')) {
      // A reset empties the journal and numbers its entries from 1 again.
      if (fx.requests.lastId < logged) logged = 0;
      // The entries' summaries, not the entries: making them (the query and headers parsed, filtered)
      // for a line each would cost more than answering the request.
      for (const e of fx.requests.summaries(logged)) {
        line(e.method, e.path, e.status, e.durationMs, e.user);
        logged = e.id;
      }
    } else line(request.method, path, res.status, performance.now() - t0, null);
    return res;
  };
  return (request, env) => {
    const t0 = performance.now();
    const res = handler(request, env);
    return res instanceof Promise ? res.then(done(request, t0)) : done(request, t0)(res);
  };
}

/** The path of an absolute URL as sent, without query or fragment (cheaper than a `URL`). */
export function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('://') + 3);
  if (start < 0) return '/';
  let end = url.length;
  for (let i = start; i < url.length; i++)
    if (url[i] === '?' || url[i] === '#') {
      end = i;
      break;
    }
  return url.slice(start, end);
}
