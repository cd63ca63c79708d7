import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario, type FauxlabOptions } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { tvalues } from '../../../src/core/table.js';
import { APP, body, call, ciWorld } from '../ci/world.js';

const BOARDS = `${APP}/boards`;
const GROUP_BOARDS = '/api/v4/groups/acme/boards';

/** The CI world with labels, a milestone and boards on the project and the group. */
const scenario: ScenarioFile = {
  ...ciWorld,
  groups: [{ ...ciWorld.groups![0]!, boards: [{ name: 'Team', lists: ['Team label'] }] }],
  projects: [
    {
      ...ciWorld.projects![0]!,
      labels: [{ name: 'Doing' }, { name: 'Review' }, { name: 'Spare' }],
      milestones: [{ title: 'v1' }],
      boards: [{ name: 'Development', lists: ['Doing', 'Review'] }],
    },
  ],
};

const world = (o: FauxlabOptions = {}) => createFauxlab({ scenario, ...o });
type Fx = ReturnType<typeof world>;

const labelId = (fx: Fx, title: string) =>
  tvalues(fx.state.issuables.labels).find((l) => l.title === title)!.id;
const userId = (fx: Fx, username: string) => tvalues(fx.state.users).find((u) => u.username === username)!.id;
/** The group's board is built first (id 1), the project's second. */
const PB = `${BOARDS}/2`;

const positions = async (fx: Fx, token = 'rep') =>
  (
    (await body(await call(fx, 'GET', `${PB}/lists`, token))) as {
      label: { name: string };
      position: number;
    }[]
  ).map((l) => [l.label.name, l.position]);

