/**
 * The integrations' part of the control plane: the delivery log (`GET`/`DELETE /__fauxlab/deliveries`)
 * and `POST /__fauxlab/push`, which stands in for a `git push`: it moves a branch or creates a tag and
 * fires the push or tag push event. The ref moves through the repository's write path, so it always
 * names a commit the repository API can read: a branch push without a `sha` adds a commit by the pusher
 * on top of the branch (a new branch starts from the default branch), a tag push without one tags the
 * default branch's head, and a given `sha` must name an object already in the instance.
 */
import type { Context, Hono } from 'hono';
import { jsonObject } from '../../core/json-body.js';
import type { Env, Fx } from '../../core/context.js';
import { apiError } from '../../core/errors.js';
import type { PlatformState } from '../../core/state.js';
import { iget, tget } from '../../core/table.js';
import { findRef } from '../ci/refs.js';
import type { Project } from '../projects/model.js';
import type { Signature } from '../repository/objects.js';
import { objectsOf } from '../repository/store.js';
import { setRef } from '../repository/refs.js';
import { buildCommit, moveBranch, signatureOf } from '../repository/write.js';
import { deliveries } from './delivery.js';
import { dispatch } from './events.js';
import { recordPush } from '../events/store.js';

const BLANK_SHA = '0000000000000000000000000000000000000000';

export function integrationControl(app: Hono<Env>, fxOf: (c: Context<Env>) => Fx): void {
  // `?wait=true` first waits for the deliveries under way; `integration=` and `event=` filter.
  app.get('/deliveries', async (c) => {
    const log = deliveries(fxOf(c).clock);
    if (c.req.query('wait') === 'true') await log.settled();
    const integration = c.req.query('integration');
    const event = c.req.query('event');
    const list = log
      .list()
      .filter((d) => (!integration || d.integration === integration) && (!event || d.event === event));
    return c.json(list, 200, { 'X-Total': String(list.length) });
  });

  app.delete('/deliveries', (c) => {
    deliveries(fxOf(c).clock).clear();
    return c.body(null, 204);
  });

  app.post('/push', async (c) => {
    const fx = fxOf(c);
    const b = await jsonObject(c.req.raw);
    const problems: string[] = [];
    if (typeof b.project !== 'string') problems.push('project: give the project path');
    if (typeof b.ref !== 'string' || b.ref === '') problems.push('ref: give a branch or tag name');
    if (b.tag !== undefined && typeof b.tag !== 'boolean') problems.push('tag: true or false');
    if (b.user !== undefined && typeof b.user !== 'string') problems.push('user: a username');
    if (b.sha !== undefined && (typeof b.sha !== 'string' || !/^[0-9a-f]{40}$/.test(b.sha)))
      problems.push('sha: 40 hex digits');
    if (problems.length) throw apiError(400, { push: problems });
    const st = fx.store.state;
    const pid = iget(st.idx.projects, (b.project as string).toLowerCase());
    const project = pid === undefined ? undefined : tget(st.projects, pid);
    if (!project) throw apiError(404, `no project ${String(b.project)}`);
    const uid =
      typeof b.user === 'string' ? iget(st.idx.usernames, b.user.toLowerCase()) : project.creator_id;
    if (uid === undefined) throw apiError(404, `no user ${String(b.user)}`);
    const ref = b.ref as string;
    const tag = b.tag === true;
    const kind = tag ? 'tag' : 'branch';
    const before = findRef(st, project, kind, ref) ?? BLANK_SHA;
    const now = fx.clock.iso();
    const store = objectsOf(st);
    const sha = b.sha as string | undefined;
    if (sha !== undefined) {
      const type = store.type(sha);
      // A branch names a commit; a tag may name an annotated tag object as well, as `git push` allows.
      if (type !== 'commit' && !(tag && type === 'tag'))
        throw apiError(400, { push: [`sha: no ${tag ? 'commit or tag' : 'commit'} ${sha} in the instance`] });
    }
    const user = tget(st.users, uid)!;
    const signature = signatureOf(user, Math.floor(fx.clock.ms() / 1000));
    const proj = project as Project;
    const after =
      sha ?? (tag ? tagTarget(st, proj, signature) : pushCommit(st, proj, ref, before, signature));
    fx.store.write((d) => {
      if (kind === 'branch') moveBranch(d, proj, ref, after, { userId: uid, now });
      else setRef(d, proj, 'tag', ref, after);
      recordPush(d, {
        project_id: project.id,
        author_id: uid,
        ref,
        ref_type: kind,
        action: before === BLANK_SHA ? 'created' : 'pushed',
        commit_from: before === BLANK_SHA ? null : before,
        commit_to: after,
        created_at: now,
      });
    });
    const base = fx.baseUrl ?? new URL(c.req.url).origin;
    dispatch(fx, base, uid, { kind: 'push', projectId: project.id, ref, tag, before, after, userId: uid });
    return c.json({ project: project.path_with_namespace, ref, tag, before, after }, 201);
  });
}

/**
 * The commit a branch push without a sha adds: the pusher's, on top of the branch, or for a new branch
 * on top of the default branch (without one, a first commit with no parent). It changes no
 * file: what a push carries is not known, only that it moved the branch.
 */
function pushCommit(st: PlatformState, p: Project, ref: string, before: string, who: Signature): string {
  const d = p.default_branch;
  const head = d === null ? undefined : findRef(st, p, 'branch', d);
  // By branch name, not sha: a sha is checked against the whole history, a name is one lookup.
  const start =
    before !== BLANK_SHA ? {} : head !== undefined && d !== null ? { start_branch: d } : undefined;
  if (start === undefined) {
    // No branch to start from: a first commit of its own, as a push of an orphan branch makes.
    const store = objectsOf(st);
    const tree = store.putTree([]);
    return store.putCommit({ tree, parents: [], author: who, committer: who, message: pushMessage(ref) });
  }
  const req = { branch: ref, message: pushMessage(ref), actions: [], ...start };
  return buildCommit(st, p, req, who).id;
}

const pushMessage = (ref: string) => `Push to ${ref}\n`;

/** What a tag push without a sha tags: the default branch's head, else a first commit of its own. */
function tagTarget(st: PlatformState, p: Project, who: Signature): string {
  const head = p.default_branch === null ? undefined : findRef(st, p, 'branch', p.default_branch);
  if (head !== undefined) return head;
  const store = objectsOf(st);
  return store.putCommit({
    tree: store.putTree([]),
    parents: [],
    author: who,
    committer: who,
    message: 'Tag\n',
  });
}
