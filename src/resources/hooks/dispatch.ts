/**
 * Webhook deliveries: each event goes to the hooks that take it (the project's hooks, on paid tiers
 * the hooks of its group and the group's ancestors, and the system hooks for pushes, tag pushes, merge
 * requests and the instance's own events), through the integrations' delivery log: asynchronous,
 * retried, visible at `/__fauxlab/deliveries`, never blocking the request that caused it.
 */
import type { Fx } from '../../core/context.js';
import type { PipelineRecord, PlatformState, ProjectRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';
import { livePipeline } from '../ci/model.js';
import type { DeliveryLog } from '../integrations/delivery.js';
import type { ProjectEvent } from '../integrations/kinds.js';
import type { IssueRecord, MergeRequestRecord } from '../issuables/store.js';
import { outboundPolicy } from '../settings/outbound.js';
import { branchMatches, hookSetting, hooksOf } from './model.js';
import { type Json, type Urls, labelsAttrs, rubyTime, urlsOf, userAttrs } from './payload-parts.js';
import { commitHookAttrs, pushPayload, wikiPagePayload } from './payloads.js';
import {
  deploymentPayload,
  jobPayload,
  pipelinePayload,
  releasePayload,
  type PipelineState,
} from './payloads-ci.js';
import { issuablePayload, issueAttrs, mergeRequestAttrs, notePayload } from './payloads-issuable.js';
import type { HookFlag, HookRecord } from './store.js';
import type { JobStep } from './transitions.js';
import { LiveDeployments } from '../deployments/model.js';

interface Scope {
  fx: Fx;
  st: PlatformState;
  log: DeliveryLog;
  u: Urls;
}

/** `WebHookService.hook_to_event`: `push_hooks` -> `Push Hook`. */
const eventHeader = (hookName: string) =>
  hookName
    .replace(/_hooks$/, '')
    .split('_')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(' ') + ' Hook';

/** The group hooks a project's events reach: its group's and every ancestor's (a licensed feature). */
function groupHooks(st: PlatformState, p: ProjectRecord): HookRecord[] {
  if (st.tier === 'free' || p.namespace_kind !== 'group') return [];
  const out: HookRecord[] = [];
  const seen = new Set<number>();
  for (
    let g = tget(st.groups, p.namespace_id);
    g && !seen.has(g.id);
    g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id)
  ) {
    seen.add(g.id);
    out.push(...hooksOf(st, `g${g.id}`));
  }
  return out;
}

/** The project's and its groups' hooks with `flag` on. */
function projectHooks(st: PlatformState, p: ProjectRecord, flag: HookFlag): HookRecord[] {
  return [...hooksOf(st, `p${p.id}`), ...groupHooks(st, p)].filter((h) => h[flag] === true);
}

export function hooksWantPipeline(st: PlatformState, projectId: number): boolean {
  const p = tget(st.projects, projectId);
  if (!p || st.hooks.count === 0) return false;
  return (['pipeline_events', 'job_events', 'deployment_events'] as const).some(
    (flag) => projectHooks(st, p, flag).length > 0,
  );
}

function send(
  s: Scope,
  hook: HookRecord,
  hookName: string,
  event: string,
  action: string | null,
  project: ProjectRecord | null,
  body: Json,
): void {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': 'GitLab/13.12.0',
    'X-Gitlab-Event': eventHeader(hook.kind === 'system' ? 'system_hooks' : hookName),
  };
  // `Gitlab::Utils.remove_line_breaks`: a token never breaks the header.
  if (hook.token) headers['X-Gitlab-Token'] = hook.token.replace(/\r?\n/g, '');
  const entry = {
    at: s.fx.clock.iso(),
    integration: `${hook.kind}_hook`,
    integration_id: hook.id,
    project_id: project?.id ?? null,
    project: project?.path_with_namespace ?? null,
    event,
    action,
    url: hook.url,
    request: { headers, body },
  };
  // `WebHookService#request_options`: `allow_local_requests: hook.allow_local_requests?`.
  s.log.enqueue(entry, outboundPolicy(s.fx, hookSetting(hook.kind), s.u.base));
}

