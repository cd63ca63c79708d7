/**
 * Sidekiq metrics (`lib/api/sidekiq_metrics.rb`, admins only). fauxlab's background work (exports,
 * imports) runs on the instance clock rather than in Sidekiq, so the figures describe that work: one
 * process that has processed every job run so far, with nothing waiting in a queue (a job runs as soon
 * as it is due). Stable: the same state gives the same answer.
 */
import { requireAdmin } from '../../core/auth.js';
import { state, type Ctx } from '../../core/context.js';
import { ApiError, grapeError, notFound } from '../../core/errors.js';
import { p, type Parsed } from '../../core/params.js';
import { requestBase } from '../../core/pagination.js';
import { parse, type ApiRouter } from '../../core/router.js';
import { settingsCreatedAt } from '../settings/model.js';

/** The queues the platform's workers for this work listen on, and the default ones. */
const QUEUES = ['default', 'mailers', 'project_export', 'repository_import'];

const queueMetrics = () => Object.fromEntries(QUEUES.map((name) => [name, { backlog: 0, latency: 0 }]));

function processMetrics(c: Ctx) {
  return [
    {
      hostname: new URL(requestBase(c)).hostname,
      pid: 4242,
      tag: 'gitlab',
      started_at: settingsCreatedAt(state(c)) ?? c.get('fx').clock.iso(),
      queues: QUEUES,
      labels: [],
      concurrency: 25,
      busy: 0,
    },
  ];
}

/** Jobs queued so far less those still waiting for their time: the rest have run. */
function jobStats(c: Ctx) {
  const st = state(c);
  return { processed: (st.seq.jobs ?? 0) - st.jobs.length, failed: 0, enqueued: 0, dead: 0 };
}

/** `Labkit::Context::KNOWN_KEYS` as 13.12's `DELETE /admin/sidekiq/queues/:queue_name` declares them. */
const CONTEXT_KEYS = [
  'user',
  'project',
  'root_namespace',
  'subscription_plan',
  'caller_id',
  'feature_category',
];

const dropShape = Object.fromEntries(CONTEXT_KEYS.map((k) => [k, p.str()])) as Record<
  string,
  ReturnType<typeof p.str>
>;

/**
 * The params as Grape checks them: each a String, `allow_blank: false` ("user is empty"), then
 * `at_least_one_of` the keys; every problem in one 400.
 */
function dropParams(c: Ctx): Parsed<typeof dropShape> {
  const problems: string[] = [];
  let prm: Parsed<typeof dropShape> = {};
  try {
    prm = parse(c, dropShape);
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 400) throw e;
    problems.push((e.body as { error: string }).error);
  }
  for (const k of CONTEXT_KEYS) {
    const v = prm[k];
    if (typeof v === 'string' && v.trim() === '') problems.push(`${k} is empty`);
  }
  if (CONTEXT_KEYS.every((k) => c.get('params')[k] === undefined))
    problems.push(`${CONTEXT_KEYS.join(', ')} are missing, at least one parameter must be provided`);
  if (problems.length) throw grapeError(400, problems.join(', '));
  return prm;
}

/**
 * `Gitlab::SidekiqQueue#drop_jobs!`: a queue Sidekiq does not know is `not_found!(queue_name)`; jobs
 * whose context matches every given key are deleted. fauxlab's queues hold no job waiting (work runs
 * on the instance clock when due, and its jobs carry no Labkit context), so none match: the answer is
 * the completed run with 0 deleted.
 */
function dropJobs(c: Ctx) {
  requireAdmin(c);
  dropParams(c);
  const name = c.req.param('queue_name') ?? '';
  if (!QUEUES.includes(name)) throw notFound(name, 'no Sidekiq queue of this name');
  return c.json({ completed: true, deleted_jobs: 0 });
}

export function sidekiqRoutes(r: ApiRouter): void {
  // `before { authenticated_as_admin! }`: the 403 comes before the params.
  r.delete('/admin/sidekiq/queues/:queue_name', { auth: 'required' }, dropJobs);
  const admin = { auth: 'admin' } as const;
  r.get('/sidekiq/queue_metrics', admin, (c) => c.json({ queues: queueMetrics() }));
  r.get('/sidekiq/process_metrics', admin, (c) => c.json({ processes: processMetrics(c) }));
  r.get('/sidekiq/job_stats', admin, (c) => c.json({ jobs: jobStats(c) }));
  r.get('/sidekiq/compound_metrics', admin, (c) =>
    c.json({ queues: queueMetrics(), processes: processMetrics(c), jobs: jobStats(c) }),
  );
}
