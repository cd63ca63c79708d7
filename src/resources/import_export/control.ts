/**
 * The import/export part of the control plane: `GET`/`DELETE /__fauxlab/export_uploads` (the outcome
 * of each `upload[url]` delivery; `?wait=true` waits for the deliveries under way, including those
 * the request's own settling of due jobs just started), and
 * `GET`/`PUT /__fauxlab/import_export` (the step delays, as durations such as `"2s"` or milliseconds).
 */
import type { Context, Hono } from 'hono';
import { jsonObject } from '../../core/json-body.js';
import { parseDuration } from '../../core/clock.js';
import type { Env, Fx } from '../../core/context.js';
import { apiError } from '../../core/errors.js';
import type { Delays } from './store.js';
import { exportUploads } from './uploads.js';

const DELAY_KEYS: readonly (keyof Delays)[] = [
  'export_queued_ms',
  'export_started_ms',
  'import_scheduled_ms',
  'import_started_ms',
];

export function importExportControl(app: Hono<Env>, fxOf: (c: Context<Env>) => Fx): void {
  app.get('/export_uploads', async (c) => {
    const log = exportUploads(fxOf(c).clock);
    if (c.req.query('wait') === 'true') await log.settled();
    const list = log.list();
    return c.json(list, 200, { 'X-Total': String(list.length) });
  });

  app.delete('/export_uploads', (c) => {
    exportUploads(fxOf(c).clock).clear();
    return c.body(null, 204);
  });

  app.get('/import_export', (c) => c.json(fxOf(c).store.state.importExport.delays));

  // Body: any of the delay keys, each a number of milliseconds or a duration string ("1s", "500ms").
  app.put('/import_export', async (c) => {
    const body = await jsonObject(c.req.raw);
    const next: Partial<Delays> = {};
    const problems: string[] = [];
    for (const [k, v] of Object.entries(body)) {
      if (!DELAY_KEYS.includes(k as keyof Delays)) {
        problems.push(`${k}: unknown; give ${DELAY_KEYS.join(', ')}`);
        continue;
      }
      try {
        const ms = typeof v === 'number' ? v : typeof v === 'string' ? parseDuration(v) : NaN;
        if (!Number.isFinite(ms) || ms < 0) throw new Error();
        next[k as keyof Delays] = ms;
      } catch {
        problems.push(`${k}: give milliseconds or a duration such as "2s"`);
      }
    }
    if (problems.length) throw apiError(400, { import_export: problems });
    const fx = fxOf(c);
    fx.store.write((d) => Object.assign(d.importExport.delays, next));
    return c.json(fx.store.state.importExport.delays);
  });
}