export function dispatchHooks(
  fx: Fx,
  log: DeliveryLog,
  base: string,
  actorId: number | null,
  ev: ProjectEvent,
): void {
  const s: Scope = { fx, st: fx.store.state, log, u: urlsOf(base) };
  switch (ev.kind) {
    case 'issue':
      return issueHooks(s, ev.id, ev.prev, actorId);
    case 'merge_request':
      return mergeRequestHooks(s, ev.id, ev.prev, actorId);
    case 'note':
      return noteHooks(s, ev.id);
    case 'pipeline':
      return pipelineHooks(s, ev.id);
    case 'deployment':
      return deploymentHooks(s, ev.id);
    case 'release':
      return releaseHooks(s, ev.id, ev.action);
    case 'push':
      return pushHooks(s, ev);
    case 'wiki_page':
      return wikiPageHooks(s, ev, actorId);
    case 'group_hook':
      return groupEventHooks(s, ev);
    case 'system':
      for (const h of hooksOf(s.st, 'system'))
        if (ev.only === undefined || ev.only === h.id)
          send(s, h, 'system_hooks', ev.name, null, null, ev.data);
  }
}

type Changes = Record<string, { previous: unknown; current: unknown }>;

/** `changes` of an issuable payload: the attributes the write changed (on create, those it set). */
function issuableChanges<T extends IssueRecord | MergeRequestRecord>(
  s: Scope,
  prev: T | undefined,
  cur: T,
  fields: readonly (keyof T & string)[],
): Changes {
  const out: Changes = {};
  const timeField = (k: string) => k.endsWith('_at');
  for (const k of fields) {
    const before = prev ? prev[k] : null;
    const after = cur[k];
    if (JSON.stringify(before) === JSON.stringify(after)) continue;
    if (!prev && (after === null || after === undefined || (Array.isArray(after) && after.length === 0)))
      continue;
    if (k === 'label_ids') {
      const labels = (ids: unknown) => labelsAttrs(s.st, (ids as number[] | undefined) ?? []);
      out.labels = { previous: labels(before), current: labels(after) };
    } else if (k === 'assignee_ids') {
      const users = (ids: unknown) =>
        ((ids as number[] | undefined) ?? []).map((id) => userAttrs(s.u, tget(s.st.users, id)));
      out.assignees = { previous: users(before), current: users(after) };
    } else if (k === 'state') {
      const id = (v: unknown) =>
        v === null
          ? null
          : ({ opened: 1, closed: 2, merged: 3, locked: 4 } as Record<string, number>)[String(v)];
      out.state_id = { previous: id(before), current: id(after) };
    } else
      out[k] = timeField(k)
        ? { previous: rubyTime(before as string | null), current: rubyTime(after as string | null) }
        : { previous: before ?? null, current: after ?? null };
  }
  return out;
}

const ISSUE_FIELDS = [
  'author_id',
  'created_at',
  'description',
  'id',
  'iid',
  'project_id',
  'title',
  'updated_at',
  'state',
  'confidential',
  'closed_at',
  'due_date',
  'milestone_id',
  'discussion_locked',
  'time_estimate',
  'label_ids',
  'assignee_ids',
] as const;

const MR_FIELDS = [
  'author_id',
  'created_at',
  'description',
  'id',
  'iid',
  'source_branch',
  'source_project_id',
  'target_branch',
  'target_project_id',
  'title',
  'updated_at',
  'state',
  'merge_status',
  // `MergeRequestBuilder.safe_hook_attributes` has it: a push option or the API setting MWPS.
  'merge_when_pipeline_succeeds',
  'milestone_id',
  'time_estimate',
  'label_ids',
  'assignee_ids',
] as const;

/** The hook's `action`: `open` for a new record, else what the state change was, or `update`. */
function issuableAction(before: string | undefined, after: string): string {
  if (before === undefined) return 'open';
  if (before === after) return 'update';
  return after === 'merged' ? 'merge' : after === 'closed' ? 'close' : 'reopen';
}

