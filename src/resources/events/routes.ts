/**
 * The events API (`lib/api/events.rb`, `GET /user/activities` of `lib/api/users.rb`): a user's own
 * events (`/events`, or with `scope=all` those of every project they are a member of), another user's
 * (`/users/:id/events`, empty when their profile is private) and a project's (`/projects/:id/events`),
 * each event shown only to viewers who may read its target, as `Event#visible_to_user?` decides.
 */
import { canReadProject, projectAccess } from '../../core/access.js';
import { findUser, requireAdmin, requireUser } from '../../core/auth.js';
import { state, type Ctx } from '../../core/context.js';
import { notFound } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { PlatformState, UserRecord } from '../../core/state.js';
import { tget, tvalues } from '../../core/table.js';
import { abilities, canSeeIssue, canSeeNote, type ProjectAbilities } from '../issuables/access.js';
import { issuableRenderer } from '../issuables/entities.js';
import { canDownloadCode } from '../projects/access.js';
import type { Project } from '../projects/model.js';
import { commitTitle } from '../repository/entities.js';
import { objectsOf } from '../repository/store.js';
import { loadProject } from '../projects/helpers.js';
import { userRenderer } from '../users/entities.js';
import {
  authoredEvents,
  byTime,
  isNoteClass,
  projectEvents,
  type EventAction,
  type EventRow,
} from './derive.js';

const ACTIONS: readonly EventAction[] = [
  'created',
  'updated',
  'closed',
  'reopened',
  'pushed',
  'commented',
  'merged',
  'joined',
  'left',
  'destroyed',
  'expired',
  'approved',
];
const TARGET_TYPES = [
  'issue',
  'milestone',
  'merge_request',
  'note',
  'project',
  'snippet',
  'user',
  'wiki',
  'design',
] as const;

const filterParams = {
  action: p.str().values(ACTIONS),
  target_type: p.str().values(TARGET_TYPES),
  before: p.date(),
  after: p.date(),
  sort: p
    .str()
    .values(['asc', 'desc'] as const)
    .default('desc'),
  ...paginationParams,
};

type Filters = ReturnType<typeof parse<typeof filterParams>>;

/** `target_type.classify`: the stored class name a filter value names. */
const CLASS_OF: Record<string, string> = {
  issue: 'Issue',
  milestone: 'Milestone',
  merge_request: 'MergeRequest',
  note: 'Note',
  project: 'Project',
  snippet: 'Snippet',
  user: 'User',
  wiki: 'Wiki',
  design: 'Design',
};

const DAY = 86_400_000;

/** `EventsFinder`'s filters: `before` is the start of that day, `after` the end of that day. */
function applyFilters(list: EventRow[], f: Filters): EventRow[] {
  const before = f.before === undefined ? undefined : Date.parse(`${f.before}T00:00:00Z`);
  const after = f.after === undefined ? undefined : Date.parse(`${f.after}T00:00:00Z`) + DAY;
  const type = f.target_type === undefined ? undefined : CLASS_OF[f.target_type];
  const out = list.filter((e) => {
    if (f.action !== undefined && e.action !== f.action) return false;
    if (type !== undefined && e.target_type !== type) return false;
    const t = Date.parse(e.created_at);
    if (before !== undefined && !(t < before)) return false;
    if (after !== undefined && !(t >= after)) return false;
    return true;
  });
  return f.sort === 'asc' ? out : out.reverse();
}

/** `Event#visible_to_user?`: the project, then the target (issues, merge requests, comments, code). */
function visibility(st: PlatformState, viewer: UserRecord | null): (e: EventRow) => boolean {
  const per = new Map<number, ProjectAbilities | null>();
  const abilitiesOf = (projectId: number) => {
    let a = per.get(projectId);
    if (a === undefined) {
      const project = tget(st.projects, projectId);
      a = project && canReadProject(st, viewer, project) ? abilities(st, viewer, project as Project) : null;
      per.set(projectId, a);
    }
    return a;
  };
  return (e) => {
    const a = abilitiesOf(e.project_id);
    if (!a) return false;
    if (e.push) return a.mergeRequests;
    if (e.target_type === 'Issue') {
      const issue = tget(st.issuables.issues, e.target_id!);
      return !!issue && a.issues && canSeeIssue(a, issue);
    }
    if (e.target_type === 'MergeRequest') return a.mergeRequests;
    if (isNoteClass(e.target_type)) {
      const n = tget(st.issuables.notes, e.target_id!);
      if (!n || !canSeeNote(a, n)) return false;
      if (n.noteable_type === 'Issue') {
        const issue = tget(st.issuables.issues, n.noteable_id);
        return !!issue && a.issues && canSeeIssue(a, issue);
      }
      if (n.noteable_type === 'Commit')
        return canDownloadCode(tget(st.projects, e.project_id) as Project, viewer, a.level);
      return n.noteable_type === 'MergeRequest' ? a.mergeRequests : true;
    }
    return true;
  };
}

