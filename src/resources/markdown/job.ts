/** One render as the route hands it over: plain data, so that it can cross to a worker thread. */
import { tableResolver, type ReferenceTable } from './references.js';
import { renderMarkdown } from './render.js';

export interface RenderJob {
  text: string;
  gfm: boolean;
  host: string;
  refs?: ReferenceTable;
}

export const renderJob = (job: RenderJob): string =>
  renderMarkdown(job.text, {
    gfm: job.gfm,
    host: job.host,
    refs: job.refs && tableResolver(job.refs),
  });
