/**
 * `PUT /projects/:id` on the paid tiers: EE's `update_params_at_least_one_of` adds its params to the
 * list, so a request with only `approvals_before_merge` is an update (on the free tier the param is not
 * declared, and the request has none of the list: 400).
 */
import { describe, expect, it } from 'vitest';
import { tget } from '../../../src/core/table.js';
import { projectsFx, send } from './world.js';

const PATH = '/projects/acme%2Fwebsite';

describe('PUT /projects/:id with only EE params', () => {
  it('approvals_before_merge alone is a 200 on premium, stored and shown', async () => {
    const fx = projectsFx({ tier: 'premium' });
    const { res, body } = await send(fx, 'PUT', PATH, 'alice-api', { approvals_before_merge: 2 });
    expect(res.status).toBe(200);
    expect(body.approvals_before_merge).toBe(2);
    expect((await send(fx, 'GET', PATH, 'alice-api')).body.approvals_before_merge).toBe(2);
  });

  it('external_authorization_classification_label alone is an update on ultimate', async () => {
    const fx = projectsFx({ tier: 'ultimate' });
    const { res } = await send(fx, 'PUT', PATH, 'alice-api', {
      external_authorization_classification_label: 'secret',
    });
    expect(res.status).toBe(200);
  });

  it('on the free tier it is none of the list: 400, nothing written', async () => {
    const fx = projectsFx();
    const before = fx.state;
    const { res, body } = await send(fx, 'PUT', PATH, 'alice-api', { approvals_before_merge: 2 });
    expect(res.status).toBe(400);
    expect(body.error).toMatch(/are missing, at least one parameter must be provided$/);
    expect(body.error).not.toContain('approvals_before_merge');
    expect(fx.state).toBe(before);
  });

  it('the paid tiers name the EE params in the 400 of an empty update', async () => {
    const fx = projectsFx({ tier: 'premium' });
    const { res, body } = await send(fx, 'PUT', PATH, 'alice-api', {});
    expect(res.status).toBe(400);
    expect(body.error).toMatch(
      /, approvals_before_merge, external_authorization_classification_label are missing, at least one parameter must be provided$/,
    );
  });

  it('a guest still may not: the params pass, then the 403', async () => {
    const fx = projectsFx({ tier: 'premium' });
    const { res } = await send(fx, 'PUT', PATH, 'dave-api', { approvals_before_merge: 2 });
    expect(res.status).toBe(403);
    expect(tget(fx.state.projects, 1)!.approvals_before_merge).not.toBe(2);
  });
});
