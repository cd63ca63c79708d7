/**
 * Project and group labels. acme/website has bug (#FF0000, priority 1), feature (#00FF00, priority 2)
 * and docs; the group acme has `team` (erin subscribed) and acme/labs has `lab`.
 */
import { describe, expect, it } from 'vitest';
import { createFauxlab, exportScenario } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { get, issuablesWorld, refused, scenarioProblems, send, WEB } from './world.js';

const world: ScenarioFile = {
  ...issuablesWorld,
  groups: [
    { ...issuablesWorld.groups![0]!, labels: [{ name: 'team', color: '#0000FF', subscribers: ['erin'] }] },
    { ...issuablesWorld.groups![1]!, labels: [{ name: 'lab', description: 'Lab *work*' }] },
  ],
};
const labelsFx = () => createFauxlab({ scenario: world });
const names = (list: { name: string }[]) => list.map((l) => l.name);
const GROUP = '/groups/acme';
/** The `Label` fields of acme/website's bug (its `LabelBasic` and `subscribed` for a non-subscriber). */
const BUG = {
  name: 'bug',
  color: '#FF0000',
  description: null,
  description_html: '',
  text_color: '#FFFFFF',
  subscribed: false,
};

describe('project labels', () => {
  it('GET /projects/:id/labels: the project labels and its group labels by title, as ProjectLabel', async () => {
    const fx = labelsFx();
    const r = await get(fx, `${WEB}/labels`, 'bob-api');
    expect(r.status).toBe(200);
    expect(names(r.body)).toEqual(['bug', 'docs', 'feature', 'team']);
    expect(r.headers.get('X-Total')).toBe('4');
    expect(r.body[0]).toEqual({ id: 3, ...BUG, priority: 1, is_project_label: true });
    expect(r.body[3]).toMatchObject({ name: 'team', priority: null, is_project_label: false });
  });

  it('GET /projects/:id/labels: with_counts counts what the viewer may see; search; include_ancestor_groups', async () => {
    const fx = labelsFx();
    const counts = (b: any[], name: string) => {
      const l = b.find((x) => x.name === name);
      return [l.open_issues_count, l.closed_issues_count, l.open_merge_requests_count];
    };
    const member = await get(fx, `${WEB}/labels?with_counts=true`, 'erin-api');
    expect(Object.keys(member.body[0])).toEqual([
      'id',
      'name',
      'color',
      'description',
      'description_html',
      'text_color',
      'open_issues_count',
      'closed_issues_count',
      'open_merge_requests_count',
      'subscribed',
      'priority',
      'is_project_label',
    ]);
    expect(counts(member.body, 'bug')).toEqual([2, 1, 1]);
    // The confidential bug is hidden from a non-member.
    expect(counts((await get(fx, `${WEB}/labels?with_counts=true`, 'carol-api')).body, 'bug')).toEqual([
      1, 1, 1,
    ]);
    expect(names((await get(fx, `${WEB}/labels?search=fea`, 'bob-api')).body)).toEqual(['feature']);
    expect(names((await get(fx, '/projects/acme%2Flabs%2Frocket/labels', 'alice-api')).body)).toEqual([
      'bug',
      'lab',
      'team',
    ]);
    expect(
      names(
        (await get(fx, '/projects/acme%2Flabs%2Frocket/labels?include_ancestor_groups=false', 'alice-api'))
          .body,
      ),
    ).toEqual(['bug', 'lab']);
  });

  it('GET /projects/:id/labels: 401 anonymous, 404 for a private project of a non-member', async () => {
    const fx = labelsFx();
    expect(await get(fx, `${WEB}/labels`)).toMatchObject({
      status: 401,
      body: { message: '401 Unauthorized' },
    });
    expect(await get(fx, '/projects/acme%2Flabs%2Frocket/labels', 'bob-api')).toMatchObject({
      status: 404,
      body: { message: '404 Project Not Found' },
    });
  });

  it('GET /projects/:id/labels/:label_id: by id or by name; 404 Label Not Found', async () => {
    const fx = labelsFx();
    expect((await get(fx, `${WEB}/labels/4`, 'bob-api')).body.name).toBe('feature');
    expect((await get(fx, `${WEB}/labels/team`, 'erin-api')).body).toMatchObject({
      name: 'team',
      subscribed: true,
    });
    expect(await get(fx, `${WEB}/labels/nope`, 'bob-api')).toMatchObject({
      status: 404,
      body: { message: '404 Label Not Found' },
    });
  });

  it('POST /projects/:id/labels: named colours become hex, priority is set; 201', async () => {
    const fx = labelsFx();
    const r = await send(fx, 'POST', `${WEB}/labels`, 'erin-api', {
      name: ' urgent ',
      color: 'DarkRed',
      description: 'Now',
      priority: 0,
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      name: 'urgent',
      color: '#8B0000',
      description: 'Now',
      description_html: 'Now',
      priority: 0,
      is_project_label: true,
    });
    const short = await send(fx, 'POST', `${WEB}/labels`, 'erin-api', { name: 'short', color: '#abc' });
    expect(short.body).toMatchObject({ color: '#abc', text_color: '#333333', priority: null });
  });

  it('POST /projects/:id/labels: 409 for a title the project or a group above has, 400s, 403 for a guest', async () => {
    const fx = labelsFx();
    const exists = { message: 'Label already exists' };
    await refused(fx, 'POST', `${WEB}/labels`, 'erin-api', { name: 'bug', color: '#000' }, 409, exists);
    await refused(fx, 'POST', `${WEB}/labels`, 'erin-api', { name: 'team', color: '#000' }, 409, exists);
    await refused(fx, 'POST', `${WEB}/labels`, 'erin-api', { name: 'x', color: 'nocolour' }, 400, {
      message: { color: ['must be a valid color code'] },
    });
    await refused(fx, 'POST', `${WEB}/labels`, 'erin-api', { name: 'a,b', color: '#000' }, 400, {
      message: { title: ['is invalid'] },
    });
    await refused(fx, 'POST', `${WEB}/labels`, 'erin-api', { name: 'x' }, 400, { error: 'color is missing' });
    await refused(fx, 'POST', `${WEB}/labels`, 'gus-api', { name: 'x', color: '#000' }, 403, {
      message: '403 Forbidden',
    });
  });

  it('PUT /projects/:id/labels/:label_id: new_name, colour and priority; issues show the new title', async () => {
    const fx = labelsFx();
    const r = await send(fx, 'PUT', `${WEB}/labels/bug`, 'erin-api', {
      new_name: 'defect',
      color: 'white',
      priority: null,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: 3,
      name: 'defect',
      color: '#FFFFFF',
      text_color: '#333333',
      priority: null,
    });
    expect((await get(fx, `${WEB}/issues/1`, 'bob-api')).body.labels).toEqual(['defect']);
    expect((await send(fx, 'PUT', `${WEB}/labels/3`, 'erin-api', { priority: 7 })).body.priority).toBe(7);
    // The deprecated form names the label by `label_id` or `name`.
    const old = await send(fx, 'PUT', `${WEB}/labels`, 'erin-api', { label_id: 4, description: 'New stuff' });
    expect(old.body).toMatchObject({ name: 'feature', description: 'New stuff' });
  });

  it('PUT /projects/:id/labels/:label_id: 400 without a change, for a group title, for a taken title', async () => {
    const fx = labelsFx();
    await refused(fx, 'PUT', `${WEB}/labels/bug`, 'erin-api', {}, 400, {
      error: 'new_name, color, description, priority are missing, at least one parameter must be provided',
    });
    await refused(fx, 'PUT', `${WEB}/labels/bug`, 'erin-api', { new_name: 'team' }, 400, {
      message: { title: [' already exists at group level for Acme. Please choose another one.'] },
    });
    await refused(fx, 'PUT', `${WEB}/labels/bug`, 'erin-api', { new_name: 'docs' }, 400, {
      message: { title: ['has already been taken'] },
    });
    await refused(fx, 'PUT', `${WEB}/labels`, 'erin-api', { color: '#000' }, 400, {
      error: 'label_id, name are missing, exactly one parameter must be provided',
    });
  });

  it('DELETE /projects/:id/labels/:label_id: 204; the label leaves its issues and merge requests', async () => {
    const fx = labelsFx();
    expect((await send(fx, 'DELETE', `${WEB}/labels/bug`, 'erin-api')).status).toBe(204);
    expect((await get(fx, `${WEB}/issues/1`, 'bob-api')).body.labels).toEqual([]);
    expect((await get(fx, `${WEB}/merge_requests/1`, 'bob-api')).body.labels).toEqual([]);
    expect((await get(fx, `${WEB}/issues?labels=bug`, 'bob-api')).body).toEqual([]);
    expect((await get(fx, `${WEB}/labels/bug`, 'bob-api')).status).toBe(404);
    await refused(fx, 'DELETE', `${WEB}/labels/docs`, 'gus-api', undefined, 403, {
      message: '403 Forbidden',
    });
  });

  it('POST /projects/:id/labels/:label_id/subscribe: 201 with subscribed, 304 when already; unsubscribe likewise', async () => {
    const fx = labelsFx();
    const sub = await send(fx, 'POST', `${WEB}/labels/docs/subscribe`, 'bob-api');
    expect(sub).toMatchObject({ status: 201, body: { name: 'docs', subscribed: true } });
    expect((await send(fx, 'POST', `${WEB}/labels/5/subscribe`, 'bob-api')).status).toBe(304);
    expect((await get(fx, `${WEB}/labels/docs`, 'bob-api')).body.subscribed).toBe(true);
    expect((await get(fx, `${WEB}/labels/docs`, 'carol-api')).body.subscribed).toBe(false);
    const unsub = await send(fx, 'POST', `${WEB}/labels/docs/unsubscribe`, 'bob-api');
    expect(unsub).toMatchObject({ status: 201, body: { subscribed: false } });
    expect((await send(fx, 'POST', `${WEB}/labels/docs/unsubscribe`, 'bob-api')).status).toBe(304);
  });

  it('PUT /projects/:id/labels/:label_id/promote: a group label takes its place on issues, with its priority', async () => {
    const fx = labelsFx();
    const r = await send(fx, 'PUT', `${WEB}/labels/bug/promote`, 'erin-api');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: expect.any(Number), ...BUG });
    const labels = (await get(fx, `${WEB}/labels`, 'bob-api')).body;
    expect(labels.find((l: any) => l.name === 'bug')).toMatchObject({
      id: r.body.id,
      priority: 1,
      is_project_label: false,
    });
    expect((await get(fx, `${WEB}/issues?labels=bug`, 'bob-api')).body).toHaveLength(3);
    expect(names((await get(fx, `${GROUP}/labels`, 'bob-api')).body)).toEqual(['bug', 'team']);
  });

  it('PUT /projects/:id/labels/:label_id/promote: 400 for a personal project or a group label', async () => {
    const fx = labelsFx();
    const failed = { message: 'Failed to promote project label to group label' };
    await send(fx, 'POST', '/projects/bob%2Fnotes/labels', 'bob-api', { name: 'mine', color: 'red' });
    await refused(fx, 'PUT', '/projects/bob%2Fnotes/labels/mine/promote', 'bob-api', undefined, 400, failed);
    await refused(fx, 'PUT', `${WEB}/labels/team/promote`, 'erin-api', undefined, 400, failed);
  });
});