function issueHooks(s: Scope, id: number, prev: IssueRecord | undefined, actorId: number | null): void {
  const issue = tget(s.st.issuables.issues, id);
  const project = issue && tget(s.st.projects, issue.project_id);
  if (!issue || !project) return;
  const flag: HookFlag = issue.confidential ? 'confidential_issues_events' : 'issues_events';
  const hooks = projectHooks(s.st, project, flag);
  if (!hooks.length) return;
  const action = issuableAction(prev?.state, issue.state);
  const attrs = { ...issueAttrs(s.st, s.u, project, issue), action };
  const changes = issuableChanges(s, prev, issue, ISSUE_FIELDS as unknown as (keyof IssueRecord & string)[]);
  const body = issuablePayload(
    s.st,
    s.u,
    project,
    'issue',
    attrs,
    actorId ?? issue.author_id,
    issue.assignee_ids,
    changes,
  );
  if (issue.confidential) body.event_type = 'confidential_issue';
  const name = issue.confidential ? 'confidential_issue_hooks' : 'issue_hooks';
  for (const h of hooks)
    send(s, h, name, issue.confidential ? 'confidential_issue' : 'issue', action, project, body);
}

function mergeRequestHooks(
  s: Scope,
  id: number,
  prev: MergeRequestRecord | undefined,
  actorId: number | null,
): void {
  const mr = tget(s.st.issuables.mergeRequests, id);
  const project = mr && tget(s.st.projects, mr.project_id);
  if (!mr || !project) return;
  const hooks = [
    ...projectHooks(s.st, project, 'merge_requests_events'),
    ...hooksOf(s.st, 'system').filter((h) => h.merge_requests_events === true),
  ];
  if (!hooks.length) return;
  const action = issuableAction(prev?.state, mr.state);
  const attrs = { ...mergeRequestAttrs(s.st, s.u, project, mr), action };
  const cur = { ...mr, target_project_id: mr.project_id } as MergeRequestRecord;
  const before = prev && ({ ...prev, target_project_id: prev.project_id } as MergeRequestRecord);
  const changes = issuableChanges(
    s,
    before,
    cur,
    MR_FIELDS as unknown as (keyof MergeRequestRecord & string)[],
  );
  const body = issuablePayload(
    s.st,
    s.u,
    project,
    'merge_request',
    attrs,
    actorId ?? mr.author_id,
    mr.assignee_ids,
    changes,
  );
  for (const h of hooks) send(s, h, 'merge_request_hooks', 'merge_request', action, project, body);
}

function noteHooks(s: Scope, id: number): void {
  const note = tget(s.st.issuables.notes, id);
  if (!note || note.system || note.project_id === null) return;
  const project = tget(s.st.projects, note.project_id);
  if (!project) return;
  const base = `${s.u.base}/${project.path_with_namespace}`;
  let confidential = note.confidential;
  let target: { key: string; json: Json; url: string } | undefined;
  if (note.noteable_type === 'Issue') {
    const i = tget(s.st.issuables.issues, note.noteable_id);
    if (!i) return;
    confidential ||= i.confidential;
    target = {
      key: 'issue',
      json: issueAttrs(s.st, s.u, project, i),
      url: `${base}/-/issues/${i.iid}#note_${note.id}`,
    };
  } else if (note.noteable_type === 'MergeRequest') {
    const m = tget(s.st.issuables.mergeRequests, note.noteable_id);
    if (!m) return;
    target = {
      key: 'merge_request',
      json: mergeRequestAttrs(s.st, s.u, project, m),
      url: `${base}/-/merge_requests/${m.iid}#note_${note.id}`,
    };
  } else if (note.noteable_type === 'Commit' && note.commit_id !== undefined) {
    target = {
      key: 'commit',
      json: commitHookAttrs(s.st, s.u, project, note.commit_id, false),
      url: `${base}/-/commit/${note.commit_id}#note_${note.id}`,
    };
  } else if (note.noteable_type === 'Snippet') {
    const sn = tget(s.st.issuables.snippets, note.noteable_id) as
      | {
          id: number;
          title: string;
          file_name?: string;
          author_id?: number;
          created_at?: string;
          updated_at?: string;
          visibility?: string;
        }
      | undefined;
    if (!sn) return;
    target = {
      key: 'snippet',
      json: {
        id: sn.id,
        title: sn.title,
        content: '',
        author_id: sn.author_id ?? null,
        project_id: project.id,
        created_at: rubyTime(sn.created_at),
        updated_at: rubyTime(sn.updated_at),
        file_name: sn.file_name ?? '',
        type: 'ProjectSnippet',
        visibility_level: 0,
      },
      url: `${base}/-/snippets/${sn.id}#note_${note.id}`,
    };
  }
  if (!target) return;
  const hooks = projectHooks(s.st, project, confidential ? 'confidential_note_events' : 'note_events');
  if (!hooks.length) return;
  const body = notePayload(
    s.st,
    s.u,
    project,
    { ...note, confidential },
    target.json,
    target.key,
    target.url,
  );
  const name = confidential ? 'confidential_note_hooks' : 'note_hooks';
  for (const h of hooks)
    send(s, h, name, confidential ? 'confidential_note' : 'note', 'create', project, body);
}

