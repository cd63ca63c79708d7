import { createFauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { apiPath, json, request } from '../helpers.js';
import { ciWorld } from '../ci/world.js';

export const NOW = '2021-03-01T12:00:00.000Z';

/**
 * The repository tests' world: the CI tests' users (one member of each role in the public group `acme`,
 * an outsider) and their group, with a private project `acme/app` (default branch `master`, never
 * written: its initial commit), a public `acme/site`, and a public project whose repository feature is
 * disabled.
 */
export const repoWorld: ScenarioFile = {
  now: NOW,
  users: ciWorld.users,
  groups: ciWorld.groups,
  projects: [
    { path: 'acme/app', visibility: 'private', creator: 'owner', created_at: '2021-01-01T00:00:00Z' },
    { path: 'acme/site', visibility: 'public', creator: 'owner' },
    { path: 'acme/closed', visibility: 'public', repository_access_level: 'disabled' },
  ],
};

export const world = () => createFauxlab({ scenario: repoWorld });
export type World = ReturnType<typeof world>;

export const APP = '/projects/acme%2Fapp';
export const SITE = '/projects/acme%2Fsite';

export async function call(fx: World, method: string, path: string, token?: string, body?: unknown) {
  const res = await request(fx, method, apiPath(path), { token, body });
  return { status: res.status, headers: res.headers, body: await json(res) };
}

/** Commits files to a branch through the commits API, returns the commit. */
export async function commitFiles(
  fx: World,
  files: Record<string, string>,
  o: { branch?: string; token?: string; message?: string; start_branch?: string; project?: string } = {},
) {
  const actions = Object.entries(files).map(([file_path, content]) => ({
    action: 'create',
    file_path,
    content,
  }));
  const res = await call(fx, 'POST', `${o.project ?? APP}/repository/commits`, o.token ?? 'owner', {
    branch: o.branch ?? 'master',
    commit_message: o.message ?? 'Add files',
    actions,
    ...(o.start_branch && { start_branch: o.start_branch }),
  });
  if (res.status !== 201) throw new Error(`commit failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