describe('label priorities', () => {
  it('GET /projects/:id/issues?order_by=label_priority: a group label prioritised in the project counts', async () => {
    const fx = labelsFx();
    await send(fx, 'PUT', `${WEB}/issues/6`, 'erin-api', { add_labels: 'team' });
    const before = await get(fx, `${WEB}/issues?order_by=label_priority&sort=asc`, 'erin-api');
    expect(before.body[0].iid).not.toBe(6);
    expect((await send(fx, 'PUT', `${GROUP}/labels/team`, 'alice-api', { description: 'x' })).status).toBe(
      200,
    );
    await send(fx, 'PUT', `${WEB}/labels/team`, 'erin-api', { priority: 0 });
    const after = await get(fx, `${WEB}/issues?order_by=label_priority&sort=asc`, 'erin-api');
    expect(after.body[0]).toMatchObject({ iid: 6, labels: ['docs', 'team'] });
    // The priority is the project's: the group's list does not show it.
    expect((await get(fx, `${GROUP}/labels/team`, 'erin-api')).body).not.toHaveProperty('priority');
  });
});

describe('group labels', () => {
  it('GET /groups/:id/labels: GroupLabel fields; descendants and project labels when asked', async () => {
    const fx = labelsFx();
    const r = await get(fx, `${GROUP}/labels`, 'erin-api');
    expect(r.body).toEqual([
      {
        id: expect.any(Number),
        name: 'team',
        color: '#0000FF',
        description: null,
        description_html: '',
        text_color: '#FFFFFF',
        subscribed: true,
      },
    ]);
    expect(
      names((await get(fx, `${GROUP}/labels?include_descendant_groups=true`, 'alice-api')).body),
    ).toEqual(['lab', 'team']);
    expect(names((await get(fx, `${GROUP}/labels?only_group_labels=false`, 'alice-api')).body)).toEqual([
      'bug',
      'docs',
      'feature',
      'team',
    ]);
    expect(
      names((await get(fx, '/groups/acme%2Flabs/labels?include_ancestor_groups=false', 'alice-api')).body),
    ).toEqual(['lab']);
    expect((await get(fx, `${GROUP}/labels`)).status).toBe(401);
  });

  it('POST/PUT/DELETE /groups/:id/labels: reporters of the group write; 403 below; 409 for a taken title', async () => {
    const fx = labelsFx();
    await refused(fx, 'POST', `${GROUP}/labels`, 'erin-api', { name: 'ops', color: '#123456' }, 403, {
      message: '403 Forbidden',
    });
    const made = await send(fx, 'POST', `${GROUP}/labels`, 'dave-api', { name: 'ops', color: 'teal' });
    expect(made).toMatchObject({ status: 201, body: { name: 'ops', color: '#008080', subscribed: false } });
    expect(made.body).not.toHaveProperty('priority');
    await refused(fx, 'POST', `${GROUP}/labels`, 'dave-api', { name: 'ops', color: '#000' }, 409, {
      message: 'Label already exists',
    });
    await refused(fx, 'PUT', `${GROUP}/labels/ops`, 'dave-api', { priority: 1 }, 400, {
      error: 'new_name, color, description are missing, at least one parameter must be provided',
    });
    const put = await send(fx, 'PUT', `${GROUP}/labels/ops`, 'dave-api', { new_name: 'operations' });
    expect(put.body).toMatchObject({ id: made.body.id, name: 'operations' });
    expect((await get(fx, `${WEB}/labels/operations`, 'bob-api')).body.is_project_label).toBe(false);
    expect((await send(fx, 'DELETE', `${GROUP}/labels/operations`, 'dave-api')).status).toBe(204);
    expect((await get(fx, `${GROUP}/labels/operations`, 'dave-api')).status).toBe(404);
  });

  it('POST /groups/:id/labels/:label_id/subscribe: a subscription of the group (not of any project)', async () => {
    const fx = labelsFx();
    expect((await send(fx, 'POST', `${GROUP}/labels/team/subscribe`, 'bob-api')).body.subscribed).toBe(true);
    expect((await send(fx, 'POST', `${GROUP}/labels/team/subscribe`, 'bob-api')).status).toBe(304);
    // Subscribing through a project is a subscription in that project only.
    expect((await send(fx, 'POST', `${WEB}/labels/team/subscribe`, 'carol-api')).status).toBe(201);
    expect((await get(fx, `${GROUP}/labels/team`, 'carol-api')).body.subscribed).toBe(false);
    expect((await get(fx, `${WEB}/labels/team`, 'carol-api')).body.subscribed).toBe(true);
  });
});