function pushHooks(s: Scope, ev: Extract<ProjectEvent, { kind: 'push' }>): void {
  const project = tget(s.st.projects, ev.projectId);
  if (!project) return;
  const kind = ev.tag ? 'tag_push' : 'push';
  const flag: HookFlag = ev.tag ? 'tag_push_events' : 'push_events';
  const system = hooksOf(s.st, 'system');
  const hooks = [
    ...projectHooks(s.st, project, flag).filter(
      (h) => ev.tag || h.kind !== 'project' || branchMatches(h.push_events_branch_filter, ev.ref),
    ),
    ...system.filter((h) => h[flag] === true),
  ];
  const body = pushPayload(s.st, s.u, project, { ...ev, kind });
  for (const h of hooks) send(s, h, `${kind}_hooks`, kind, null, project, body);
  // `repository_update_events`: every push, as one change of the repository.
  const updates = system.filter((h) => h.repository_update_events === true);
  if (!updates.length) return;
  const ref = body.ref as string;
  const update: Json = {
    event_name: 'repository_update',
    user_id: body.user_id,
    user_name: body.user_name,
    user_email: body.user_email,
    user_avatar: body.user_avatar,
    project_id: project.id,
    project: body.project,
    changes: [{ before: ev.before, after: ev.after, ref }],
    refs: [ref],
  };
  for (const h of updates) send(s, h, 'system_hooks', 'repository_update', null, project, update);
}

/**
 * EE's `Group#execute_hooks` for member and subgroup events: the hooks of the group and its ancestors
 * with the scope's flag, on a licensed (paid) instance.
 */
function groupEventHooks(s: Scope, ev: Extract<ProjectEvent, { kind: 'group_hook' }>): void {
  if (s.st.tier === 'free') return;
  const flag: HookFlag = ev.scope === 'member_hooks' ? 'member_events' : 'subgroup_events';
  const seen = new Set<number>();
  for (
    let g = tget(s.st.groups, ev.groupId);
    g && !seen.has(g.id);
    g = g.parent_id === null ? undefined : tget(s.st.groups, g.parent_id)
  ) {
    seen.add(g.id);
    for (const h of hooksOf(s.st, `g${g.id}`))
      if (h[flag] === true) send(s, h, ev.scope, ev.name, null, null, { event_name: ev.name, ...ev.data });
  }
}

/** `wiki_page_hooks`: the project's hooks and its groups' with `wiki_page_events`. */
function wikiPageHooks(s: Scope, ev: Extract<ProjectEvent, { kind: 'wiki_page' }>, actorId: number | null) {
  const project = tget(s.st.projects, ev.projectId);
  if (!project) return;
  const hooks = projectHooks(s.st, project, 'wiki_page_events');
  if (!hooks.length) return;
  const user = actorId === null ? undefined : tget(s.st.users, actorId);
  const body = wikiPagePayload(s.st, s.u, project, user, ev.page, ev.action);
  for (const h of hooks) send(s, h, 'wiki_page_hooks', 'wiki_page', ev.action, project, body);
}

