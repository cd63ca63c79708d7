/**
 * @gitbeaker/rest, a real client, against fauxlab through MSW: issues, merge requests, their notes and
 * project milestones, as an application would use them.
 */
import { GitbeakerRequestError, Gitlab } from '@gitbeaker/rest';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fauxlabHandlers } from '../../../src/msw/index.js';
import { issuablesFx } from './world.js';

const HOST = 'http://gitlab.issuables.test';
const fx = issuablesFx();
const server = setupServer(...fauxlabHandlers(fx, { baseUrl: HOST }));
const client = (token = 'alice-api') => new Gitlab({ host: HOST, token });

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => fx.reset());
afterAll(() => server.close());

describe('gitbeaker', () => {
  it('Issues.all: filters and follows pagination to the end', async () => {
    const api = client();
    const all = await api.Issues.all({ projectId: 'acme/website', perPage: 2 });
    expect(all.map((i) => i.iid)).toEqual([6, 5, 4, 3, 2, 1]);
    const bugs = await api.Issues.all({ projectId: 'acme/website', labels: 'bug', state: 'opened' });
    expect(bugs.map((i) => i.iid)).toEqual([4, 1]);
    const mine = await client('bob-api').Issues.all();
    expect(mine.map((i) => i.title)).toEqual([
      'Personal todo',
      'Secret vulnerability',
      'Login button broken',
    ]);
  });
  it('Issues.create, edit, subscribe and createTodo', async () => {
    const api = client('dave-api');
    const issue = await api.Issues.create('acme/website', 'From gitbeaker', {
      labels: 'bug',
      description: '- [ ] one',
    });
    expect(issue).toMatchObject({
      iid: 7,
      labels: ['bug'],
      task_completion_status: { count: 1, completed_count: 0 },
    });
    const edited = await api.Issues.edit('acme/website', 7, { stateEvent: 'close' });
    expect(edited.state).toBe('closed');
    const sub = await client('bob-api').Issues.subscribe('acme/website', 7);
    expect(sub.subscribed).toBe(true);
    const todo = await api.Issues.createTodo('acme/website', 7);
    expect(todo).toMatchObject({ action_name: 'marked', target_type: 'Issue' });
  });
  it('MergeRequests.all and show', async () => {
    const api = client();
    const open = await api.MergeRequests.all({ projectId: 'acme/website', state: 'opened' });
    expect(open.map((m) => m.iid)).toEqual([2, 1]);
    const mine = await client('dave-api').MergeRequests.all();
    expect(mine.map((m) => m.iid)).toEqual([1, 3]);
    const one = await api.MergeRequests.show('acme/website', 1);
    expect(one.changes_count).toBe('2');
  });
  it('MergeRequests.create: a duplicate source branch is a 409 the client reports', async () => {
    const api = client('dave-api');
    const err = await api.MergeRequests.create('acme/website', 'fix-login', 'master', 'Again').catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(GitbeakerRequestError);
    expect((err as GitbeakerRequestError).cause?.response.status).toBe(409);
  });
  it('IssueNotes: all, create, edit, remove', async () => {
    const api = client('dave-api');
    const created = await api.IssueNotes.create('acme/website', 2, 'Looking into it');
    expect(created).toMatchObject({ body: 'Looking into it', noteable_iid: 2 });
    await api.IssueNotes.edit('acme/website', 2, created.id, { body: 'Fixed' });
    const notes = await api.IssueNotes.all('acme/website', 2, { sort: 'asc' });
    expect(notes.map((n) => n.body)).toEqual(['Fixed']);
    await api.IssueNotes.remove('acme/website', 2, created.id);
    expect(await api.IssueNotes.all('acme/website', 2)).toEqual([]);
  });
  it('MergeRequestNotes: all and create', async () => {
    const api = client('bob-api');
    await api.MergeRequestNotes.create('acme/website', 1, 'Nice');
    const notes = await api.MergeRequestNotes.all('acme/website', 1);
    expect(notes.map((n) => [n.body, n.noteable_type])).toEqual([['Nice', 'MergeRequest']]);
  });
  it('ProjectMilestones: all, create, edit, allAssignedIssues, remove', async () => {
    const api = client('dave-api');
    expect(
      (await api.ProjectMilestones.all('acme/website', { state: 'active' })).map((m) => m.title),
    ).toEqual(['v2.0', 'v1.0']);
    const m = await api.ProjectMilestones.create('acme/website', 'v3.0', { dueDate: '2021-09-01' });
    expect(m).toMatchObject({ title: 'v3.0', due_date: '2021-09-01', state: 'active' });
    const closed = await api.ProjectMilestones.edit('acme/website', m.id, { stateEvent: 'close' });
    expect(closed.state).toBe('closed');
    const issues = await api.ProjectMilestones.allAssignedIssues('acme/website', 1);
    expect(issues.map((i) => i.iid)).toEqual([1, 6]);
    await api.ProjectMilestones.remove('acme/website', m.id);
    expect((await api.ProjectMilestones.all('acme/website')).map((x) => x.title)).toEqual([
      'old',
      'v2.0',
      'v1.0',
    ]);
  });
});
