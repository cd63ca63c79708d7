/**
 * `Projects::TransferService`: a project moves to another namespace and keeps its id. Everything the
 * platform keys by path follows from the record (`path_with_namespace` and the path index; URLs, the
 * registry image path and the namespace shown are rendered from them). The old path is left free: the
 * API finds projects by path without following redirects (`find_by_full_path` without
 * `follow_redirects` in 13.12), so it answers 404 there.
 */
import type { Draft } from 'immer';
import { ACCESS, groupAccess, VISIBILITY_LEVEL } from '../../core/access.js';
import type { PlatformState, UserRecord } from '../../core/state.js';
import { indexProjectName, unindexProjectName } from '../../core/project-names.js';
import { idelete, iset, madd, mget, mremove, tget } from '../../core/table.js';
import { availableLabels, createLabel, createMilestone } from '../issuables/model.js';
import { chunkIds } from '../issuables/store.js';
import { namespaceKey } from '../projects/model.js';
import type { Project } from '../projects/model.js';
import {
  canCreateIn,
  namespacePath,
  projectsLimitMessage,
  type NamespaceRef,
} from '../projects/validation.js';

type S = Draft<PlatformState>;

/** The service's refusals, in its order; null when the transfer may go ahead. */
export function transferError(
  st: PlatformState,
  user: UserRecord,
  project: Project,
  ns: NamespaceRef,
  ownsProject: boolean,
): string | null {
  const nsId = ns.kind === 'group' ? ns.group.id : ns.user.namespace_id;
  if (!ownsProject || nsId === project.namespace_id || !canTransferInto(st, user, ns))
    return 'Transfer failed, please contact an admin.';
  const siblings = mget(
    st.idx.projectsByNamespace,
    ns.kind === 'group' ? `group:${ns.group.id}` : `user:${ns.user.id}`,
  );
  for (const id of siblings) {
    const s = tget(st.projects, id);
    if (s && (s.path === project.path || s.name === project.name))
      return 'Project with same name or path in target namespace already exists';
  }
  return null;
}

/**
 * `transfer_projects` on the namespace: a group's maintainers who may create projects there; the owner
 * of a personal namespace (or an admin) who may still create personal projects.
 */
function canTransferInto(st: PlatformState, user: UserRecord, ns: NamespaceRef): boolean {
  if (ns.kind === 'user')
    return (user.admin || ns.user.id === user.id) && projectsLimitMessage(st, user) === null;
  return user.admin || (groupAccess(st, user, ns.group) >= ACCESS.MAINTAINER && canCreateIn(st, user, ns));
}

/** The ids of a group and its ancestors, nearest first. */
function ancestry(st: PlatformState, groupId: number): number[] {
  const out: number[] = [];
  for (
    let g = tget(st.groups, groupId);
    g;
    g = g.parent_id === null ? undefined : tget(st.groups, g.parent_id)
  )
    out.push(g.id);
  return out;
}

/** Moves the project into `ns` (the caller has checked `transferError`). */
export function transferProject(st: S, projectId: number, ns: NamespaceRef, now: string): void {
  const rec = tget(st.projects, projectId) as Draft<Project>;
  const oldGroupId = rec.namespace_kind === 'group' ? rec.namespace_id : null;
  mremove(st.idx.projectsByNamespace, namespaceKey(rec), projectId);
  unindexProjectName(st.idx.projectNames, rec);
  idelete(st.idx.projects, rec.path_with_namespace.toLowerCase());
  if (ns.kind === 'group') {
    rec.namespace_kind = 'group';
    rec.namespace_id = ns.group.id;
    rec.owner_id = null;
    // `visibility_level_allowed_by_group?`: a project never stays more visible than its group.
    if (VISIBILITY_LEVEL[rec.visibility] > VISIBILITY_LEVEL[ns.group.visibility])
      rec.visibility = ns.group.visibility;
    if (
      (ns.group as { shared_runners_setting?: string }).shared_runners_setting ===
      'disabled_and_unoverridable'
    )
      rec.shared_runners_enabled = false;
  } else {
    rec.namespace_kind = 'user';
    rec.namespace_id = ns.user.namespace_id;
    rec.owner_id = ns.user.id;
  }
  rec.path_with_namespace = `${namespacePath(ns)}/${rec.path}`;
  iset(st.idx.projects, rec.path_with_namespace.toLowerCase(), projectId);
  madd(st.idx.projectsByNamespace, namespaceKey(rec), projectId);
  indexProjectName(st.idx.projectNames, rec);
  rec.updated_at = now;
  if (oldGroupId !== null) transferGroupResources(st, rec as Project, oldGroupId, now);
}

/**
 * `Labels::TransferService` and `Milestones::TransferService`: labels of the old group (and its
 * ancestors) and milestones of the old group on the project's issues and merge requests are swapped
 * for ones of the same title the project can use in its new place, made as project records when none
 * exists.
 */
function transferGroupResources(st: S, project: Project, oldGroupId: number, now: string): void {
  const ix = st.issuables.idx;
  const meta = tget(st.issuables.projectMeta, project.id);
  const records = [
    ...chunkIds(ix.byProject, 'i', project.id, meta?.issue_iid ?? 0).map((id) =>
      tget(st.issuables.issues, id)!,
    ),
    ...chunkIds(ix.byProject, 'm', project.id, meta?.mr_iid ?? 0).map((id) =>
      tget(st.issuables.mergeRequests, id)!,
    ),
  ];
  if (records.length === 0) return;
  const oldGroups = new Set(ancestry(st, oldGroupId));
  const labelMap = new Map<number, number>();
  const milestoneMap = new Map<number, number>();
  for (const r of records) {
    for (const id of r.label_ids) {
      const l = tget(st.issuables.labels, id);
      if (!l || l.group_id === null || !oldGroups.has(l.group_id) || labelMap.has(id)) continue;
      const found = availableLabels(st, project).find((x) => x.title === l.title);
      labelMap.set(
        id,
        found?.id ??
          createLabel(
            st,
            { project_id: project.id },
            { title: l.title, color: l.color, description: l.description },
            now,
          ),
      );
    }
    const m = r.milestone_id === null ? undefined : tget(st.issuables.milestones, r.milestone_id);
    if (m && m.group_id === oldGroupId && !milestoneMap.has(m.id)) {
      // `Milestones::FindOrCreateService`: the project's own, then its (new) group's own, by title.
      const keys = [
        `p${project.id}`,
        ...(project.namespace_kind === 'group' ? [`g${project.namespace_id}`] : []),
      ];
      let found: number | undefined;
      for (const k of keys)
        found ??= mget(ix.owned, k).find((mid) => tget(st.issuables.milestones, mid)!.title === m.title);
      milestoneMap.set(
        m.id,
        found ??
          createMilestone(
            st,
            { project_id: project.id },
            {
              title: m.title,
              description: m.description,
              start_date: m.start_date,
              due_date: m.due_date,
              state: m.state,
            },
            now,
          ),
      );
    }
  }
  for (const r of records) {
    if (r.label_ids.some((id) => labelMap.has(id)))
      r.label_ids = [...new Set(r.label_ids.map((id) => labelMap.get(id) ?? id))];
    if (r.milestone_id !== null && milestoneMap.has(r.milestone_id))
      r.milestone_id = milestoneMap.get(r.milestone_id)!;
  }
}
