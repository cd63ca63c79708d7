/**
 * Resource events of issues and merge requests (`resource_label_events`, `resource_milestone_events`,
 * `resource_state_events`, and on paid tiers issues' `resource_weight_events`): list and get, each
 * recorded by the write that made the change. Every route
 * needs a user first; the issuable is found as the notes API finds it; label and milestone events show
 * only where the viewer may read the label's or milestone's project or group.
 */
import { canReadGroup, canReadProject } from '../../core/access.js';
import { requireUser } from '../../core/auth.js';
import { state, type Ctx } from '../../core/context.js';
import { notFound, recordNotFound } from '../../core/errors.js';
import { paginate, paginationParams } from '../../core/pagination.js';
import { p } from '../../core/params.js';
import { parse, type ApiRouter } from '../../core/router.js';
import type { PlatformState, UserRecord } from '../../core/state.js';
import { mget, tget } from '../../core/table.js';
import { issuableRenderer, type IssuableRenderer } from './entities.js';
import { findNoteable } from './notes.js';
import type { ResourceEventRecord } from './store.js';

type Kind = 'label' | 'milestone' | 'state' | 'weight';
type EventableType = 'Issue' | 'MergeRequest' | 'Epic';
type Json = Record<string, unknown>;

const PATHS: Record<Kind, string> = {
  label: 'resource_label_events',
  milestone: 'resource_milestone_events',
  state: 'resource_state_events',
  weight: 'resource_weight_events',
};

const NAMES: Record<Kind, string> = {
  label: 'ResourceLabelEvent',
  milestone: 'ResourceMilestoneEvent',
  state: 'ResourceStateEvent',
  weight: 'ResourceWeightEvent',
};

/** Whether the viewer may read the project or group owning a label or milestone (a deleted one: yes). */
function ownerReadable(
  st: PlatformState,
  user: UserRecord | null,
  owner: { project_id: number | null; group_id: number | null } | undefined,
): boolean {
  if (!owner) return true;
  if (owner.project_id !== null) {
    const pr = tget(st.projects, owner.project_id);
    return !!pr && canReadProject(st, user, pr);
  }
  const g = owner.group_id === null ? undefined : tget(st.groups, owner.group_id);
  return !!g && canReadGroup(st, user, g);
}

function visible(st: PlatformState, user: UserRecord | null, e: ResourceEventRecord): boolean {
  if (e.kind === 'label') return ownerReadable(st, user, tget(st.issuables.labels, e.label_id ?? 0));
  if (e.kind === 'milestone')
    return ownerReadable(st, user, tget(st.issuables.milestones, e.milestone_id ?? 0));
  return true;
}

/** `Entities::ResourceLabelEvent` / `ResourceMilestoneEvent` / `ResourceStateEvent`. */
function entity(r: IssuableRenderer, e: ResourceEventRecord): Json {
  // `EE::API::Entities::ResourceWeightEvent`: the issue's id instead of a resource type and id.
  if (e.kind === 'weight')
    return {
      id: e.id,
      user: r.user(e.user_id),
      created_at: e.created_at,
      issue_id: e.target_id,
      weight: e.weight,
    };
  const out: Json = {
    id: e.id,
    user: r.user(e.user_id),
    created_at: e.created_at,
    resource_type: e.target_type,
    resource_id: e.target_id,
  };
  if (e.kind === 'label') {
    const l = tget(r.st.issuables.labels, e.label_id ?? 0);
    out.label = l ? r.label(l) : null;
    out.action = e.action;
  } else if (e.kind === 'milestone') {
    out.milestone = r.milestone(tget(r.st.issuables.milestones, e.milestone_id ?? 0));
    out.action = e.action;
    out.state = e.issuable_state ?? null;
  } else out.state = e.state;
  return out;
}

function eventsOf(c: Ctx, type: EventableType, kind: Kind, rawId: number): ResourceEventRecord[] {
  const n = findNoteable(c, type, rawId);
  const st = state(c);
  return mget(st.issuables.idx.byTarget, `e${type}:${n.id}`)
    .map((id) => tget(st.issuables.events, id)!)
    .filter((e) => e.kind === kind);
}

function list(type: EventableType, kind: Kind) {
  return (c: Ctx): Response => {
    requireUser(c);
    const prm = parse(c, { eventable_id: p.int().required(), ...paginationParams });
    const st = state(c);
    const user = c.get('viewer').user;
    const events = eventsOf(c, type, kind, prm.eventable_id).filter((e) => visible(st, user, e));
    const r = issuableRenderer(c);
    return paginate(c, events, (e) => entity(r, e));
  };
}

function show(type: EventableType, kind: Kind) {
  return (c: Ctx): Response => {
    requireUser(c);
    const prm = parse(c, { event_id: p.str().required(), eventable_id: p.int().required() });
    const e = eventsOf(c, type, kind, prm.eventable_id).find((x) => String(x.id) === prm.event_id);
    if (!e) throw recordNotFound('no such event of this issuable');
    if (!visible(state(c), c.get('viewer').user, e)) throw notFound(NAMES[kind]);
    return c.json(entity(issuableRenderer(c), e));
  };
}

export function resourceEventsRoutes(r: ApiRouter): void {
  for (const [type, plural] of [
    ['Issue', 'issues'],
    ['MergeRequest', 'merge_requests'],
  ] as const)
    for (const kind of ['label', 'milestone', 'state'] as const) {
      const base = `/projects/:id/${plural}/:eventable_id/${PATHS[kind]}`;
      r.get(base, list(type, kind));
      r.get(`${base}/:event_id`, show(type, kind));
    }
  // 13.12 has these in EE only (`ee/lib/api/resource_weight_events.rb`), as issue weights are.
  const weights = `/projects/:id/issues/:eventable_id/${PATHS.weight}`;
  r.get(weights, { tier: 'premium' }, list('Issue', 'weight'));
  r.get(`${weights}/:event_id`, { tier: 'premium' }, show('Issue', 'weight'));
  // EE's `resource_label_events.rb` adds epics (by global id, as their notes): label events only.
  const epicLabels = `/groups/:id/epics/:eventable_id/${PATHS.label}`;
  r.get(epicLabels, { tier: 'premium' }, list('Epic', 'label'));
  r.get(`${epicLabels}/:event_id`, { tier: 'premium' }, show('Epic', 'label'));
}
