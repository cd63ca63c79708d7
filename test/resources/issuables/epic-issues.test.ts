/** Issues in an epic (paid tiers): list, assign (moving between epics), reorder, remove. */
import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario } from '../../../src/index.js';
import { acmeWithReaders, get, issuablesWorld, scenarioProblems, send, WEB } from './world.js';

/** acme with erin as a group reporter and gus as a guest; two epics in acme. */
const world = () =>
  createFauxlab({
    tier: 'premium',
    scenario: {
      ...issuablesWorld,
      groups: acmeWithReaders,
      epics: [
        { group: 'acme', title: 'One', author: 'alice' },
        { group: 'acme', title: 'Two', author: 'alice' },
      ],
    } as never,
  });

type Fx = ReturnType<typeof world>;
const issueId = async (fx: Fx, iid: number) =>
  ((await get(fx, `${WEB}/issues/${iid}`, 'alice-api')).body as { id: number }).id;
const listed = async (fx: Fx, epic: number) =>
  ((await get(fx, `/groups/acme/epics/${epic}/issues`, 'alice-api')).body as { iid: number }[]).map(
    (i) => i.iid,
  );

describe('epic issues', () => {
  it('POST /groups/:id/epics/:epic_iid/issues/:issue_id: the link with the epic and the issue; newest first', async () => {
    const fx = world();
    const [a, b] = [await issueId(fx, 1), await issueId(fx, 2)];
    const res = await send(fx, 'POST', `/groups/acme/epics/1/issues/${a}`, 'erin-api');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: 1,
      relative_position: 0,
      epic: { iid: 1, title: 'One' },
      issue: { id: a, iid: 1 },
    });
    await send(fx, 'POST', `/groups/acme/epics/1/issues/${b}`, 'erin-api');
    const list = await get(fx, '/groups/acme/epics/1/issues', 'alice-api');
    expect(list.body).toMatchObject([
      { iid: 2, epic_issue_id: 2, relative_position: -1000 },
      { iid: 1, epic_issue_id: 1, relative_position: 0 },
    ]);
  });

  it('POST /groups/:id/epics/:epic_iid/issues/:issue_id: assigning moves the issue out of its epic; 409 twice', async () => {
    const fx = world();
    const a = await issueId(fx, 1);
    await send(fx, 'POST', `/groups/acme/epics/1/issues/${a}`, 'erin-api');
    expect(await send(fx, 'POST', `/groups/acme/epics/2/issues/${a}`, 'erin-api')).toMatchObject({
      status: 201,
    });
    expect(await listed(fx, 1)).toEqual([]);
    expect(await listed(fx, 2)).toEqual([1]);
    expect(await send(fx, 'POST', `/groups/acme/epics/2/issues/${a}`, 'erin-api')).toEqual({
      status: 409,
      body: { message: 'Issue(s) already assigned' },
    });
  });

  it('POST /groups/:id/epics/:epic_iid/issues/:issue_id: 403 for guests, 404 for a missing issue', async () => {
    const fx = world();
    const a = await issueId(fx, 1);
    expect(await send(fx, 'POST', `/groups/acme/epics/1/issues/${a}`, 'gus-api')).toEqual({
      status: 403,
      body: { message: '403 Forbidden' },
    });
    expect(await send(fx, 'POST', '/groups/acme/epics/1/issues/9999', 'erin-api')).toEqual({
      status: 404,
      body: { message: '404 Not found' },
    });
    expect((await send(fx, 'POST', `/groups/acme/epics/1/issues/${a}`)).status).toBe(401);
    expect(await listed(fx, 1)).toEqual([]);
  });

  it('PUT /groups/:id/epics/:epic_iid/issues/:epic_issue_id: move_before_id and move_after_id reorder', async () => {
    const fx = world();
    for (const iid of [1, 2, 3])
      await send(fx, 'POST', `/groups/acme/epics/1/issues/${await issueId(fx, iid)}`, 'erin-api');
    expect(await listed(fx, 1)).toEqual([3, 2, 1]);
    // Link 3 (issue 3) goes below link 1 (issue 1).
    const res = await send(fx, 'PUT', '/groups/acme/epics/1/issues/3', 'erin-api', { move_before_id: 1 });
    expect(res.status).toBe(200);
    expect((res.body as { iid: number }[]).map((i) => i.iid)).toEqual([2, 1, 3]);
    await send(fx, 'PUT', '/groups/acme/epics/1/issues/1', 'erin-api', { move_after_id: 2 });
    expect(await listed(fx, 1)).toEqual([1, 2, 3]);
    expect(await send(fx, 'PUT', '/groups/acme/epics/1/issues/1', 'erin-api', {})).toMatchObject({
      status: 400,
    });
    expect(await send(fx, 'PUT', '/groups/acme/epics/2/issues/1', 'erin-api', { move_after_id: 2 })).toEqual({
      status: 404,
      body: { message: '404 Not found' },
    });
  });

  it('DELETE /groups/:id/epics/:epic_iid/issues/:epic_issue_id: answers the link and removes it', async () => {
    const fx = world();
    const a = await issueId(fx, 1);
    await send(fx, 'POST', `/groups/acme/epics/1/issues/${a}`, 'erin-api');
    expect((await send(fx, 'DELETE', '/groups/acme/epics/1/issues/1', 'gus-api')).status).toBe(403);
    const res = await send(fx, 'DELETE', '/groups/acme/epics/1/issues/1', 'erin-api');
    expect(res).toMatchObject({ status: 200, body: { id: 1, epic: { iid: 1 }, issue: { id: a } } });
    expect(await listed(fx, 1)).toEqual([]);
  });

  it('DELETE /groups/:id/epics/:epic_iid: deleting the epic releases its issues', async () => {
    const fx = world();
    const a = await issueId(fx, 1);
    await send(fx, 'POST', `/groups/acme/epics/1/issues/${a}`, 'erin-api');
    expect((await send(fx, 'DELETE', '/groups/acme/epics/1', 'alice-api')).status).toBe(204);
    expect(await send(fx, 'POST', `/groups/acme/epics/2/issues/${a}`, 'erin-api')).toMatchObject({
      status: 201,
    });
    expect(await listed(fx, 2)).toEqual([1]);
  });

  it('scenario: an epic lists its issues as project#iid, top first, and exports them the same way', async () => {
    const file = {
      ...issuablesWorld,
      projects: issuablesWorld.projects!.map((p) =>
        p.path === 'acme/website'
          ? { ...p, issues: (p.issues ?? []).map((i, k) => ({ ...i, iid: k + 1 })) }
          : p,
      ),
      epics: [{ group: 'acme', title: 'One', author: 'alice', issues: ['acme/website#2', 'acme/website#1'] }],
    };
    const fx = createFauxlab({ tier: 'premium', scenario: file as never });
    expect(await listed(fx, 1)).toEqual([2, 1]);
    const out = exportScenario(fx.state, { now: fx.clock.iso() }) as { epics: { issues?: string[] }[] };
    expect(out.epics[0]!.issues).toEqual(['acme/website#2', 'acme/website#1']);
    expect(
      scenarioProblems({
        ...file,
        epics: [
          {
            group: 'acme',
            title: 'x',
            author: 'alice',
            issues: ['acme/website#99', 'acme/website#1', 'acme/website#1'],
          },
        ],
      }),
    ).toEqual([
      'epics[0].issues[0]: no issue listed with iid 99 in "acme/website"',
      'epics[0].issues[2]: "acme/website#1" is in another epic already',
    ]);
  });
});
