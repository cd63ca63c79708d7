/**
 * Moving an issue to another project and reordering a project's issues: the new issue and the closed
 * original, labels and milestones matched by title, system notes, the service's 400 messages, and the
 * positions `order_by=relative_position` lists by.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { get, issuablesFx, refused, send, WEB } from './world.js';

const ROCKET = '/projects/acme%2Flabs%2Frocket';

async function projectId(fx: ReturnType<typeof issuablesFx>, path: string): Promise<number> {
  return (await get(fx, path, 'root-api')).body.id;
}

async function notes(fx: ReturnType<typeof issuablesFx>, path: string): Promise<string[]> {
  const r = await get(fx, `${path}/notes?sort=asc&order_by=created_at&per_page=100`, 'root-api');
  return r.body.map((n: { body: string }) => n.body);
}

describe('POST /projects/:id/issues/:issue_iid/move', () => {
  it('POST /projects/:id/issues/:issue_iid/move: a new issue in the target, the original closed and marked moved', async () => {
    const fx = issuablesFx();
    const rocket = await projectId(fx, ROCKET);
    const r = await send(fx, 'POST', `${WEB}/issues/1/move`, 'alice-api', { to_project_id: rocket });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      iid: 2,
      project_id: rocket,
      title: 'Login button broken',
      description: 'Clicking does nothing.\n\n- [x] reproduce\n- [ ] fix\n- [ ] test',
      state: 'opened',
      author: { username: 'bob' },
      assignees: [{ username: 'dave' }],
      labels: ['bug'],
      milestone: null,
      due_date: '2021-03-01',
      created_at: '2021-01-01T10:00:00.000Z',
      updated_at: '2021-03-03T12:00:00.000Z',
      upvotes: 2,
      moved_to_id: null,
      web_url: 'http://localhost/acme/labs/rocket/-/issues/2',
    });
    const old = await get(fx, `${WEB}/issues/1`, 'alice-api');
    expect(old.body).toMatchObject({
      state: 'closed',
      moved_to_id: r.body.id,
      closed_by: { username: 'alice' },
      closed_at: '2021-03-03T12:00:00.000Z',
    });
    expect(await notes(fx, `${ROCKET}/issues/2`)).toEqual(['moved from acme/website#1']);
    expect(await notes(fx, `${WEB}/issues/1`)).toEqual(['moved to acme/labs/rocket#2']);
  });

  it('POST /projects/:id/issues/:issue_iid/move: notes are copied with their authors, labels and milestones matched by title', async () => {
    const fx = issuablesFx();
    const notesProject = '/projects/bob%2Fnotes';
    await send(fx, 'POST', `${notesProject}/labels`, 'root-api', { name: 'docs', color: '#123456' });
    await send(fx, 'POST', `${notesProject}/milestones`, 'root-api', { title: 'v1.0' });
    const target = await projectId(fx, notesProject);
    const r = await send(fx, 'POST', `${WEB}/issues/6/move`, 'root-api', { to_project_id: target });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      iid: 2,
      labels: ['docs'],
      milestone: { title: 'v1.0' },
      user_notes_count: 1,
    });
    const copied = await get(fx, `${notesProject}/issues/2/notes?sort=asc`, 'root-api');
    expect(
      copied.body.map((n: { body: string; author: { username: string } }) => [n.body, n.author.username]),
    ).toEqual([
      ['Fixed locally', 'dave'],
      ['moved from acme/website#6', 'root'],
    ]);
  });

  it('POST /projects/:id/issues/:issue_iid/move: 400 to the project it originates from', async () => {
    const fx = issuablesFx();
    const web = await projectId(fx, WEB);
    await refused(fx, 'POST', `${WEB}/issues/1/move`, 'alice-api', { to_project_id: web }, 400, {
      message: 'Cannot move issue to project it originates from!',
    });
  });

  it('POST /projects/:id/issues/:issue_iid/move: 400 for a guest of the source project', async () => {
    const fx = issuablesFx();
    const notesId = await projectId(fx, '/projects/bob%2Fnotes');
    await refused(fx, 'POST', `${WEB}/issues/1/move`, 'gus-api', { to_project_id: notesId }, 400, {
      message: 'Cannot move issue due to insufficient permissions!',
    });
  });

  it('POST /projects/:id/issues/:issue_iid/move: 400 for a reporter who cannot admin issues in the target', async () => {
    const fx = issuablesFx();
    const rocket = await projectId(fx, ROCKET);
    await refused(fx, 'POST', `${WEB}/issues/1/move`, 'erin-api', { to_project_id: rocket }, 400, {
      message: 'Cannot move issue due to insufficient permissions!',
    });
  });

  it('POST /projects/:id/issues/:issue_iid/move: 400 into an archived project', async () => {
    const fx = issuablesFx();
    const attic = await projectId(fx, '/projects/acme%2Fattic');
    await refused(fx, 'POST', `${WEB}/issues/1/move`, 'alice-api', { to_project_id: attic }, 400, {
      message: 'Cannot move issue due to insufficient permissions!',
    });
  });

  it('POST /projects/:id/issues/:issue_iid/move: 400 for an issue moved before', async () => {
    const fx = issuablesFx();
    const rocket = await projectId(fx, ROCKET);
    const notesId = await projectId(fx, '/projects/bob%2Fnotes');
    expect(
      (await send(fx, 'POST', `${WEB}/issues/2/move`, 'root-api', { to_project_id: rocket })).status,
    ).toBe(201);
    await refused(fx, 'POST', `${WEB}/issues/2/move`, 'root-api', { to_project_id: notesId }, 400, {
      message: 'Cannot move issue due to insufficient permissions!',
    });
  });

  it('POST /projects/:id/issues/:issue_iid/move: 404 for an unknown issue, then for an unknown project', async () => {
    const fx = issuablesFx();
    await refused(fx, 'POST', `${WEB}/issues/99/move`, 'alice-api', { to_project_id: 999 }, 404, {
      message: '404 Issue Not Found',
    });
    await refused(fx, 'POST', `${WEB}/issues/1/move`, 'alice-api', { to_project_id: 999 }, 404, {
      message: '404 Project Not Found',
    });
  });

  it('POST /projects/:id/issues/:issue_iid/move: 400 without to_project_id, 401 anonymously', async () => {
    const fx = issuablesFx();
    await refused(fx, 'POST', `${WEB}/issues/1/move`, 'alice-api', {}, 400, {
      error: 'to_project_id is missing',
    });
    await refused(fx, 'POST', `${WEB}/issues/1/move`, undefined, { to_project_id: 2 }, 401, {
      message: '401 Unauthorized',
    });
  });

  it('POST /projects/:id/issues/:issue_iid/move: resource events are copied (milestones matched by title), spent time is not', async () => {
    const fx = issuablesFx();
    const rocket = await projectId(fx, ROCKET);
    const ms = await get(fx, `${WEB}/milestones`, 'root-api');
    const idOf = (t: string) => ms.body.find((m: { title: string }) => m.title === t).id as number;
    const made = await send(fx, 'POST', `${ROCKET}/milestones`, 'root-api', { title: 'v2.0' });
    expect(made.status).toBe(201);
    const edit = (body: Record<string, unknown>) => send(fx, 'PUT', `${WEB}/issues/1`, 'alice-api', body);
    // Issue #1 is on v1.0: v2.0 is added, then removed; the target has a v2.0 of its own.
    for (const body of [
      { milestone_id: idOf('v2.0') },
      { milestone_id: 0 },
      { remove_labels: 'bug' },
      { add_labels: 'bug' },
      { state_event: 'close' },
      { state_event: 'reopen' },
    ])
      expect((await edit(body)).status).toBe(200);
    expect(
      (await send(fx, 'POST', `${WEB}/issues/1/add_spent_time`, 'alice-api', { duration: '1h' })).status,
    ).toBe(201);
    expect(
      (await send(fx, 'POST', `${WEB}/issues/1/time_estimate`, 'alice-api', { duration: '2h' })).status,
    ).toBe(200);
    const events = async (path: string, kind: string) =>
      (await get(fx, `${path}/resource_${kind}_events`, 'root-api')).body as Record<string, any>[];
    const labelsBefore = await events(`${WEB}/issues/1`, 'label');
    expect(labelsBefore.map((e) => [e.action, e.label.name])).toEqual([
      ['remove', 'bug'],
      ['add', 'bug'],
    ]);

    const r = await send(fx, 'POST', `${WEB}/issues/1/move`, 'alice-api', { to_project_id: rocket });
    expect(r.status).toBe(201);
    const moved = `${ROCKET}/issues/${r.body.iid}`;
    const labels = await events(moved, 'label');
    expect(labels.map((e) => [e.action, e.label.id, e.user.username, e.created_at, e.resource_id])).toEqual(
      labelsBefore.map((e) => [e.action, e.label.id, e.user.username, e.created_at, r.body.id]),
    );
    const milestones = await events(moved, 'milestone');
    expect(milestones.map((e) => [e.action, e.milestone?.id ?? null, e.state])).toEqual([
      ['add', made.body.id, 'opened'],
      ['remove', null, 'opened'],
    ]);
    expect((await events(moved, 'state')).map((e) => e.state)).toEqual(['closed', 'reopened']);
    // The original keeps its own events, and its closing by the move is one more.
    expect((await events(`${WEB}/issues/1`, 'state')).map((e) => e.state)).toEqual([
      'closed',
      'reopened',
      'closed',
    ]);
    expect((await get(fx, `${moved}/time_stats`, 'root-api')).body).toEqual({
      time_estimate: 7200,
      total_time_spent: 0,
      human_time_estimate: '2h',
      human_total_time_spent: null,
    });
  });
});

describe('POST /projects/:id/issues/:issue_iid/move on a paid tier', () => {
  it('POST /projects/:id/issues/:issue_iid/move: weight events are copied with the weight (EE AttributesRewriter)', async () => {
    const fx = issuablesFx({ tier: 'premium' });
    const rocket = await projectId(fx, ROCKET);
    for (const weight of [3, 8])
      expect((await send(fx, 'PUT', `${WEB}/issues/1`, 'alice-api', { weight })).status).toBe(200);
    const r = await send(fx, 'POST', `${WEB}/issues/1/move`, 'alice-api', { to_project_id: rocket });
    expect(r.status).toBe(201);
    expect(r.body.weight).toBe(8);
    const events = (await get(fx, `${ROCKET}/issues/${r.body.iid}/resource_weight_events`, 'root-api')).body;
    expect(events.map((e: { weight: number; issue_id: number }) => [e.weight, e.issue_id])).toEqual([
      [3, r.body.id],
      [8, r.body.id],
    ]);
  });
});

describe('PUT /projects/:id/issues/:issue_iid/reorder', () => {
  const order = async (fx: ReturnType<typeof issuablesFx>) =>
    (await get(fx, `${WEB}/issues?order_by=relative_position&sort=asc&state=all`, 'root-api')).body.map(
      (i: { iid: number }) => i.iid,
    );
  const idOf = async (fx: ReturnType<typeof issuablesFx>, iid: number) =>
    (await get(fx, `${WEB}/issues/${iid}`, 'root-api')).body.id as number;

  it('PUT /projects/:id/issues/:issue_iid/reorder: move_after_id puts the issue before that one, without touching updated_at', async () => {
    const fx = issuablesFx();
    expect(await order(fx)).toEqual([1, 2, 3, 4, 5, 6]);
    const before = await get(fx, `${WEB}/issues/6`, 'alice-api');
    const r = await send(fx, 'PUT', `${WEB}/issues/6/reorder`, 'alice-api', {
      move_after_id: await idOf(fx, 1),
    });
    expect(r.status).toBe(200);
    expect(r.body.iid).toBe(6);
    expect(r.body.updated_at).toBe(before.body.updated_at);
    expect(await order(fx)).toEqual([6, 1, 2, 3, 4, 5]);
  });

  it('PUT /projects/:id/issues/:issue_iid/reorder: between move_before_id and move_after_id', async () => {
    const fx = issuablesFx();
    const r = await send(fx, 'PUT', `${WEB}/issues/6/reorder`, 'dave-api', {
      move_before_id: await idOf(fx, 2),
      move_after_id: await idOf(fx, 3),
    });
    expect(r.status).toBe(200);
    expect(await order(fx)).toEqual([1, 2, 6, 3, 4, 5]);
    const only = await send(fx, 'PUT', `${WEB}/issues/1/reorder`, 'dave-api', {
      move_before_id: await idOf(fx, 5),
    });
    expect(only.status).toBe(200);
    expect(await order(fx)).toEqual([2, 6, 3, 4, 5, 1]);
  });

  it('PUT /projects/:id/issues/:issue_iid/reorder: 400 without either neighbour', async () => {
    const fx = issuablesFx();
    await refused(fx, 'PUT', `${WEB}/issues/1/reorder`, 'alice-api', {}, 400, {
      error: 'move_after_id, move_before_id are missing, at least one parameter must be provided',
    });
  });

  it('PUT /projects/:id/issues/:issue_iid/reorder: 422 for a neighbour of another project', async () => {
    const fx = issuablesFx();
    const rocketIssue = (await get(fx, `${ROCKET}/issues/1`, 'root-api')).body.id;
    await refused(fx, 'PUT', `${WEB}/issues/1/reorder`, 'alice-api', { move_after_id: rocketIssue }, 422, {
      message: { error: 'Unprocessable Entity' },
    });
  });

  it('PUT /projects/:id/issues/:issue_iid/reorder: 403 for a guest, 404 for an unknown issue', async () => {
    const fx = issuablesFx();
    await refused(fx, 'PUT', `${WEB}/issues/1/reorder`, 'gus-api', { move_after_id: 2 }, 403, {
      message: '403 Forbidden',
    });
    await refused(fx, 'PUT', `${WEB}/issues/99/reorder`, 'alice-api', { move_after_id: 2 }, 404, {
      message: '404 Issue Not Found',
    });
  });
});

describe('issue moves and positions in a scenario', () => {
  it('POST /projects/:id/issues/:issue_iid/move: moved_to_id and reordered positions survive export and load', async () => {
    const fx = issuablesFx();
    const rocket = await projectId(fx, ROCKET);
    const moved = await send(fx, 'POST', `${WEB}/issues/2/move`, 'alice-api', { to_project_id: rocket });
    const first = (await get(fx, `${WEB}/issues/1`, 'root-api')).body.id;
    await send(fx, 'PUT', `${WEB}/issues/6/reorder`, 'alice-api', { move_after_id: first });
    const file = exportScenario(fx.state, { now: fx.clock.iso() });
    const again = createFauxlab({ scenario: JSON.parse(JSON.stringify(file)) as ScenarioFile });
    const order = async (f: ReturnType<typeof issuablesFx>) =>
      (await get(f, `${WEB}/issues?order_by=relative_position&sort=asc&state=all`, 'root-api')).body.map(
        (i: { iid: number }) => i.iid,
      );
    expect(await order(again)).toEqual(await order(fx));
    expect(await order(again)).toEqual([6, 1, 2, 3, 4, 5]);
    const old = await get(again, `${WEB}/issues/2`, 'root-api');
    const target = await get(again, `${ROCKET}/issues/2`, 'root-api');
    expect(old.body.moved_to_id).toBe(target.body.id);
    expect(target.body.title).toBe(moved.body.title);
  });
});
