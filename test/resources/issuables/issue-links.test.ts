/** Issue links in acme/website (erin reporter, gus guest, bob outsider) and to acme/labs/rocket (private). */
import { describe, expect, it } from 'vitest';
import { get, issuablesFx, refused, send, WEB } from './world.js';

const link = (target: number, extra: Record<string, unknown> = {}) => ({
  target_project_id: 'acme/website',
  target_issue_iid: target,
  ...extra,
});

describe('issue links', () => {
  it('POST /projects/:id/issues/:issue_iid/links: 201 with both issues; each side lists the other', async () => {
    const fx = issuablesFx();
    const r = await send(fx, 'POST', `${WEB}/issues/1/links`, 'erin-api', link(2));
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      source_issue: { iid: 1, title: 'Login button broken' },
      target_issue: { iid: 2, title: 'Add dark mode' },
      link_type: 'relates_to',
    });
    const from1 = await get(fx, `${WEB}/issues/1/links`, 'bob-api');
    expect(from1.headers.get('X-Total')).toBe('1');
    expect(from1.body[0]).toMatchObject({
      iid: 2,
      issue_link_id: expect.any(Number),
      link_type: 'relates_to',
    });
    expect((await get(fx, `${WEB}/issues/2/links`, 'bob-api')).body[0]).toMatchObject({ iid: 1 });
  });

  it('GET /projects/:id/issues/:issue_iid/links: each related issue ends with the link id, type and times', async () => {
    const fx = issuablesFx();
    fx.clock.advance(90_000);
    expect((await send(fx, 'POST', `${WEB}/issues/1/links`, 'erin-api', link(2))).status).toBe(201);
    const related = (await get(fx, `${WEB}/issues/1/links`, 'bob-api')).body[0];
    expect(Object.keys(related).slice(-4)).toEqual([
      'issue_link_id',
      'link_type',
      'link_created_at',
      'link_updated_at',
    ]);
    expect([related.link_created_at, related.link_updated_at]).toEqual([
      '2021-03-03T12:01:30.000Z',
      '2021-03-03T12:01:30.000Z',
    ]);
  });

  it('POST /projects/:id/issues/:issue_iid/links: 409 when linked, 422 for itself, 404 for a guest, 403 for blocks on the free tier', async () => {
    const fx = issuablesFx();
    await send(fx, 'POST', `${WEB}/issues/1/links`, 'erin-api', link(2));
    await refused(fx, 'POST', `${WEB}/issues/2/links`, 'erin-api', link(1), 409, {
      message: 'Issue(s) already assigned',
    });
    await refused(fx, 'POST', `${WEB}/issues/1/links`, 'erin-api', link(1), 422, {
      message: '#1 cannot be added: cannot be related to itself',
    });
    await refused(fx, 'POST', `${WEB}/issues/1/links`, 'gus-api', link(3), 404, {
      message: 'No matching issue found. Make sure that you are adding a valid issue URL.',
    });
    await refused(fx, 'POST', `${WEB}/issues/1/links`, 'erin-api', link(3, { link_type: 'blocks' }), 403, {
      message: 'Blocked issues not available for current license',
    });
    await refused(
      fx,
      'POST',
      `${WEB}/issues/1/links`,
      'erin-api',
      link(3, { link_type: 'duplicates' }),
      400,
      {
        error: 'link_type does not have a valid value',
      },
    );
    await refused(fx, 'POST', `${WEB}/issues/1/links`, 'erin-api', { target_issue_iid: 3 }, 400, {
      error: 'target_project_id is missing',
    });
  });

  it('POST /projects/:id/issues/:issue_iid/links: a hidden target project is a 404 Project Not Found', async () => {
    const fx = issuablesFx();
    await refused(
      fx,
      'POST',
      `${WEB}/issues/1/links`,
      'erin-api',
      link(1, { target_project_id: 'acme/labs/rocket' }),
      404,
      {
        message: '404 Project Not Found',
      },
    );
  });

  it('POST /projects/:id/issues/:issue_iid/links: blocks and is_blocked_by on paid tiers, read from each side', async () => {
    const fx = issuablesFx({ tier: 'premium' });
    const r = await send(
      fx,
      'POST',
      `${WEB}/issues/1/links`,
      'erin-api',
      link(2, { link_type: 'is_blocked_by' }),
    );
    expect(r.body).toMatchObject({ source_issue: { iid: 2 }, target_issue: { iid: 1 }, link_type: 'blocks' });
    expect((await get(fx, `${WEB}/issues/1/links`, 'bob-api')).body[0]).toMatchObject({
      iid: 2,
      link_type: 'is_blocked_by',
    });
    expect((await get(fx, `${WEB}/issues/2/links`, 'bob-api')).body[0]).toMatchObject({
      iid: 1,
      link_type: 'blocks',
    });
  });

  it('DELETE /projects/:id/issues/:issue_iid/links/:issue_link_id: the link, gone from both; 404s', async () => {
    const fx = issuablesFx();
    const made = await send(fx, 'POST', `${WEB}/issues/1/links`, 'erin-api', link(2));
    const id = (await get(fx, `${WEB}/issues/1/links`, 'bob-api')).body[0].issue_link_id;
    await refused(fx, 'DELETE', `${WEB}/issues/1/links/${id}`, 'gus-api', undefined, 404, {
      message: 'No Issue Link found',
    });
    const r = await send(fx, 'DELETE', `${WEB}/issues/1/links/${id}`, 'erin-api');
    expect(r).toEqual({ status: 200, body: made.body });
    expect((await get(fx, `${WEB}/issues/2/links`, 'bob-api')).body).toEqual([]);
    await refused(fx, 'DELETE', `${WEB}/issues/1/links/${id}`, 'erin-api', undefined, 404, {
      message: '404 Not found',
    });
  });

  it('DELETE /projects/:id/issues/:issue_iid: the issue leaves its links', async () => {
    const fx = issuablesFx();
    await send(fx, 'POST', `${WEB}/issues/1/links`, 'erin-api', link(2));
    expect((await send(fx, 'DELETE', `${WEB}/issues/1`, 'alice-api')).status).toBe(204);
    expect((await get(fx, `${WEB}/issues/2/links`, 'bob-api')).body).toEqual([]);
    expect(fx.state.issuables.links.size).toBe(0);
  });
});