/** `Entities::Event`. */
function eventRenderer(c: Ctx) {
  const st = state(c);
  const users = userRenderer(c);
  const notes = issuableRenderer(c);
  return (e: EventRow) => {
    const author = tget(st.users, e.author_id);
    let target: { iid: number | null; title: string | null } = { iid: null, title: null };
    const note = isNoteClass(e.target_type) ? tget(st.issuables.notes, e.target_id!) : undefined;
    if (e.target_type === 'Issue' || e.target_type === 'MergeRequest') {
      const x =
        e.target_type === 'Issue'
          ? tget(st.issuables.issues, e.target_id!)
          : tget(st.issuables.mergeRequests, e.target_id!);
      target = { iid: x?.iid ?? null, title: x?.title ?? null };
    } else if (note?.noteable_type === 'Commit') {
      const commit = note.commit_id === undefined ? undefined : objectsOf(st).commit(note.commit_id);
      target = { iid: null, title: commit ? commitTitle(commit.message) : null };
    } else if (note) {
      const noteable =
        note.noteable_type === 'Issue'
          ? tget(st.issuables.issues, note.noteable_id)
          : note.noteable_type === 'MergeRequest'
            ? tget(st.issuables.mergeRequests, note.noteable_id)
            : tget(st.issuables.snippets, note.noteable_id);
      target = { iid: null, title: noteable?.title ?? null };
    }
    const out: Record<string, unknown> = {
      id: e.id,
      project_id: e.project_id,
      action_name: actionName(e),
      target_id: e.target_id,
      target_iid: target.iid,
      target_type: e.target_type,
      author_id: e.author_id,
      target_title: target.title,
      created_at: e.created_at,
    };
    if (note) out.note = notes.note(note);
    if (author) out.author = users.basic(author);
    if (e.push)
      out.push_data = {
        commit_count: e.push.action === 'removed' ? 0 : 1,
        action: e.push.action,
        ref_type: e.push.ref_type,
        commit_from: e.push.commit_from,
        commit_to: e.push.commit_to,
        ref: e.push.ref,
        commit_title: null,
        ref_count: null,
      };
    out.author_username = author?.username ?? null;
    return out;
  };
}

/** `Event#action_name`. */
function actionName(e: EventRow): string {
  if (e.push)
    return e.push.action === 'created' ? 'pushed new' : e.push.action === 'removed' ? 'deleted' : 'pushed to';
  switch (e.action) {
    case 'created':
      return e.target_type === null ? 'created' : 'opened';
    case 'merged':
      return 'accepted';
    case 'commented':
      return 'commented on';
    default:
      return e.action;
  }
}

function send(c: Ctx, list: EventRow[], f: Filters): Response {
  return paginate(c, applyFilters(list, f), eventRenderer(c));
}

export function eventsRoutes(r: ApiRouter): void {
  r.get('/events', { auth: 'required', params: { ...filterParams, scope: p.str() } }, (c, prm) => {
    const user = requireUser(c);
    const st = state(c);
    const visible = visibility(st, user);
    // `scope=all`: the events of every project the user is a member of (`authorized_projects`), read
    // project by project; otherwise the user's own events, wherever they happened.
    const list =
      prm.scope === 'all'
        ? tvalues(st.projects)
            .filter((project) => projectAccess(st, user, project) > 0)
            .flatMap((project) => projectEvents(st, project.id))
            .sort(byTime)
        : authoredEvents(st, user.id);
    return send(
      c,
      list.filter((e) => visible(e)),
      prm,
    );
  });

  r.get('/users/:id/events', { params: filterParams }, (c, prm) => {
    const st = state(c);
    const target = findUser(st, c.req.param('id') ?? '');
    if (!target) throw notFound('User', 'no user with this id or username');
    const viewer = c.get('viewer').user;
    // `read_user_profile`: a private profile shows its events only to its owner and admins.
    const readable = !target.private_profile || viewer?.id === target.id || viewer?.admin === true;
    const visible = visibility(st, viewer);
    const list = readable ? authoredEvents(st, target.id).filter((e) => visible(e)) : [];
    return send(c, list, prm);
  });

  r.get('/projects/:id/events', { params: filterParams }, (c, prm) => {
    const project = loadProject(c);
    const st = state(c);
    const visible = visibility(st, c.get('viewer').user);
    return send(
      c,
      projectEvents(st, project.id).filter((e) => visible(e)),
      prm,
    );
  });

  r.get('/user/activities', { auth: 'required' }, (c) => {
    requireAdmin(c);
    const now = c.get('fx').clock.ms();
    const prm = parse(c, { from: p.datetime(), ...paginationParams });
    // The default is six months before now.
    const from = (prm.from ?? new Date(now - 182 * DAY).toISOString()).slice(0, 10);
    const list = tvalues(state(c).users)
      .filter((u) => u.last_activity_on !== null && u.last_activity_on >= from)
      .sort((a, b) =>
        a.last_activity_on! < b.last_activity_on!
          ? -1
          : a.last_activity_on! > b.last_activity_on!
            ? 1
            : a.id - b.id,
      );
    return paginate(c, list, (u) => ({
      username: u.username,
      last_activity_on: u.last_activity_on,
      last_activity_at: u.last_activity_on,
    }));
  });
}
