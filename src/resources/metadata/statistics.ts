/**
 * `GET /application/statistics` (administrators): `Entities::ApplicationStatistics` of the counts
 * `API::Statistics` asks `Gitlab::Database::Count.approximate_counts` for. The platform estimates large
 * tables; fauxlab's counts are exact, which is what the platform gives for tables it counts outright.
 * Each count is a string with thousands separators (`number_with_delimiter`).
 */
import type { Ctx } from '../../core/context.js';
import { sendJson } from '../../core/respond.js';
import type { PlatformState } from '../../core/state.js';
import { tleaves } from '../../core/table.js';
import type { Project } from '../projects/model.js';

/** `ActionView::Helpers::NumberHelper#number_with_delimiter` with the default locale: `1,234,567`. */
export function withDelimiters(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

const forkCounts = new WeakMap<object, number>();

/**
 * `approximate_fork_count_with_delimiters`: fork network members less fork networks, that is the
 * projects that are forks (a network's root is its one member that is not). Counted per bucket and kept
 * while the bucket stands.
 */
function forkedProjects(st: PlatformState): number {
  let n = 0;
  for (const [, leaf] of tleaves(st.projects)) {
    let k = forkCounts.get(leaf);
    if (k === undefined) {
      k = 0;
      for (const p of leaf) if (p && (p as Project).forked_from_project_id !== null) k++;
      forkCounts.set(leaf, k);
    }
    n += k;
  }
  return n;
}

export function applicationStatistics(c: Ctx, activeUsers: (st: PlatformState) => number): Response {
  const st = c.get('fx').store.state;
  const i = st.issuables;
  return sendJson({
    forks: withDelimiters(forkedProjects(st)),
    issues: withDelimiters(i.issues.size),
    merge_requests: withDelimiters(i.mergeRequests.size),
    notes: withDelimiters(i.notes.size),
    // `Snippet`: personal and project snippets alike.
    snippets: withDelimiters(i.snippets.size),
    // `Key` is the table deploy keys share (single-table inheritance): both are counted.
    ssh_keys: withDelimiters(st.profile.keys.size + st.deployKeys.keys.size),
    // `Milestone`: project and group milestones.
    milestones: withDelimiters(i.milestones.size),
    users: withDelimiters(st.users.size),
    projects: withDelimiters(st.projects.size),
    groups: withDelimiters(st.groups.size),
    active_users: withDelimiters(activeUsers(st)),
  });
}
