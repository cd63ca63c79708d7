/**
 * Project events reaching the chat integrations, as the platform's hooks route them: each event kind
 * goes to the active integrations whose flag is on (confidential issues and notes have flags of their
 * own), then the integration's own rules apply (no `update` messages, `branches_to_be_notified`,
 * `notify_only_broken_pipelines`; tag pushes always notify). Other areas call `emitEvent` once after
 * their write; the same event goes to the webhooks (src/resources/hooks/dispatch.ts). With no active
 * integration and no webhook on the instance it returns at once.
 */
import type { Ctx, Fx } from '../../core/context.js';
import { requestBase } from '../../core/pagination.js';
import type { PipelineStatus, PlatformState, ProjectRecord, UserRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { livePipeline, projectPipelineIds } from '../ci/model.js';
import { liveBuilds } from '../ci/builds.js';
import { EVENT_FLAG, INTEGRATIONS, type IntegrationSpec } from './catalog.js';
import { deliveries, type DeliveryLog } from './delivery.js';
import { outboundPolicy, WEB_HOOKS } from '../settings/outbound.js';
import { chatPayloads, type Actor, type ChatEvent } from './messages.js';
import { projectIntegrations, type EventFlag, type IntegrationRecord } from './store.js';
import type { ProjectEvent } from './kinds.js';
import { dispatchHooks, finishedPipelineHooks, hooksWantPipeline, jobStepHooks } from '../hooks/dispatch.js';
import { jobSteps } from '../hooks/transitions.js';
import { commitTitle } from '../repository/entities.js';
import { objectsOf } from '../repository/store.js';

export type { ProjectEvent };

const BLANK_SHA = '0000000000000000000000000000000000000000';

/** Tells the integrations about an event; call it once after the request's write. Never throws. */
export function emitEvent(c: Ctx, ev: ProjectEvent): void {
  const fx = c.get('fx');
  const st = fx.store.state;
  if (st.integrations.active === 0 && st.hooks.count === 0) return;
  try {
    dispatch(fx, requestBase(c), c.get('viewer')?.user?.id ?? null, ev);
  } catch (e) {
    console.error('fauxlab: could not notify integrations and webhooks', e);
  }
}

interface Scope {
  fx: Fx;
  st: PlatformState;
  log: DeliveryLog;
  base: string;
}

/**
 * Reports what the watched pipelines did on the clock until now; call it before a write that moves a
 * pipeline's clock (a play, retry or cancel), which would otherwise hide what happened before it.
 */
export function catchUpPipelines(c: Ctx): void {
  const log = deliveries(c.get('fx').clock);
  if (!log.watches().length) return;
  try {
    log.checkPipelines();
  } catch (e) {
    console.error('fauxlab: could not check the watched pipelines', e);
  }
}

/** The same as `emitEvent`, for callers without a request (the control plane, the pipeline watcher). */
export function dispatch(fx: Fx, base: string, actorId: number | null, ev: ProjectEvent): void {
  const st = fx.store.state;
  if (st.integrations.active === 0 && st.hooks.count === 0) return;
  const log = deliveries(fx.clock);
  log.fx = fx;
  log.onPipelineCheck ??= checkPipelines;
  // What the clock did before this event is heard before it.
  log.checkPipelines();
  const s: Scope = { fx, st, log, base };
  if (st.hooks.count > 0) dispatchHooks(fx, log, base, actorId, ev);
  if (ev.kind === 'pipeline') return watchPipeline(s, ev.id);
  if (st.integrations.active === 0) return;
  switch (ev.kind) {
    case 'issue':
      return issueEvent(s, ev.id, ev.before, actorId);
    case 'merge_request':
      return mergeRequestEvent(s, ev.id, ev.before, actorId);
    case 'note':
      return noteEvent(s, ev.id);
    case 'push':
      return pushEvent(s, ev);
  }
}

const projectUrl = (s: Scope, p: ProjectRecord) => `${s.base}/${p.path_with_namespace}`;

/** `Project#full_name`: the namespace's full name, then the project's name. */
function fullName(st: PlatformState, p: ProjectRecord): string {
  const ns =
    p.namespace_kind === 'group'
      ? tget(st.groups, p.namespace_id)
      : p.owner_id === null
        ? undefined
        : tget(st.users, p.owner_id);
  const nsName = ns ? String((ns as { full_name?: unknown }).full_name ?? ns.name) : '';
  return nsName ? `${nsName} / ${p.name}` : p.name;
}

function actor(s: Scope, userId: number | null | undefined): Actor {
  const u: UserRecord | undefined =
    userId === null || userId === undefined ? undefined : tget(s.st.users, userId);
  return {
    name: u?.name ?? 'Ghost User',
    username: u?.username ?? 'ghost',
    avatar_url: u?.avatar_url ?? null,
  };
}

function issueEvent(s: Scope, id: number, before: string | null, actorId: number | null): void {
  const issue = tget(s.st.issuables.issues, id);
  const project = issue && tget(s.st.projects, issue.project_id);
  if (!issue || !project) return;
  const action =
    before === null ? 'open' : before === issue.state ? null : issue.state === 'closed' ? 'close' : 'reopen';
  if (!action) return;
  const eventName = issue.confidential ? 'confidential_issue' : 'issue';
  notify(s, project, eventName, action, actor(s, actorId ?? issue.author_id), {
    kind: 'issue',
    action,
    state: issue.state,
    iid: issue.iid,
    title: issue.title,
    url: `${projectUrl(s, project)}/-/issues/${issue.iid}`,
    description: issue.description ?? '',
  });
}

function mergeRequestEvent(s: Scope, id: number, before: string | null, actorId: number | null): void {
  const mr = tget(s.st.issuables.mergeRequests, id);
  const project = mr && tget(s.st.projects, mr.project_id);
  if (!mr || !project) return;
  const action =
    before === null
      ? 'open'
      : before === mr.state
        ? null
        : mr.state === 'merged'
          ? 'merge'
          : mr.state === 'closed'
            ? 'close'
            : mr.state === 'opened'
              ? 'reopen'
              : null;
  if (!action) return;
  notify(s, project, 'merge_request', action, actor(s, actorId ?? mr.author_id), {
    kind: 'merge_request',
    action,
    state: mr.state,
    iid: mr.iid,
    title: mr.title,
    url: `${projectUrl(s, project)}/-/merge_requests/${mr.iid}`,
  });
}

function noteEvent(s: Scope, id: number): void {
  const note = tget(s.st.issuables.notes, id);
  if (!note || note.system || note.project_id === null) return;
  const project = tget(s.st.projects, note.project_id);
  if (!project) return;
  const base = projectUrl(s, project);
  let confidential = note.confidential;
  let target: { target: string; title: string; url: string } | undefined;
  if (note.noteable_type === 'Issue') {
    const i = tget(s.st.issuables.issues, note.noteable_id);
    if (!i) return;
    confidential ||= i.confidential;
    target = { target: `issue #${i.iid}`, title: i.title, url: `${base}/-/issues/${i.iid}#note_${note.id}` };
  } else if (note.noteable_type === 'MergeRequest') {
    const m = tget(s.st.issuables.mergeRequests, note.noteable_id);
    if (!m) return;
    target = {
      target: `merge request !${m.iid}`,
      title: m.title,
      url: `${base}/-/merge_requests/${m.iid}#note_${note.id}`,
    };
  } else if (note.noteable_type === 'Commit' && note.commit_id !== undefined) {
    const commit = objectsOf(s.st).commit(note.commit_id);
    target = {
      target: `commit ${note.commit_id.slice(0, 8)}`,
      title: commit ? commitTitle(commit.message) : '',
      url: `${base}/-/commit/${note.commit_id}#note_${note.id}`,
    };
  } else if (note.noteable_type === 'Snippet') {
    const sn = tget(s.st.issuables.snippets, note.noteable_id);
    if (!sn) return;
    target = {
      target: `snippet $${sn.id}`,
      title: sn.title,
      url: `${base}/-/snippets/${sn.id}#note_${note.id}`,
    };
  }
  if (!target) return;
  notify(s, project, confidential ? 'confidential_note' : 'note', 'create', actor(s, note.author_id), {
    kind: 'note',
    ...target,
    note: note.body,
  });
}

const truthy = (v: unknown) => v === true || v === 'true' || v === '1' || v === 1;

/** `notify_for_ref?`: tags always; branches per `branches_to_be_notified` (the default branch is the protected one). */
function notifyForRef(rec: IntegrationRecord, project: ProjectRecord, ref: string, tag: boolean): boolean {
  if (tag) return true;
  const isDefault = ref === project.default_branch;
  switch (rec.properties.branches_to_be_notified ?? 'default') {
    case 'all':
      return true;
    case 'default':
    case 'protected':
    case 'default_and_protected':
      return isDefault;
    default:
      return false;
  }
}

function pushEvent(s: Scope, ev: Extract<ProjectEvent, { kind: 'push' }>): void {
  const project = tget(s.st.projects, ev.projectId);
  if (!project) return;
  const base = projectUrl(s, project);
  notify(
    s,
    project,
    ev.tag ? 'tag_push' : 'push',
    null,
    actor(s, ev.userId),
    {
      kind: ev.tag ? 'tag_push' : 'push',
      ref: ev.ref,
      refUrl: ev.tag ? `${base}/-/tags/${ev.ref}` : `${base}/-/commits/${ev.ref}`,
      created: ev.before === BLANK_SHA,
      compareUrl: `${base}/-/compare/${ev.before.slice(0, 8)}...${ev.after.slice(0, 8)}`,
    },
    (rec) => notifyForRef(rec, project, ev.ref, ev.tag),
  );
}

function watchPipeline(s: Scope, id: number): void {
  const pl = tget(s.st.pipelines, id);
  if (!pl || pl.run_at === null) return;
  const wanted =
    projectIntegrations(s.st, pl.project_id, true).some(
      (r) => INTEGRATIONS.get(r.slug)?.chat && r.pipeline_events,
    ) || hooksWantPipeline(s.st, pl.project_id);
  if (wanted) s.log.watch({ pipelineId: id, runAt: pl.run_at, base: s.base, userId: pl.user_id });
}

const FINISHED: ReadonlySet<PipelineStatus> = new Set(['success', 'failed', 'canceled', 'skipped']);

/** Pipelines a new hook starts to follow at most: the project's newest unfinished ones. */
const MAX_FOLLOWED = 100;

/**
 * A hook was added to a project: its unfinished pipelines are watched from now on, so that the hook
 * hears the rest of their run (and only that: what their jobs did before is taken as reported).
 */
export function followRunningPipelines(c: Ctx, projectId: number): void {
  const fx = c.get('fx');
  const st = fx.store.state;
  if (!hooksWantPipeline(st, projectId)) return;
  const log = deliveries(fx.clock);
  log.fx = fx;
  log.onPipelineCheck ??= checkPipelines;
  const now = fx.clock.ms();
  const base = requestBase(c);
  let n = 0;
  for (const id of projectPipelineIds(st, projectId).reverse()) {
    const pl = tget(st.pipelines, id)!;
    if (pl.run_at === null || FINISHED.has(livePipeline(pl, now).status)) continue;
    if (++n > MAX_FOLLOWED) break;
    if (log.watches().some((w) => w.pipelineId === id)) continue;
    const seen = log.jobStates(id);
    const builds = pl.builds ?? [];
    liveBuilds(builds, pl.run_at, now).forEach((l, i) => {
      if (!seen.has(builds[i]!.id)) seen.set(builds[i]!.id, l.status);
    });
    log.watch({ pipelineId: id, runAt: pl.run_at, base, userId: pl.user_id });
  }
}

/** The watcher's tick: pipelines that finished since the last one notify (a rerun or cancel drops the watch). */
function checkPipelines(log: DeliveryLog): void {
  const fx = log.fx;
  if (!fx) return;
  const st = fx.store.state;
  const now = fx.clock.ms();
  for (const w of log.watches()) {
    const pl = tget(st.pipelines, w.pipelineId);
    if (!pl || pl.run_at !== w.runAt) {
      log.unwatch(w.pipelineId);
      continue;
    }
    const live = livePipeline(pl, now);
    if (st.hooks.count > 0 && pl.builds) {
      const steps = jobSteps(st, pl, now, log.jobStates(pl.id));
      jobStepHooks(fx, log, w.base, pl, live, steps);
    }
    if (!FINISHED.has(live.status)) continue;
    log.unwatch(w.pipelineId);
    const status = live.status;
    if (st.hooks.count > 0) finishedPipelineHooks(fx, log, w.base, pl, live);
    const project = tget(st.projects, pl.project_id);
    if (!project || (status !== 'success' && status !== 'failed')) continue;
    const s: Scope = { fx, st, log, base: w.base };
    const base = projectUrl(s, project);
    notify(
      s,
      project,
      'pipeline',
      status,
      actor(s, w.userId),
      {
        kind: 'pipeline',
        id: pl.id,
        url: `${base}/-/pipelines/${pl.id}`,
        status,
        ref: pl.ref,
        refUrl: pl.tag ? `${base}/-/tags/${pl.ref}` : `${base}/-/commits/${pl.ref}`,
        tag: pl.tag,
        duration: live.duration ?? 0,
      },
      (rec) =>
        notifyForRef(rec, project, pl.ref, pl.tag) &&
        (status === 'failed' || !truthy(rec.properties.notify_only_broken_pipelines)),
    );
  }
}

/** Queues a delivery for each active chat integration of the project that takes this event. */
function notify(
  s: Scope,
  project: ProjectRecord,
  eventName: string,
  action: string | null,
  user: Actor,
  chatEvent: ChatEvent,
  accept?: (rec: IntegrationRecord) => boolean,
): void {
  const flag: EventFlag = EVENT_FLAG[eventName]!;
  for (const rec of projectIntegrations(s.st, project.id, true)) {
    const spec: IntegrationSpec | undefined = INTEGRATIONS.get(rec.slug);
    if (!spec?.chat || !spec.events.includes(eventName) || !rec[flag]) continue;
    if (accept && !accept(rec)) continue;
    const webhook = rec.properties.webhook;
    if (typeof webhook !== 'string' || webhook === '') continue;
    const channels = String(rec.properties[`${eventName}_channel`] || rec.properties.channel || '')
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
    const username = typeof rec.properties.username === 'string' ? rec.properties.username : undefined;
    const bodies = chatPayloads(
      spec.chat,
      chatEvent,
      { name: fullName(s.st, project), url: projectUrl(s, project) },
      user,
      {
        ...(channels.length && { channel: channels }),
        ...(username && { username }),
      },
    );
    // The Slack notifier posts a form with the message as its `payload` field; the others post JSON.
    const type = spec.chat === 'slack' ? 'application/x-www-form-urlencoded' : 'application/json';
    for (const body of bodies) {
      const entry = {
        at: s.fx.clock.iso(),
        integration: rec.slug,
        integration_id: rec.id,
        project_id: project.id,
        project: project.path_with_namespace,
        event: eventName,
        action,
        url: webhook,
        request: { headers: { 'Content-Type': type, 'User-Agent': 'GitLab/13.12.0' }, body },
      };
      s.log.enqueue(entry, outboundPolicy(s.fx, WEB_HOOKS, s.base));
    }
  }
}