describe('boards', () => {
  it('GET /projects/:id/boards: the Board entity with its label lists (free tier: no group or scope)', async () => {
    const fx = world();
    const res = await call(fx, 'GET', BOARDS, 'guest');
    const [board] = await body(res);
    expect(res.headers.get('x-total')).toBe('1');
    expect(Object.keys(board)).toEqual([
      'id',
      'name',
      'hide_backlog_list',
      'hide_closed_list',
      'project',
      'lists',
    ]);
    expect(board).toMatchObject({ id: 2, name: 'Development', project: { path_with_namespace: 'acme/app' } });
    expect(
      board.lists.map((l: { id: number; label: { name: string }; position: number }) => [
        l.label.name,
        l.position,
      ]),
    ).toEqual([
      ['Doing', 0],
      ['Review', 1],
    ]);
    expect(Object.keys(board.lists[0])).toEqual(['id', 'label', 'position']);
    expect(Object.keys(board.lists[0].label)).toEqual([
      'id',
      'name',
      'color',
      'description',
      'description_html',
      'text_color',
    ]);
  });

  it('GET /projects/:id/boards: 401 anonymous, 404 for a stranger, 403 with issues disabled', async () => {
    const fx = world();
    expect((await call(fx, 'GET', BOARDS)).status).toBe(401);
    expect(await body(await call(fx, 'GET', BOARDS, 'outsider'))).toEqual({
      message: '404 Project Not Found',
    });
    await call(fx, 'PUT', APP, 'owner', { issues_access_level: 'disabled' });
    expect((await call(fx, 'GET', BOARDS, 'owner')).status).toBe(403);
  });

  it('GET /projects/:id/boards/:board_id: 404 Not found for a board of another parent', async () => {
    const fx = world();
    const res = await call(fx, 'GET', `${BOARDS}/1`, 'guest');
    expect([res.status, await body(res)]).toEqual([404, { message: '404 Not found' }]);
    expect((await call(fx, 'GET', `${PB}/lists/99`, 'guest')).status).toBe(404);
  });

  it('POST /projects/:id/boards/:board_id/lists: the label is checked before the caller may edit', async () => {
    const fx = world();
    const unknown = await call(fx, 'POST', `${PB}/lists`, 'guest', { label_id: 999 });
    expect([unknown.status, await body(unknown)]).toEqual([400, { error: 'Label not found!' }]);
    const spare = labelId(fx, 'Spare');
    expect((await call(fx, 'POST', `${PB}/lists`, 'guest', { label_id: spare })).status).toBe(403);
    const missing = await call(fx, 'POST', `${PB}/lists`, 'rep', {});
    expect([missing.status, await body(missing)]).toEqual([400, { error: 'label_id is missing' }]);
    const created = await call(fx, 'POST', `${PB}/lists`, 'rep', { label_id: spare });
    expect([created.status, (await body(created)).position]).toEqual([201, 2]);
    const again = await call(fx, 'POST', `${PB}/lists`, 'rep', { label_id: spare });
    expect([again.status, await body(again)]).toEqual([
      400,
      { message: { label_id: ['has already been taken'] } },
    ]);
  });

  it('PUT /projects/:id/boards/:board_id/lists/:list_id: moves a list; the same or no place is a 400', async () => {
    const fx = world();
    await call(fx, 'POST', `${PB}/lists`, 'rep', { label_id: labelId(fx, 'Spare') });
    const lists = await body(await call(fx, 'GET', `${PB}/lists`, 'rep'));
    const spare = lists[2].id;
    const moved = await call(fx, 'PUT', `${PB}/lists/${spare}`, 'rep', { position: 0 });
    expect([moved.status, (await body(moved)).position]).toEqual([200, 0]);
    expect(await positions(fx)).toEqual([
      ['Spare', 0],
      ['Doing', 1],
      ['Review', 2],
    ]);
    for (const position of [0, 3, -1]) {
      const bad = await call(fx, 'PUT', `${PB}/lists/${spare}`, 'rep', { position });
      expect([bad.status, await body(bad)]).toEqual([400, { error: 'List could not be moved!' }]);
    }
    expect((await call(fx, 'PUT', `${PB}/lists/${spare}`, 'guest', { position: 1 })).status).toBe(403);
  });

  it('DELETE /projects/:id/boards/:board_id/lists/:list_id: 204; the later lists move up', async () => {
    const fx = world();
    const [doing] = await body(await call(fx, 'GET', `${PB}/lists`, 'rep'));
    expect((await call(fx, 'DELETE', `${PB}/lists/${doing.id}`, 'guest')).status).toBe(403);
    expect((await call(fx, 'DELETE', `${PB}/lists/${doing.id}`, 'rep')).status).toBe(204);
    expect(await positions(fx)).toEqual([['Review', 0]]);
  });

  it("DELETE /projects/:id/labels/:name: the label's lists leave its boards; the others keep their places", async () => {
    const fx = world();
    expect((await call(fx, 'DELETE', `${APP}/labels/Doing`, 'maint')).status).toBe(204);
    expect(await positions(fx)).toEqual([['Review', 1]]);
    const added = await body(
      await call(fx, 'POST', `${PB}/lists`, 'rep', { label_id: labelId(fx, 'Spare') }),
    );
    expect(added.position).toBe(2);
    // The deleted label's list is gone from the state too once the board is written.
    const labelLists = tvalues(fx.state.boards.lists).filter(
      (l) => l.board_id === 2 && l.list_type === 'label',
    );
    expect(labelLists.map((l) => l.position)).toEqual([1, 2]);
  });

  it('POST /projects/:id/boards: absent on the free tier; on paid tiers a board with the scope fields', async () => {
    expect((await call(world(), 'POST', BOARDS, 'rep', { name: 'x' })).status).toBe(404);
    const fx = world({ tier: 'premium' });
    const res = await call(fx, 'POST', BOARDS, 'rep', { name: 'Ops' });
    const board = await body(res);
    expect(res.status).toBe(201);
    expect(Object.keys(board)).toEqual([
      'id',
      'name',
      'hide_backlog_list',
      'hide_closed_list',
      'project',
      'lists',
      'group',
      'milestone',
      'assignee',
      'labels',
      'weight',
    ]);
    expect(board).toMatchObject({
      name: 'Ops',
      lists: [],
      group: null,
      milestone: null,
      labels: [],
      weight: null,
    });
    expect((await call(fx, 'POST', BOARDS, 'guest', { name: 'y' })).status).toBe(403);
  });

  it('PUT /projects/:id/boards/:board_id: scopes the board; unknown scope values are dropped; a blank name is a 400', async () => {
    const fx = world({ tier: 'premium' });
    const res = await call(fx, 'PUT', PB, 'rep', {
      name: 'Dev',
      milestone_id: -2,
      assignee_id: userId(fx, 'dev'),
      labels: 'Doing, Nope',
      weight: 3,
    });
    const board = await body(res);
    expect(res.status).toBe(200);
    expect(board).toMatchObject({ name: 'Dev', milestone: { title: 'Upcoming' }, weight: 3 });
    expect(board.labels.map((l: { name: string }) => l.name)).toEqual(['Doing']);
    const blank = await call(fx, 'PUT', PB, 'rep', { name: '' });
    expect([blank.status, await body(blank)]).toEqual([
      400,
      { message: `400 Bad request - Failed to save board {:name=>["can't be blank"]}` },
    ]);
  });

  it('DELETE /projects/:id/boards/:board_id: 204, but the last board of a parent stays', async () => {
    const fx = world({ tier: 'premium' });
    expect((await call(fx, 'DELETE', PB, 'rep')).status).toBe(204);
    expect((await body(await call(fx, 'GET', BOARDS, 'rep'))).length).toBe(1);
    const created = await body(await call(fx, 'POST', BOARDS, 'rep', { name: 'Second' }));
    expect((await call(fx, 'DELETE', `${BOARDS}/${created.id}`, 'rep')).status).toBe(204);
    expect((await body(await call(fx, 'GET', BOARDS, 'rep'))).map((b: { id: number }) => b.id)).toEqual([2]);
  });

  it('POST /projects/:id/boards/:board_id/lists: paid tiers take exactly one of label, milestone, assignee', async () => {
    const fx = world({ tier: 'premium' });
    const none = await call(fx, 'POST', `${PB}/lists`, 'rep', {});
    expect(await body(none)).toEqual({
      error: 'label_id, milestone_id, assignee_id are missing, exactly one parameter must be provided',
    });
    const two = await call(fx, 'POST', `${PB}/lists`, 'rep', { label_id: 1, milestone_id: 1 });
    expect(await body(two)).toEqual({ error: 'label_id, milestone_id are mutually exclusive' });
    const badMilestone = await call(fx, 'POST', `${PB}/lists`, 'rep', { milestone_id: 999 });
    expect(await body(badMilestone)).toEqual({ error: 'Milestone not found!' });
    const milestoneId = tvalues(fx.state.issuables.milestones)[0]!.id;
    const ms = await call(fx, 'POST', `${PB}/lists`, 'rep', { milestone_id: milestoneId });
    expect([ms.status, (await body(ms)).milestone.title]).toEqual([201, 'v1']);
    const outsider = await call(fx, 'POST', `${PB}/lists`, 'rep', { assignee_id: userId(fx, 'outsider') });
    expect(await body(outsider)).toEqual({ error: 'User not found!' });
    const dev = await body(await call(fx, 'POST', `${PB}/lists`, 'rep', { assignee_id: userId(fx, 'dev') }));
    expect([dev.assignee, dev.label, dev.max_issue_count, dev.limit_metric]).toEqual([
      { id: userId(fx, 'dev'), username: 'dev', name: 'Dev User' },
      null,
      0,
      null,
    ]);
  });

  it('GET /groups/:id/boards: group boards show group labels; a project label is not one of them', async () => {
    const fx = world();
    const [board] = await body(await call(fx, 'GET', GROUP_BOARDS, 'outsider'));
    expect([board.name, board.project, board.lists[0].label.name]).toEqual(['Team', null, 'Team label']);
    const res = await call(fx, 'POST', `${GROUP_BOARDS}/${board.id}/lists`, 'rep', {
      label_id: labelId(fx, 'Doing'),
    });
    expect(await body(res)).toEqual({ error: 'Label not found!' });
    expect((await call(fx, 'GET', GROUP_BOARDS)).status).toBe(401);
  });

  it('boards scenario: export writes boards and their lists back; deleting the project removes them', async () => {
    const fx = world();
    const out = exportScenario(fx.state, { now: fx.clock.iso() });
    expect((out.projects as { boards?: unknown }[])[0]!.boards).toEqual([
      { name: 'Development', lists: ['Doing', 'Review'] },
    ]);
    const again = createFauxlab({ scenario: out });
    expect((await body(await call(again, 'GET', `${PB}/lists`, 'rep'))).length).toBe(2);
    await call(fx, 'DELETE', APP, 'owner');
    expect(tvalues(fx.state.boards.boards).map((b) => b.name)).toEqual(['Team']);
    expect(tvalues(fx.state.boards.lists).filter((l) => l.board_id === 2)).toEqual([]);
  });
});