function pipelineHooks(s: Scope, id: number): void {
  const pl = tget(s.st.pipelines, id);
  const project = pl && tget(s.st.projects, pl.project_id);
  if (!pl || !project) return;
  const hooks = projectHooks(s.st, project, 'pipeline_events');
  if (!hooks.length) return;
  const live = livePipeline(pl, s.fx.clock.ms());
  const body = pipelinePayload(s.st, s.u, project, pl, live);
  for (const h of hooks) send(s, h, 'pipeline_hooks', 'pipeline', live.status, project, body);
}

/** The watcher saw a pipeline finish on the instance clock: its hooks hear the final status. */
export function finishedPipelineHooks(
  fx: Fx,
  log: DeliveryLog,
  base: string,
  pl: PipelineRecord,
  live: { status: string; finished_at: string | null; duration: number | null },
): void {
  const s: Scope = { fx, st: fx.store.state, log, u: urlsOf(base) };
  const project = tget(s.st.projects, pl.project_id);
  if (!project) return;
  const body = pipelinePayload(s.st, s.u, project, pl, live);
  for (const h of projectHooks(s.st, project, 'pipeline_events'))
    send(s, h, 'pipeline_hooks', 'pipeline', live.status, project, body);
}

/** A deployment the API made or moved: the Deployment Hook of its status, unless it is only `created`. */
function deploymentHooks(s: Scope, id: number): void {
  const d = tget(s.st.deployments.records, id);
  const project = d && tget(s.st.projects, d.project_id);
  const env = d && tget(s.st.environments.records, d.environment_id);
  if (!d || !project || !env) return;
  const live = new LiveDeployments(s.st, s.fx.clock.ms()).of(d);
  if (live.status === 'created' || live.status === 'skipped') return;
  const hooks = projectHooks(s.st, project, 'deployment_events');
  if (!hooks.length) return;
  const body = deploymentPayload(
    s.st,
    s.u,
    project,
    { ...d, environment: env.name },
    live.status,
    live.updated_at,
  );
  for (const h of hooks) send(s, h, 'deployment_hooks', 'deployment', live.status, project, body);
}

/**
 * The watcher saw the pipeline's jobs move on the instance clock: a Job Hook for each change, and with
 * a deploying job's change its deployment's hook.
 */
export function jobStepHooks(
  fx: Fx,
  log: DeliveryLog,
  base: string,
  pl: PipelineRecord,
  pipeline: PipelineState,
  steps: readonly JobStep[],
): void {
  const s: Scope = { fx, st: fx.store.state, log, u: urlsOf(base) };
  const project = tget(s.st.projects, pl.project_id);
  if (!project || !steps.length) return;
  const jobHooks = projectHooks(s.st, project, 'job_events');
  const deployHooks = projectHooks(s.st, project, 'deployment_events');
  for (const step of steps) {
    if (jobHooks.length) {
      const body = jobPayload(s.st, s.u, project, pl, step.build, step.job, pipeline);
      for (const h of jobHooks) send(s, h, 'job_hooks', 'build', step.job.status, project, body);
    }
    const dep = step.deployment;
    const env = dep && tget(s.st.environments.records, dep.record.environment_id);
    if (!dep || !env || !deployHooks.length) continue;
    // `deployed_by`: the job's user (who played it), else the deployment's.
    const userId = step.build.user_id ?? dep.record.user_id;
    const body = deploymentPayload(
      s.st,
      s.u,
      project,
      { ...dep.record, user_id: userId, environment: env.name },
      dep.status,
      dep.at,
    );
    for (const h of deployHooks) send(s, h, 'deployment_hooks', 'deployment', dep.status, project, body);
  }
}

/** `Release#execute_hooks`: the Release Hook of a release made or edited. */
function releaseHooks(s: Scope, id: number, action: 'create' | 'update'): void {
  const r = tget(s.st.releases.records, id);
  const project = r && tget(s.st.projects, r.project_id);
  if (!r || !project) return;
  const hooks = projectHooks(s.st, project, 'releases_events');
  if (!hooks.length) return;
  const body = releasePayload(s.st, s.u, project, r, action);
  for (const h of hooks) send(s, h, 'release_hooks', 'release', action, project, body);
}
