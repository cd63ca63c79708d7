/**
 * Scenario files' `deploy_keys` of a project: the same key text in two projects is one key, enabled in
 * both (the first entry names it).
 */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioBuild, ScenarioOut } from '../../core/area.js';
import { isoOf, isoTime } from '../../core/fields.js';
import type { PlatformState } from '../../core/state.js';
import { iget, tget, tvalues } from '../../core/table.js';
import { createDeployKey, enableKey, parseKey } from './model.js';

const deployKeySchema = z.strictObject({
  title: z.string().max(255),
  key: z.string().max(5000).describe('an SSH public key'),
  can_push: z.boolean().default(false),
  created_at: isoTime.optional(),
});

export const deployKeyProjectFields = {
  deploy_keys: z.array(deployKeySchema).max(1000).optional().describe('deploy keys enabled in the project'),
};

export interface DeployKeyProject {
  deploy_keys?: z.output<typeof deployKeySchema>[];
}

/** The key model's validations of each listed key (a key listed again, here or elsewhere, is reused). */
export function deployKeyProblems(p: DeployKeyProject, at: string): string[] {
  const problems: string[] = [];
  (p.deploy_keys ?? []).forEach((k, j) => {
    const where = `${at}.deploy_keys[${j}]`;
    if (k.title.trim() === '') problems.push(`${where}.title: can't be blank`);
    if (parseKey(k.key).fingerprint === null) problems.push(`${where}.fingerprint: cannot be generated`);
  });
  return problems;
}

export function buildDeployKeys(
  st: Draft<PlatformState>,
  projectId: number,
  p: DeployKeyProject,
  b: ScenarioBuild,
): void {
  const project = tget(st.projects, projectId)!;
  for (const k of p.deploy_keys ?? []) {
    const at = isoOf(k.created_at) ?? b.now;
    const parsed = parseKey(k.key);
    const keyId =
      iget(st.deployKeys.idx.fingerprints, parsed.fingerprint!) ??
      createDeployKey(
        st,
        { title: k.title, key: parsed.key, fingerprint: parsed.fingerprint! },
        project.creator_id || null,
        at,
      );
    enableKey(st, projectId, keyId, k.can_push, at);
  }
}

export function exportDeployKeys(st: PlatformState, out: ScenarioOut): void {
  for (const l of tvalues(st.deployKeys.links).sort((a, b) => a.id - b.id)) {
    const e = out.project(l.project_id);
    const k = tget(st.deployKeys.keys, l.deploy_key_id);
    if (!e || !k) continue;
    const entry: Record<string, unknown> = { title: k.title, key: k.key };
    if (l.can_push) entry.can_push = true;
    entry.created_at = l.created_at;
    ((e.deploy_keys ??= []) as unknown[]).push(entry);
  }
}
