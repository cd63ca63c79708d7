/**
 * @gitbeaker/rest, a real client, using the collaboration API as an integration would: labels,
 * discussions, webhooks (a receiver on 127.0.0.1 checks headers and payloads), search, events and
 * namespaces. Each test runs through MSW and again over loopback HTTP, on a fresh world each time, and
 * both runs must give the same results (up to the host in URLs).
 */
import { GitbeakerRequestError, Gitlab } from '@gitbeaker/rest';
import { beforeAll, describe, expect, it } from 'vitest';
import { deliveries } from '../../src/resources/integrations/delivery.js';
import type { ScenarioFile } from '../../src/scenario/schema.js';
import { CLIENT_VERSIONS, viaHttp as httpTarget, viaMsw as mswTarget, type Target } from './targets.js';
import type { Minor } from '../../src/core/versions.js';
import { receiver } from '../resources/settings/world.js';

const MSW_HOST = 'http://gitlab.collab.test';

const scenario: ScenarioFile = {
  now: '2021-03-01T12:00:00.000Z',
  settings: { allow_local_requests_from_web_hooks_and_services: true },
  users: [
    { username: 'root', name: 'Administrator', admin: true, tokens: [{ token: 'root-token' }] },
    { username: 'alice', name: 'Alice Liddell', tokens: [{ token: 'alice-token' }] },
    { username: 'bob', name: 'Bob Builder', tokens: [{ token: 'bob-token' }] },
    { username: 'carol', name: 'Carol Outsider', tokens: [{ token: 'carol-token' }] },
  ],
  groups: [
    {
      path: 'acme',
      name: 'Acme',
      visibility: 'public',
      members: [
        { username: 'alice', access_level: 'maintainer' },
        { username: 'bob', access_level: 'developer' },
      ],
    },
    { path: 'acme/tools', name: 'Tools', visibility: 'public' },
  ],
  projects: [
    {
      path: 'acme/app',
      name: 'App',
      visibility: 'public',
      creator: 'alice',
      labels: [{ name: 'bug', color: '#d9534f' }],
      issues: [{ title: 'Crash on start', author: 'bob', description: 'It crashes', labels: ['bug'] }],
    },
    { path: 'acme/tools/cli', name: 'CLI', visibility: 'public', creator: 'alice' },
  ],
};

/** The release the running suite answers as (set by each suite of `CLIENT_VERSIONS`). */
let version: Minor = '13.12';
const viaMsw = () => mswTarget(scenario, MSW_HOST, 'bypass', version);
const viaHttp = () => httpTarget(scenario, version);

/** URLs carry the host the client used (`git@host:` in SSH URLs), and each run has its own receiver. */
function normalise(value: unknown, host: string): unknown {
  if (value === undefined) return undefined;
  const text = JSON.stringify(value)
    .split(host)
    .join('http://HOST')
    .split(`@${new URL(host).hostname}:`)
    .join('@HOST:')
    .replace(/http:\/\/127\.0\.0\.1:\d+\/hook/g, 'http://RECEIVER/hook');
  return JSON.parse(text);
}

type Clients = { root: Gitlab; alice: Gitlab; bob: Gitlab; carol: Gitlab };

async function both<T>(run: (api: Clients, t: Target) => Promise<T>): Promise<T> {
  const out: Partial<Record<'msw' | 'http', T>> = {};
  for (const [name, open] of [
    ['msw', viaMsw],
    ['http', viaHttp],
  ] as const) {
    const t = await open();
    try {
      const client = (token: string) => new Gitlab({ host: t.host, token });
      const api = {
        root: client('root-token'),
        alice: client('alice-token'),
        bob: client('bob-token'),
        carol: client('carol-token'),
      };
      out[name] = normalise(await run(api, t), t.host) as T;
    } finally {
      await t.close();
    }
  }
  expect(out.msw).toEqual(out.http);
  return out.msw!;
}

async function failure(call: Promise<unknown>) {
  try {
    await call;
  } catch (e) {
    if (!(e instanceof GitbeakerRequestError)) throw e;
    return { status: e.cause?.response.status, description: e.cause?.description };
  }
  throw new Error('the call succeeded');
}

