/**
 * `GET /runners/:id/jobs` (13.12 `lib/api/ci/runners.rb`, `Ci::RunnerJobsFinder`): the jobs a runner took,
 * in any project, as `JobBasicWithProject`. Here rather than in `runners/`, since the jobs area renders
 * jobs and names the runner of each (`runners/pick.ts`).
 */
import { requireUser } from '../../core/auth.js';
import { state } from '../../core/context.js';
import { recordNotFound } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { ProjectRecord } from '../../core/state.js';
import { tget, tvalues } from '../../core/table.js';
import { PIPELINE_STATUSES } from '../ci/model.js';
import { authorizeRunnerJobs } from '../runners/routes.js';
import { JobRenderer } from './entities.js';
import type { JobRef } from './model.js';

/** `Ci::Build::AVAILABLE_STATUSES`; `RunnerJobsFinder::ALLOWED_INDEXED_COLUMNS`. */
const shape = {
  id: p.int().required(),
  status: p.str().values(PIPELINE_STATUSES),
  order_by: p.str().values(['id']),
  sort: p.str().values(['asc', 'desc']).default('desc'),
  ...paginationParams,
};

export function runnerJobsRoutes(r: ApiRouter): void {
  // `before { authenticate! }` runs before the params are validated.
  r.get('/runners/:id/jobs', { auth: 'optional' }, (c) => {
    const user = requireUser(c);
    const prm = parse(c, shape);
    const st = state(c);
    const runner = tget(st.runners.records, prm.id);
    if (!runner) throw recordNotFound('no runner with this id');
    authorizeRunnerJobs(st, user, runner);
    const rr = new JobRenderer(c);
    const jobs: { ref: JobRef; project: ProjectRecord }[] = [];
    for (const pipeline of tvalues(st.pipelines)) {
      const project = tget(st.projects, pipeline.project_id);
      if (!project) continue;
      for (const build of pipeline.builds ?? []) {
        const ref = { pipeline, build };
        if (rr.runnerOf(ref, project)?.id !== runner.id) continue;
        if (prm.status !== undefined && rr.live.of(ref).status !== prm.status) continue;
        jobs.push({ ref, project });
      }
    }
    // Without `order_by` the finder leaves the order to the paginator's default, by id; `sort` alone does nothing.
    const desc = prm.order_by === 'id' && prm.sort === 'desc';
    jobs.sort((a, b) => (desc ? b.ref.build.id - a.ref.build.id : a.ref.build.id - b.ref.build.id));
    return paginate(c, jobs, (j) => rr.withProject(j.ref, j.project));
  });
}
