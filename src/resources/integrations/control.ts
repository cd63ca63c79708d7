/**
 * The integrations' part of the control plane: the delivery log (`GET`/`DELETE /__fauxlab/deliveries`)
 * and `POST /__fauxlab/push`, which stands in for a `git push` (fauxlab has no repositories): it moves a
 * branch or creates a tag and fires the push or tag push event.
 */
import { createHash } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { jsonObject } from '../../core/json-body.js';
import type { Env, Fx } from '../../core/context.js';
import { apiError } from '../../core/errors.js';
import { iget, tget } from '../../core/table.js';
import { addRef, findRef } from '../ci/refs.js';
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
    const after =
      (b.sha as string | undefined) ??
      createHash('sha1').update(`${project.id}\0${kind}\0${ref}\0${before}\0${now}`).digest('hex');
    fx.store.write((d) => {
      addRef(d, project.id, kind, ref, after);
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
