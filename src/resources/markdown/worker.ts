/**
 * The Markdown renderer's worker thread: renders one text at a time for the server's main thread, so
 * that a long render never holds up other requests.
 */
import { parentPort } from 'node:worker_threads';
import { renderJob, type RenderJob } from './job.js';

parentPort?.on('message', (job: RenderJob & { id: number }) => {
  try {
    parentPort!.postMessage({ id: job.id, html: renderJob(job) });
  } catch (e) {
    parentPort!.postMessage({ id: job.id, error: String((e as Error)?.message ?? e) });
  }
});