describe.each(CLIENT_VERSIONS)(
  '@gitbeaker/rest collaboration API against fauxlab (MSW and HTTP), GitLab %s',
  (at) => {
    beforeAll(() => {
      version = at;
    });

    it('ProjectLabels: create, list with counts, edit, a taken name refused, remove', async () => {
      const out = await both(async ({ alice, bob, carol }) => {
        const created = await alice.ProjectLabels.create('acme/app', 'needs review', '#428BCA', {
          description: 'Waiting for a reviewer',
          priority: 2,
        });
        const listed = await bob.ProjectLabels.all('acme/app', { withCounts: true });
        const edited = await alice.ProjectLabels.edit('acme/app', created.id, { newName: 'review' });
        const taken = await failure(alice.ProjectLabels.create('acme/app', 'bug', '#000000'));
        const outsider = await failure(carol.ProjectLabels.remove('acme/app', created.id));
        await alice.ProjectLabels.remove('acme/app', created.id);
        const after = (await bob.ProjectLabels.all('acme/app')).map((l) => l.name);
        return { created, listed, edited, taken, outsider, after };
      });
      expect(out.created).toMatchObject({
        name: 'needs review',
        color: '#428BCA',
        description: 'Waiting for a reviewer',
        priority: 2,
        is_project_label: true,
        subscribed: false,
      });
      expect(out.listed.map((l) => [l.name, l.open_issues_count])).toEqual([
        ['bug', 1],
        ['needs review', 0],
      ]);
      expect(out.edited).toMatchObject({ id: out.created.id, name: 'review' });
      expect(out.taken).toEqual({ status: 409, description: 'Label already exists' });
      expect(out.outsider).toEqual({ status: 403, description: '403 Forbidden' });
      expect(out.after).toEqual(['bug']);
    });

    it('IssueDiscussions: start a thread, reply, list, show, edit and remove a note', async () => {
      const out = await both(async ({ alice, bob }) => {
        const thread = await bob.IssueDiscussions.create('acme/app', 1, 'Seen on 13.12 too');
        const reply = await alice.IssueDiscussions.addNote('acme/app', 1, thread.id, 'Looking into it');
        const listed = await bob.IssueDiscussions.all('acme/app', 1);
        const shown = await bob.IssueDiscussions.show('acme/app', 1, thread.id);
        const edited = await alice.IssueDiscussions.editNote('acme/app', 1, thread.id, reply.id, {
          body: 'Fixed in !1',
        });
        const notYours = await failure(
          bob.IssueDiscussions.editNote('acme/app', 1, thread.id, reply.id, { body: 'mine now' }),
        );
        await alice.IssueDiscussions.removeNote('acme/app', 1, thread.id, reply.id);
        const after = await bob.IssueDiscussions.show('acme/app', 1, thread.id);
        return { thread, reply, listed, shown, edited, notYours, after };
      });
      expect(out.thread).toMatchObject({
        individual_note: false,
        notes: [{ body: 'Seen on 13.12 too', author: { username: 'bob' }, noteable_type: 'Issue' }],
      });
      expect(out.reply).toMatchObject({ body: 'Looking into it', author: { username: 'alice' } });
      expect(out.listed).toEqual([out.shown]);
      expect(out.shown.notes!.map((n) => n.body)).toEqual(['Seen on 13.12 too', 'Looking into it']);
      expect(out.edited).toMatchObject({ id: out.reply.id, body: 'Fixed in !1' });
      expect(out.notYours.status).toBe(403);
      expect(out.after.notes!.map((n) => n.body)).toEqual(['Seen on 13.12 too']);
    });

    it('CommitDiscussions: a diff note on a commit, a reply, and the same notes through the commit comments', async () => {
      const out = await both(async ({ alice, bob }) => {
        const commit = await alice.Commits.create('acme/app', 'master', 'Add a', [
          { action: 'create', filePath: 'a.txt', content: 'one\ntwo\n' },
        ]);
        const parent = commit.parent_ids![0]!;
        const thread = await bob.CommitDiscussions.create('acme/app', commit.id, 'Why two?', {
          position: {
            baseSha: parent,
            startSha: parent,
            headSha: commit.id,
            positionType: 'text',
            newPath: 'a.txt',
            oldPath: 'a.txt',
            newLine: '2',
          },
        });
        const reply = await alice.CommitDiscussions.addNote('acme/app', commit.id, thread.id, 'Because');
        const listed = await bob.CommitDiscussions.all('acme/app', commit.id);
        const edited = await alice.CommitDiscussions.editNote('acme/app', commit.id, thread.id, reply.id, {
          body: 'Because of one',
        });
        const comments = await bob.Commits.allComments('acme/app', commit.id);
        await alice.CommitDiscussions.removeNote('acme/app', commit.id, thread.id, reply.id);
        const after = await bob.CommitDiscussions.show('acme/app', commit.id, thread.id);
        return { thread, listed, edited, comments, after };
      });
      expect(out.thread).toMatchObject({
        individual_note: false,
        notes: [
          {
            type: 'DiffNote',
            body: 'Why two?',
            noteable_id: null,
            noteable_type: 'Commit',
            position: { new_path: 'a.txt', new_line: 2, position_type: 'text' },
          },
        ],
      });
      expect(out.listed).toHaveLength(1);
      expect(out.edited).toMatchObject({ body: 'Because of one', type: 'DiffNote' });
      expect(out.comments.map((c) => [c.note, c.path, c.line, c.line_type])).toEqual([
        ['Why two?', 'a.txt', 2, 'new'],
        ['Because of one', 'a.txt', 2, 'new'],
      ]);
      expect(out.after.notes!.map((n) => n.body)).toEqual(['Why two?']);
    });

    it('ProjectHooks: a local receiver gets the Note Hook and Issue Hook of the thread, with headers and payloads', async () => {
      const out = await both(async ({ alice, bob }, t) => {
        const r = await receiver();
        try {
          const hook = await alice.ProjectHooks.add('acme/app', r.url, {
            noteEvents: true,
            issuesEvents: true,
            pushEvents: false,
            token: 'shared-secret',
          });
          const thread = await bob.IssueDiscussions.create('acme/app', 1, 'A note for the hook');
          await bob.Issues.edit('acme/app', 1, { stateEvent: 'close' });
          await deliveries(t.fx.clock).settled();
          return {
            hook,
            thread: thread.id,
            received: r.received.map((x) => ({
              method: x.method,
              event: x.headers['x-gitlab-event'],
              token: x.headers['x-gitlab-token'],
              type: x.headers['content-type'],
              body: x.body,
            })),
          };
        } finally {
          await r.close();
        }
      });
      expect(out.hook).toMatchObject({ note_events: true, issues_events: true, push_events: false });
      expect(out.hook).not.toHaveProperty('token');
      expect(out.received.map((x) => [x.method, x.event, x.token, x.type])).toEqual([
        ['POST', 'Note Hook', 'shared-secret', 'application/json'],
        ['POST', 'Issue Hook', 'shared-secret', 'application/json'],
      ]);
      expect(out.received[0]!.body).toMatchObject({
        object_kind: 'note',
        event_type: 'note',
        user: { username: 'bob' },
        project: { path_with_namespace: 'acme/app' },
        object_attributes: { note: 'A note for the hook', noteable_type: 'Issue', discussion_id: out.thread },
        issue: { iid: 1, title: 'Crash on start' },
      });
      expect(out.received[1]!.body).toMatchObject({
        object_kind: 'issue',
        user: { username: 'bob' },
        object_attributes: { iid: 1, action: 'close', state: 'closed' },
        labels: [{ title: 'bug' }],
      });
    });

    it('Search: projects, issues and users at the instance, issues in a project and a group', async () => {
      const out = await both(async ({ bob }) => ({
        projects: (await bob.Search.all('projects', 'cli')).map((p) => p.path_with_namespace),
        issues: (await bob.Search.all('issues', 'crash')).map((i) => i.title),
        users: (await bob.Search.all('users', 'ali')).map((u) => u.username),
        inProject: (await bob.Search.all('issues', 'start', { projectId: 'acme/app' })).map((i) => i.iid),
        inGroup: (await bob.Search.all('projects', 'app', { groupId: 'acme' })).map((p) => p.name),
        badScope: await failure(bob.Search.all('wiki_blobs' as 'issues', 'x')),
      }));
      expect(out).toMatchObject({
        projects: ['acme/tools/cli'],
        issues: ['Crash on start'],
        users: ['alice'],
        inProject: [1],
        inGroup: ['App'],
      });
      expect(out.badScope.status).toBe(400);
    });

    it('Search in a project: blobs with a filter and commits by message, on the default branch or a ref', async () => {
      // gitbeaker's types leave out `ref`; it sends every option as a query parameter.
      const onNext = { projectId: 'acme/app', ref: 'next' } as { projectId: string };
      const out = await both(async ({ alice, bob }) => {
        await alice.Commits.create('acme/app', 'master', 'Add the boot sequence', [
          { action: 'create', filePath: 'src/boot.rb', content: 'def boot\n  crash_guard\nend\n' },
          { action: 'create', filePath: 'docs/boot.md', content: 'The crash_guard runs first.\n' },
        ]);
        await alice.Branches.create('acme/app', 'next', 'master');
        await alice.Commits.create('acme/app', 'next', 'Tune the crash guard', [
          {
            action: 'update',
            filePath: 'src/boot.rb',
            content: 'def boot\n  crash_guard(strict: true)\nend\n',
          },
        ]);
        return {
          blobs: await bob.Search.all('blobs', 'crash_guard extension:rb', { projectId: 'acme/app' }),
          onNext: (await bob.Search.all('blobs', 'strict', onNext)).map((b) => [b.path, b.ref, b.startline]),
          commits: (await bob.Search.all('commits', 'crash', onNext)).map((c) => c.title),
        };
      });
      expect(out.blobs).toEqual([
        {
          basename: 'src/boot',
          data: 'def boot\n  crash_guard\nend\n',
          path: 'src/boot.rb',
          filename: 'src/boot.rb',
          id: null,
          ref: 'master',
          startline: 1,
          project_id: 1,
        },
      ]);
      expect(out.onNext).toEqual([['src/boot.rb', 'next', 1]]);
      expect(out.commits).toEqual(['Tune the crash guard']);
    });

    it('Events: a project’s and a user’s events, newest first, filtered by action', async () => {
      const out = await both(async ({ alice, bob }) => {
        await bob.IssueDiscussions.create('acme/app', 1, 'Event me');
        await alice.Issues.create('acme/app', 'Second issue');
        return {
          project: (await bob.Events.all({ projectId: 'acme/app' })).map((e) => [
            e.action_name,
            e.target_type,
          ]),
          commented: (await bob.Events.all({ projectId: 'acme/app', action: 'commented' })).map(
            (e) => (e as { note?: { body: string } }).note?.body,
          ),
          alice: (await bob.Events.all({ userId: 'alice', targetType: 'issue' })).map((e) => e.target_title),
        };
      });
      expect(out.project.slice(0, 2)).toEqual([
        ['opened', 'Issue'],
        ['commented on', 'DiscussionNote'],
      ]);
      expect(out.commented).toEqual(['Event me']);
      expect(out.alice).toEqual(['Second issue']);
    });

    it('Namespaces: a user sees their own and their groups’ namespaces; search and show by id or path', async () => {
      const out = await both(async ({ bob, root }) => ({
        mine: (await bob.Namespaces.all()).map((n) => [n.full_path, n.kind]),
        search: (await bob.Namespaces.all({ search: 'tool' })).map((n) => n.full_path),
        shown: await bob.Namespaces.show('acme/tools'),
        hidden: await failure(bob.Namespaces.show('alice')),
        admin: (await root.Namespaces.all()).length,
      }));
      expect(out.mine).toEqual([
        ['bob', 'user'],
        ['acme', 'group'],
      ]);
      expect(out.search).toEqual([]);
      expect(out.shown).toMatchObject({
        full_path: 'acme/tools',
        kind: 'group',
        parent_id: expect.any(Number),
      });
      expect(out.hidden).toEqual({ status: 404, description: '404 Namespace Not Found' });
      expect(out.admin).toBe(6);
    });

    it('ProjectSnippetAwardEmojis: award a project snippet, list, show, a second award refused, remove', async () => {
      const out = await both(async ({ alice, bob }) => {
        const snippet = await alice.ProjectSnippets.create('acme/app', 'Setup notes', {
          visibility: 'public',
          files: [{ filePath: 'setup.md', content: 'Run make' }],
        });
        const award = await bob.ProjectSnippetAwardEmojis.award('acme/app', snippet.id as number, 'rocket');
        const listed = await alice.ProjectSnippetAwardEmojis.all('acme/app', snippet.id as number);
        const shown = await alice.ProjectSnippetAwardEmojis.show('acme/app', snippet.id as number, award.id);
        const again = await failure(
          bob.ProjectSnippetAwardEmojis.award('acme/app', snippet.id as number, 'rocket'),
        );
        await bob.ProjectSnippetAwardEmojis.remove('acme/app', snippet.id as number, award.id);
        const after = await alice.ProjectSnippetAwardEmojis.all('acme/app', snippet.id as number);
        return { snippetId: snippet.id, award, listed, shown, again, after };
      });
      expect(out.award).toMatchObject({
        name: 'rocket',
        user: { username: 'bob' },
        awardable_id: out.snippetId,
        awardable_type: 'Snippet',
      });
      expect(out.listed).toEqual([out.award]);
      expect(out.shown).toEqual(out.award);
      expect(out.again).toEqual({
        status: 404,
        description: '404 Award Emoji ["Name has already been taken"] Not Found',
      });
      expect(out.after).toEqual([]);
    });
  },
);