describe('labels in scenarios', () => {
  it('scenario export: group labels, subscribers and group label priorities load back the same', async () => {
    const fx = labelsFx();
    await send(fx, 'PUT', `${WEB}/labels/team`, 'erin-api', { priority: 4 });
    await send(fx, 'POST', `${WEB}/labels/team/subscribe`, 'carol-api');
    await send(fx, 'POST', `${WEB}/labels/docs/subscribe`, 'bob-api');
    const file = exportScenario(fx.state, { now: fx.clock.iso() });
    const acme = file.groups!.find((g) => g.path === 'acme')!;
    expect(acme.labels).toEqual([{ id: 1, name: 'team', color: '#0000FF', subscribers: ['erin'] }]);
    const web = file.projects!.find((p) => p.path === 'acme/website')!;
    expect(web.group_labels).toEqual([{ name: 'team', subscribers: ['carol'], priority: 4 }]);
    expect(web.labels!.find((l) => l.name === 'docs')).toMatchObject({ subscribers: ['bob'] });
    const again = createFauxlab({ scenario: file });
    for (const [path, token] of [
      [`${WEB}/labels`, 'carol-api'],
      [`${WEB}/labels`, 'bob-api'],
      [`${GROUP}/labels`, 'erin-api'],
    ] as const)
      expect((await get(again, path, token)).body).toEqual((await get(fx, path, token)).body);
  });

  it('scenario: unknown subscribers and group labels no group above the project has are named', () => {
    expect(
      scenarioProblems({
        users: [{ username: 'a' }],
        groups: [{ path: 'g', labels: [{ name: 'x', subscribers: ['ghost'] }] }],
        projects: [
          { path: 'a/p', labels: [{ name: 'y', subscribers: ['nobody'] }], group_labels: [{ name: 'x' }] },
        ],
      }),
    ).toEqual([
      'groups[0].labels[0].subscribers[0]: no user "ghost"',
      'projects[0].labels[0].subscribers[0]: no user "nobody"',
      'projects[0].group_labels[0].name: no group label "x" above the project',
    ]);
  });
});
