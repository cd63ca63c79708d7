/**
 * The jobs' part of the control plane: `GET /__fauxlab/jobs/:job_id/token`, the job's `CI_JOB_TOKEN`,
 * which only the job's script would see on the platform; tests need it to act as a running job.
 */
import type { Context, Hono } from 'hono';
import type { Env, Fx } from '../../core/context.js';
import { apiError } from '../../core/errors.js';
import { iget, tget } from '../../core/table.js';
import { jobTokenSecret } from '../ci/job-tokens.js';

export function jobsControl(app: Hono<Env>, fxOf: (c: Context<Env>) => Fx): void {
  app.get('/jobs/:job_id/token', (c) => {
    const st = fxOf(c).store.state;
    const id = Number(c.req.param('job_id'));
    const pid = Number.isSafeInteger(id) ? iget(st.ciJobs.byId, String(id)) : undefined;
    const build = pid === undefined ? undefined : tget(st.pipelines, pid)?.builds?.find((b) => b.id === id);
    if (!build) throw apiError(404, 'no job with this id');
    return c.json({ job_id: build.id, token: build.user_id === null ? null : jobTokenSecret(build) });
  });
}
