/**
 * The jobs' part of the control plane: `GET /__fauxlab/jobs/:job_id/token`, the job's `CI_JOB_TOKEN`,
 * which only the job's script would see on the platform; tests need it to act as a running job; and
 * `GET`/`PUT /__fauxlab/ci`: the queue time of new pipelines (`{"queue_time": "5s"}`, or seconds).
 */
import type { Context, Hono } from 'hono';
import { jsonObject } from '../../core/json-body.js';
import type { Env, Fx } from '../../core/context.js';
import { apiError } from '../../core/errors.js';
import { iget, tget } from '../../core/table.js';
import { jobTokenSecret } from '../ci/job-tokens.js';
import { queueMs } from './scenario.js';

const ciSettings = (fx: Fx) => ({ queue_time_ms: fx.store.state.ciJobs.queue_ms });

export function jobsControl(app: Hono<Env>, fxOf: (c: Context<Env>) => Fx): void {
  app.get('/ci', (c) => c.json(ciSettings(fxOf(c))));

  app.put('/ci', async (c) => {
    const body = await jsonObject(c.req.raw);
    const fields = body as Record<string, unknown>;
    const unknown = Object.keys(fields).filter((k) => k !== 'queue_time');
    if (unknown.length) throw apiError(400, `unknown field(s) ${unknown.join(', ')}; give queue_time`);
    const fx = fxOf(c);
    if (fields.queue_time !== undefined) {
      const ms = queueMs(fields.queue_time, 1000);
      if (ms === undefined)
        throw apiError(400, 'queue_time: give seconds or a duration up to 24h such as "5s"');
      fx.store.write((d) => {
        d.ciJobs.queue_ms = ms;
      });
    }
    return c.json(ciSettings(fx));
  });

  app.get('/jobs/:job_id/token', (c) => {
    const st = fxOf(c).store.state;
    const id = Number(c.req.param('job_id'));
    const pid = Number.isSafeInteger(id) ? iget(st.ciJobs.byId, String(id)) : undefined;
    const build = pid === undefined ? undefined : tget(st.pipelines, pid)?.builds?.find((b) => b.id === id);
    if (!build) throw apiError(404, 'no job with this id');
    return c.json({ job_id: build.id, token: build.user_id === null ? null : jobTokenSecret(build) });
  });
}
