/**
 * Per-project integrations (the platform's services): one record per project and slug, kept after a
 * `DELETE` (which only clears and deactivates it, as the platform does).
 */
import type { Draft } from 'immer';
import { nextId, type PlatformState } from '../../core/state.js';
import {
  emptyIndex,
  emptyTable,
  idelete,
  iget,
  iset,
  madd,
  mget,
  mremove,
  tdelete,
  tget,
  tset,
  type Index,
  type MultiIndex,
  type Table,
} from '../../core/table.js';

/** The event flags every integration record has (database columns with defaults). */
export type EventFlag =
  | 'commit_events'
  | 'push_events'
  | 'issues_events'
  | 'confidential_issues_events'
  | 'merge_requests_events'
  | 'tag_push_events'
  | 'note_events'
  | 'confidential_note_events'
  | 'pipeline_events'
  | 'wiki_page_events'
  | 'job_events';

export const EVENT_FLAGS: Readonly<Record<EventFlag, boolean>> = {
  commit_events: true,
  push_events: true,
  issues_events: true,
  confidential_issues_events: true,
  merge_requests_events: true,
  tag_push_events: true,
  note_events: true,
  confidential_note_events: true,
  pipeline_events: false,
  wiki_page_events: true,
  job_events: false,
};

export interface IntegrationRecord extends Record<EventFlag, boolean> {
  id: number;
  project_id: number;
  slug: string;
  active: boolean;
  comment_on_event_enabled: boolean;
  created_at: string;
  updated_at: string;
  /** Settings by field name, as given (strings, booleans, integers); cleared to null by a delete. */
  properties: Record<string, unknown>;
}

export interface IntegrationsState {
  records: Table<IntegrationRecord>;
  /** Active integrations on the instance: 0 makes event emission free. */
  active: number;
  idx: {
    /** `<project>:<slug>` -> id */
    bySlug: Index;
    /** `p<project>` -> ids; `a<project>` -> ids of the active ones */
    byProject: MultiIndex;
  };
}

export function emptyIntegrations(): IntegrationsState {
  return { records: emptyTable(), active: 0, idx: { bySlug: emptyIndex(), byProject: emptyIndex() } };
}

type S = Draft<PlatformState>;

export const integrationId = (st: PlatformState, projectId: number, slug: string) =>
  iget(st.integrations.idx.bySlug, `${projectId}:${slug}`);

/** The project's integrations (active only, or all), by id. */
export function projectIntegrations(
  st: PlatformState,
  projectId: number,
  activeOnly: boolean,
): IntegrationRecord[] {
  return mget(st.integrations.idx.byProject, `${activeOnly ? 'a' : 'p'}${projectId}`).map((id) =>
    tget(st.integrations.records, id)!,
  );
}

/** Creates the record, or returns the existing one's id (`find_or_initialize_integration`). */
export function ensureIntegration(st: S, projectId: number, slug: string, now: string): number {
  const existing = integrationId(st, projectId, slug);
  if (existing !== undefined) return existing;
  const id = nextId(st, 'integrations');
  const rec: IntegrationRecord = {
    id,
    project_id: projectId,
    slug,
    active: false,
    ...EVENT_FLAGS,
    comment_on_event_enabled: true,
    created_at: now,
    updated_at: now,
    properties: {},
  };
  tset(st.integrations.records, id, rec);
  iset(st.integrations.idx.bySlug, `${projectId}:${slug}`, id);
  madd(st.integrations.idx.byProject, `p${projectId}`, id);
  return id;
}

/** Turns an integration on or off, keeping the active index and count in step. */
export function setActive(st: S, id: number, active: boolean): void {
  const rec = tget(st.integrations.records, id)!;
  if (rec.active === active) return;
  rec.active = active;
  st.integrations.active += active ? 1 : -1;
  if (active) madd(st.integrations.idx.byProject, `a${rec.project_id}`, id);
  else mremove(st.integrations.idx.byProject, `a${rec.project_id}`, id);
}

/** Removes a project's integrations (`deleteProject` cascades through this). */
export function deleteProjectIntegrations(st: S, projectId: number): void {
  for (const id of mget(st.integrations.idx.byProject, `p${projectId}`)) {
    const rec = tget(st.integrations.records, id)!;
    if (rec.active) st.integrations.active--;
    idelete(st.integrations.idx.bySlug, `${projectId}:${rec.slug}`);
    tdelete(st.integrations.records, id);
  }
  idelete(st.integrations.idx.byProject, `p${projectId}`);
  idelete(st.integrations.idx.byProject, `a${projectId}`);
}

declare module '../../core/state.js' {
  interface AreaStates {
    integrations: IntegrationsState;
  }
}
