/**
 * Where Markdown is rendered. A render is linear in the text's length but not cheap (a megabyte of
 * tables takes seconds in micromark), so a server renders in a worker thread, one text at a time, and
 * its main thread stays free for other requests. Where the compiled worker is not at hand (tests run
 * from the TypeScript sources) the render runs in place.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import type { RenderJob } from './job.js';

/** Renders that take longer are abandoned (the worker is replaced) and answered with an error. */
export const RENDER_TIMEOUT_MS = 30_000;

/** The worker's heap: a megabyte of Markdown needs a few hundred MB at most. */
const WORKER_HEAP_MB = 768;

interface Pending {
  job: RenderJob & { id: number };
  done: (html: string) => void;
  fail: (e: Error) => void;
}

const workerFile = (() => {
  const url = new URL('./worker.js', import.meta.url);
  try {
    return import.meta.url.endsWith('.js') && existsSync(fileURLToPath(url)) ? url : undefined;
  } catch {
    return undefined;
  }
})();

let worker: Worker | undefined;
let current: Pending | undefined;
let timer: NodeJS.Timeout | undefined;
const queue: Pending[] = [];
let seq = 0;

async function start(): Promise<Worker> {
  const { Worker } = await import('node:worker_threads');
  const w = new Worker(workerFile!, { resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
  w.unref();
  w.on('message', (m: { id: number; html?: string; error?: string }) => {
    const p = current;
    if (!p || p.job.id !== m.id) return;
    finish();
    if (m.html !== undefined) p.done(m.html);
    else p.fail(new Error(m.error ?? 'render failed'));
  });
  // A worker that dies (out of memory) fails its render; the next render starts a new one.
  w.on('error', (e) => abandon(w, e));
  w.on('exit', () => abandon(w, new Error('the render worker stopped')));
  return w;
}

function finish(): void {
  clearTimeout(timer);
  current = undefined;
  void next();
}

function abandon(w: Worker, e: Error): void {
  if (worker !== w) return;
  worker = undefined;
  const p = current;
  if (p) {
    finish();
    p.fail(e);
  }
}

async function next(): Promise<void> {
  if (current || queue.length === 0) return;
  const p = (current = queue.shift()!);
  try {
    const w = (worker ??= await start());
    timer = setTimeout(() => {
      void w.terminate();
      abandon(w, new Error('the render took too long'));
    }, RENDER_TIMEOUT_MS);
    timer.unref();
    w.postMessage(p.job);
  } catch (e) {
    finish();
    p.fail(e as Error);
  }
}

/** Renders a job: in the worker thread when there is one, else in place. */
export async function render(job: RenderJob): Promise<string> {
  if (!workerFile) return (await import('./job.js')).renderJob(job);
  return new Promise<string>((done, fail) => {
    queue.push({ job: { ...job, id: ++seq }, done, fail });
    void next();
  });
}
