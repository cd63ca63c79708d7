/** Remote mirror rules: `RemoteMirror`'s URL validation and masking, and the writes. */
import type { Draft } from 'immer';
import { nextId, type PlatformState } from '../../core/state.js';
import { madd, mget, mremove, tdelete, tget, tset } from '../../core/table.js';
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
