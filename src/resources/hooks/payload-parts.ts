/**
 * The parts every webhook payload shares (`Gitlab::HookData::*`, the project, repository, user and label
 * hashes), and Ruby's time text as hook receivers see it.
 */
import { VISIBILITY_LEVEL } from '../../core/access.js';
import type { PlatformState, ProjectRecord, UserRecord } from '../../core/state.js';
import { tget } from '../../core/table.js';

export type Json = Record<string, unknown>;

/** `Time#to_s` of a UTC time. */
export const rubyTime = (iso: string | null | undefined): string | null =>
  iso ? `${new Date(iso).toISOString().slice(0, 19).replace('T', ' ')} UTC` : null;

export interface Urls {
  base: string;
  host: string;
}

export const urlsOf = (base: string): Urls => ({ base, host: new URL(base).hostname });

const absolute = (u: Urls, path: string | null | undefined) =>
  path ? (path.startsWith('/') ? u.base + path : path) : null;

export function namespaceName(st: PlatformState, p: ProjectRecord): string {
  if (p.namespace_kind === 'group') return tget(st.groups, p.namespace_id)?.name ?? '';
  return p.owner_id === null ? '' : (tget(st.users, p.owner_id)?.name ?? '');
}

/** `Project#hook_attrs`, with the backward-compatible URL keys. */
export function projectAttrs(st: PlatformState, u: Urls, p: ProjectRecord): Json {
  const web = `${u.base}/${p.path_with_namespace}`;
  const ssh = `git@${u.host}:${p.path_with_namespace}.git`;
  const http = `${web}.git`;
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    web_url: web,
    avatar_url: absolute(u, p.avatar_url as string | null | undefined),
    git_ssh_url: ssh,
    git_http_url: http,
    namespace: namespaceName(st, p),
    visibility_level: VISIBILITY_LEVEL[p.visibility],
    path_with_namespace: p.path_with_namespace,
    default_branch: p.default_branch,
    ci_config_path: (p.ci_config_path as string | null | undefined) ?? null,
    homepage: web,
    url: ssh,
    ssh_url: ssh,
    http_url: http,
  };
}

/** The `repository` part: a slice of the project's hook attributes. */
export function repositoryAttrs(st: PlatformState, u: Urls, p: ProjectRecord, full: boolean): Json {
  const a = projectAttrs(st, u, p);
  const out: Json = { name: a.name, url: a.url, description: a.description, homepage: a.homepage };
  if (full)
    Object.assign(out, {
      git_http_url: a.git_http_url,
      git_ssh_url: a.git_ssh_url,
      visibility_level: a.visibility_level,
    });
  return out;
}

/** `User#hook_attrs`. */
export function userAttrs(u: Urls, user: UserRecord | undefined): Json {
  return {
    name: user?.name ?? 'Ghost User',
    username: user?.username ?? 'ghost',
    avatar_url: absolute(u, user?.avatar_url),
    email: user?.email ?? '',
  };
}

export const shortUser = (u: Urls, user: UserRecord | undefined) => {
  const { name, username, avatar_url } = userAttrs(u, user);
  return { name, username, avatar_url };
};

/** `Label#hook_attrs`. */
export function labelsAttrs(st: PlatformState, ids: readonly number[]): Json[] {
  return ids.flatMap((id) => {
    const l = tget(st.issuables.labels, id);
    if (!l) return [];
    return [
      {
        id: l.id,
        title: l.title,
        color: l.color,
        project_id: l.project_id,
        created_at: rubyTime(l.created_at),
        updated_at: rubyTime((l as { updated_at?: string }).updated_at ?? l.created_at),
        template: false,
        description: l.description,
        type: l.project_id === null ? 'GroupLabel' : 'ProjectLabel',
        group_id: l.group_id,
      },
    ];
  });
}

export function userName(st: PlatformState, id: number | null) {
  const user = id === null ? undefined : tget(st.users, id);
  return { name: user?.name ?? 'Ghost User', email: user?.email ?? '' };
}
