import { describe, expect, it } from 'vitest';
import { scheduleJob } from '../../src/core/jobs.js';
import { state, write } from '../../src/core/context.js';
import { createFauxlab } from '../../src/index.js';

const admin = { username: 'root', name: 'Root', admin: true, tokens: [{ token: 'root-tok' }] };

/** An instance with a `tick` job: each run records its due time and queues the next one until `left` is 0. */
function instance(opts: { throwing?: boolean } = {}) {
  const errors: string[] = [];
  const fx = createFauxlab({
    scenario: { now: '2021-01-01T00:00:00.000Z', users: [admin] },
    logger: (msg) => errors.push(msg),
    routes: (r) => {
      r.job('tick', (d, job) => {
        if (opts.throwing) throw new Error('boom');
        d.settings.ticks = [...((d.settings.ticks as number[] | undefined) ?? []), job.due_ms];
        const left = job.payload.left as number;
        if (left > 0) scheduleJob(d, 'tick', job.due_ms + 1000, { left: left - 1 });
      });
      r.post('/test/tick', (c) => {
        const now = c.get('fx').clock.ms();
        write(c, (d) => scheduleJob(d, 'tick', now + 1000, { left: 2 }));
        return c.json({ queued: state(c).jobs.length }, 201);
      });
      r.get('/test/ticks', (c) => c.json(state(c).settings.ticks ?? []));
    },
  });
  const auth = { headers: { 'PRIVATE-TOKEN': 'root-tok' } };
  const ticks = async () => (await (await fx.app.request('/api/v4/test/ticks', auth)).json()) as number[];
  return { fx, auth, ticks, errors };
}

describe('background jobs', () => {
  it('jobs: nothing runs until the clock reaches the due time', async () => {
    const { fx, auth, ticks } = instance();
    expect((await fx.app.request('/api/v4/test/tick', { method: 'POST', ...auth })).status).toBe(201);
    expect(await ticks()).toEqual([]);
    fx.clock.advance(999);
    expect(await ticks()).toEqual([]);
    fx.clock.advance(1);
    expect(await ticks()).toEqual([Date.parse('2021-01-01T00:00:01.000Z')]);
  });

  it('jobs: a clock advanced past several steps runs each, dated at its own due time', async () => {
    const { fx, auth, ticks } = instance();
    await fx.app.request('/api/v4/test/tick', { method: 'POST', ...auth });
    fx.clock.advance(60_000);
    const t0 = Date.parse('2021-01-01T00:00:00.000Z');
    expect(await ticks()).toEqual([t0 + 1000, t0 + 2000, t0 + 3000]);
    expect(fx.state.jobs).toEqual([]);
  });

  it('jobs: reading fx.state settles due jobs too', async () => {
    const { fx, auth } = instance();
    await fx.app.request('/api/v4/test/tick', { method: 'POST', ...auth });
    fx.clock.advance(1500);
    expect(fx.state.settings.ticks).toEqual([Date.parse('2021-01-01T00:00:01.000Z')]);
    expect(fx.state.jobs).toHaveLength(1);
  });

  it('jobs: a runner that throws changes nothing, is dropped and logged', async () => {
    const { fx, auth, ticks, errors } = instance({ throwing: true });
    await fx.app.request('/api/v4/test/tick', { method: 'POST', ...auth });
    fx.clock.advance(5000);
    expect(await ticks()).toEqual([]);
    expect(fx.state.jobs).toEqual([]);
    expect(errors).toEqual(['fauxlab: background job tick #1 failed']);
  });

  it('jobs: pending jobs travel with a snapshot and reset drops them', async () => {
    const { fx, auth, ticks } = instance();
    await fx.app.request('/api/v4/test/tick', { method: 'POST', ...auth });
    const snap = fx.snapshot();
    fx.clock.advance(10_000);
    expect(await ticks()).toHaveLength(3);
    fx.restore(snap);
    expect(fx.state.jobs).toHaveLength(1);
    fx.reset();
    fx.clock.advance(10_000);
    expect(fx.state.jobs).toEqual([]);
    expect(await ticks()).toEqual([]);
  });
});
