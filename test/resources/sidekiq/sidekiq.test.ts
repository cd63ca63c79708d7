import { describe, expect, it } from 'vitest';
import { APP, body, call, world } from '../ci/world.js';

describe('Sidekiq metrics', () => {
  it('GET /sidekiq/*: admins only (401 anonymous, 403 others)', async () => {
    const fx = world();
    for (const what of ['queue_metrics', 'process_metrics', 'job_stats', 'compound_metrics']) {
      expect(await body(await call(fx, 'GET', `/sidekiq/${what}`))).toEqual({ message: '401 Unauthorized' });
      expect(await body(await call(fx, 'GET', `/sidekiq/${what}`, 'owner'))).toEqual({
        message: '403 Forbidden',
      });
    }
  });

  it('GET /sidekiq/compound_metrics: queues, one process and job counts, in the platform shape', async () => {
    const fx = world();
    const m = await body(await call(fx, 'GET', '/sidekiq/compound_metrics', 'root'));
    expect(Object.keys(m)).toEqual(['queues', 'processes', 'jobs']);
    expect(m.queues.default).toEqual({ backlog: 0, latency: 0 });
    expect(m.processes).toEqual([
      {
        hostname: 'localhost',
        pid: 4242,
        tag: 'gitlab',
        started_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        queues: Object.keys(m.queues),
        labels: [],
        concurrency: 25,
        busy: 0,
      },
    ]);
    expect(m.jobs).toEqual({ processed: 0, failed: 0, enqueued: 0, dead: 0 });
    // The same state, the same answer.
    expect(await body(await call(fx, 'GET', '/sidekiq/compound_metrics', 'root'))).toEqual(m);
  });

  it('GET /sidekiq/job_stats: the background work that has run counts as processed', async () => {
    const fx = world();
    expect((await call(fx, 'POST', `${APP}/export`, 'owner')).status).toBe(202);
    const queued = await body(await call(fx, 'GET', '/sidekiq/job_stats', 'root'));
    expect(queued.jobs.processed).toBe(0);
    fx.clock.advance(60_000);
    const done = await body(await call(fx, 'GET', '/sidekiq/job_stats', 'root'));
    expect(done.jobs.processed).toBe(2);
    expect((await body(await call(fx, 'GET', `${APP}/export`, 'owner'))).export_status).toBe('finished');
  });
});
