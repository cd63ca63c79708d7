/**
 * The caller's todos (`GET /todos`) and marking them done (`POST /todos/:id/mark_as_done`,
 * `POST /todos/mark_as_done`): once done, a new todo may be marked on the same target.
 */
import { requireUser } from '../../core/auth.js';
import { state, write, type Ctx } from '../../core/context.js';
import { notModified, recordNotFound } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { PlatformState } from '../../core/state.js';
import { idelete, mget, tget } from '../../core/table.js';
import { issuableRenderer, type IssuableRenderer } from './entities.js';
import { findGroup } from '../../core/access.js';
import { pendingTodo } from './common.js';
import { epicEntity, findEpic } from './epics.js';
import { markTodo } from './model.js';
import type { TodoRecord } from './store.js';

/** The caller's todos, newest first. */
const userTodos = (st: PlatformState, userId: number) =>
  mget(st.issuables.idx.byTarget, `tu${userId}`)
    .map((id) => tget(st.issuables.todos, id)!)
    .sort((a, b) => b.id - a.id);

function render(c: Ctx, r: IssuableRenderer, t: TodoRecord): unknown {
  const st = state(c);
  if (t.target_type === 'Epic') {
    // EE's Todo entity renders an epic target with `EE::API::Entities::Epic`; the URL is the group's.
    const target = epicEntity(c, tget(st.issuables.epics, t.target_id)!);
    return r.todo(t, target, target.web_url as string);
  }
  if (t.target_type === 'Issue') {
    const issue = tget(st.issuables.issues, t.target_id)!;
    // The target is rendered without the caller (`options.fetch(target_type, {})`): never subscribed.
    const target = r.issue(issue, { subscribed: false });
    return r.todo(t, target, target.web_url as string);
  }
  const mr = tget(st.issuables.mergeRequests, t.target_id)!;
  const target = r.mergeRequestFull(mr, { subscribed: false });
  return r.todo(t, target, target.web_url as string);
}

function markDone(d: Parameters<Parameters<typeof write>[1]>[0], t: TodoRecord, now: string): void {
  const rec = tget(d.issuables.todos, t.id)!;
  rec.state = 'done';
  rec.updated_at = now;
  idelete(d.issuables.idx.userTarget, `${t.target_type}:${t.target_id}:${t.user_id}:marked`);
}

export function todosRoutes(r: ApiRouter): void {
  r.get('/todos', (c) => {
    const prm = parse(c, {
      action: p
        .str()
        .values([
          'assigned',
          'mentioned',
          'build_failed',
          'marked',
          'approval_required',
          'unmergeable',
          'directly_addressed',
        ]),
      author_id: p.int(),
      project_id: p.int(),
      group_id: p.int(),
      state: p.str().values(['pending', 'done']),
      type: p.str().values(['Issue', 'MergeRequest', 'DesignManagement::Design', 'AlertManagement::Alert']),
      ...paginationParams,
    });
    const user = requireUser(c);
    const st = state(c);
    const wanted = prm.state ?? 'pending';
    const list = userTodos(st, user.id).filter(
      (t) =>
        t.state === wanted &&
        (prm.action === undefined || t.action === prm.action) &&
        (prm.author_id === undefined || t.author_id === prm.author_id) &&
        (prm.project_id === undefined || t.project_id === prm.project_id) &&
        (prm.type === undefined || t.target_type === prm.type) &&
        (prm.group_id === undefined ||
          t.group_id === prm.group_id ||
          (t.project_id !== null && tget(st.projects, t.project_id)?.namespace_id === prm.group_id)),
    );
    const rr = issuableRenderer(c);
    return paginate(c, list, (t) => render(c, rr, t));
  });

  r.post('/todos/:id/mark_as_done', (c) => {
    const prm = parse(c, { id: p.int().required() });
    const user = requireUser(c);
    const t = tget(state(c).issuables.todos, prm.id);
    if (!t || t.user_id !== user.id) throw recordNotFound('no such todo of the user');
    const now = c.get('fx').clock.iso();
    if (t.state === 'pending') write(c, (d) => markDone(d, t, now));
    return c.json(render(c, issuableRenderer(c), tget(state(c).issuables.todos, t.id)!), 201);
  });

  // EE (`ee/lib/ee/api/todos.rb`): `authenticate!`, the group, then `read_epic` on the epic (a missing
  // one is the same 403); 304 while one is pending.
  r.post('/groups/:id/epics/:epic_iid/todo', { tier: 'premium' }, (c) => {
    const user = requireUser(c);
    const prm = parse(c, { epic_iid: p.int().required() });
    const g = findGroup(c, c.req.param('id') ?? '');
    const e = findEpic(c, g, prm.epic_iid);
    if (pendingTodo(state(c), 'Epic', e.id, user.id) !== undefined) throw notModified();
    const now = c.get('fx').clock.iso();
    const id = write(c, (d) => markTodo(d, 'Epic', e, user.id, now));
    return c.json(render(c, issuableRenderer(c), tget(state(c).issuables.todos, id)!), 201);
  });

  r.post('/todos/mark_as_done', (c) => {
    const user = requireUser(c);
    const pending = userTodos(state(c), user.id).filter((t) => t.state === 'pending');
    const now = c.get('fx').clock.iso();
    if (pending.length) write(c, (d) => pending.forEach((t) => markDone(d, t, now)));
    return c.body(null, 204);
  });
}
