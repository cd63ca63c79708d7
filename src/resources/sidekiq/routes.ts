/**
 * Sidekiq metrics (`lib/api/sidekiq_metrics.rb`, admins only). fauxlab's background work (exports,
 * imports) runs on the instance clock rather than in Sidekiq, so the figures describe that work: one
 * process that has processed every job run so far, with nothing waiting in a queue (a job runs as soon
 * as it is due). Stable: the same state gives the same answer.
 */
import { state, type Ctx } from '../../core/context.js';
import { requestBase } from '../../core/pagination.js';
import type { ApiRouter } from '../../core/router.js';
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

export function sidekiqRoutes(r: ApiRouter): void {
  const admin = { auth: 'admin' } as const;
  r.get('/sidekiq/queue_metrics', admin, (c) => c.json({ queues: queueMetrics() }));
  r.get('/sidekiq/process_metrics', admin, (c) => c.json({ processes: processMetrics(c) }));
  r.get('/sidekiq/job_stats', admin, (c) => c.json({ jobs: jobStats(c) }));
  r.get('/sidekiq/compound_metrics', admin, (c) =>
    c.json({ queues: queueMetrics(), processes: processMetrics(c), jobs: jobStats(c) }),
  );
}
