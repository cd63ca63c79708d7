/**
 * Markdown rendering for other areas (wiki pages, release notes): the parser, sanitizer and emoji data
 * load with the first render, not with the server.
 */
import type { RenderJob } from './job.js';

let pool: Promise<typeof import('./pool.js')> | undefined;

export const loadPool = () => (pool ??= import('./pool.js'));

/** Renders on the worker pool, bounded as `POST /markdown` renders. */
export const renderLazily = async (job: RenderJob): Promise<string> => (await loadPool()).render(job);
