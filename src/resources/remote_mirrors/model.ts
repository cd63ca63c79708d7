/** Remote mirror rules: `RemoteMirror`'s URL validation and masking, and the writes. */
import type { Draft } from 'immer';
import { nextId, type PlatformState } from '../../core/state.js';
import type { Project } from '../projects/model.js';
import { madd, mget, mremove, tdelete, tget, tset, tvalues } from '../../core/table.js';
import type { RemoteMirrorRecord } from './store.js';
import { validateLiteralUrl } from '../../core/url-blocker.js';

type S = Draft<PlatformState>;

const SCHEMES = ['ssh', 'git', 'http', 'https'];

export const MIRROR_URL = { schemes: SCHEMES, enforceUser: true } as const;

/**
 * `validates :url, presence: true, public_url: { schemes: %w(ssh git http https), enforce_user: true }`
 * for a scenario's mirror (loaded synchronously, before any setting applies): literal local addresses
 * are refused, names not resolved.
 */
export function literalUrlProblem(url: string): string | null {
  if (url.trim() === '') return "can't be blank";
  const r = validateLiteralUrl(url, {
    ...MIRROR_URL,
    allowLocal: false,
    dnsRebindProtection: false,
    allowlist: [],
  });
  return r.ok ? null : `is blocked: ${r.message}`;
}

/** `url_inside_fork_network`: the mirror of a forked project stays in its fork network. */
export function forkNetworkProblem(
  url: string,
  forkNetwork: readonly string[] | null,
  host: string,
): string | null {
  if (!forkNetwork) return null;
  const u = new URL(url);
  // `Project.find_by_url`: this instance's host and a project's path, `.git` or not.
  const path = decodeURIComponent(u.pathname)
    .replace(/^\//, '')
    .replace(/\.git$/, '')
    .toLowerCase();
  if (u.host.toLowerCase() !== host.toLowerCase() || !forkNetwork.includes(path))
    return 'URL must be inside the fork network';
  return null;
}

/** `SafeUrl#safe_url(allowed_usernames: %w[git])`: the password and any user but `git` masked. */
export function safeUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  if (u.password) u.password = '*****';
  if (u.username && u.username !== 'git') u.username = '*****';
  return decodeURI(u.toString());
}

/**
 * The paths of the project's fork network (its root and every fork below it), or null when the project
 * has never been forked nor is a fork.
 */
export function forkNetwork(st: PlatformState, project: Project): string[] | null {
  if (project.forked_from_project_id === null && project.forks_count === 0) return null;
  let root = project;
  while (root.forked_from_project_id !== null) {
    const parent = tget(st.projects, root.forked_from_project_id) as Project | undefined;
    if (!parent) break;
    root = parent;
  }
  // Forks point at their parent only: walk down from the root, a generation at a time.
  const members = new Set<number>([root.id]);
  const all = tvalues(st.projects) as Project[];
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all)
      if (p.forked_from_project_id !== null && members.has(p.forked_from_project_id) && !members.has(p.id)) {
        members.add(p.id);
        grew = true;
      }
  }
  return [...members].map((id) => tget(st.projects, id)!.path_with_namespace.toLowerCase());
}

export function projectMirrors(st: PlatformState, projectId: number): RemoteMirrorRecord[] {
  return mget(st.remoteMirrors.idx.byProject, `p${projectId}`)
    .sort((a, b) => a - b)
    .map((id) => tget(st.remoteMirrors.records, id)!);
}

export interface MirrorFields {
  url: string;
  enabled?: boolean;
  only_protected_branches?: boolean;
  keep_divergent_refs?: boolean | null;
}

export function createMirror(st: S, projectId: number, f: MirrorFields, now: string): number {
  const id = nextId(st, 'remote_mirrors');
  tset<RemoteMirrorRecord>(st.remoteMirrors.records, id, {
    id,
    project_id: projectId,
    url: f.url,
    enabled: f.enabled ?? false,
    only_protected_branches: f.only_protected_branches ?? false,
    keep_divergent_refs: f.keep_divergent_refs ?? null,
    update_status: 'none',
    last_update_at: null,
    last_update_started_at: null,
    last_successful_update_at: null,
    last_error: null,
    created_at: now,
    updated_at: now,
  });
  madd(st.remoteMirrors.idx.byProject, `p${projectId}`, id);
  return id;
}

export function updateMirror(st: S, id: number, f: Partial<Omit<MirrorFields, 'url'>>, now: string): void {
  const m = tget(st.remoteMirrors.records, id)!;
  if (f.enabled !== undefined) m.enabled = f.enabled;
  if (f.only_protected_branches !== undefined) m.only_protected_branches = f.only_protected_branches;
  if (f.keep_divergent_refs !== undefined) m.keep_divergent_refs = f.keep_divergent_refs;
  m.updated_at = now;
}

export function deleteProjectMirrors(st: S, projectId: number): void {
  for (const id of mget(st.remoteMirrors.idx.byProject, `p${projectId}`)) {
    mremove(st.remoteMirrors.idx.byProject, `p${projectId}`, id);
    tdelete(st.remoteMirrors.records, id);
  }
}
