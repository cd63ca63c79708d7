/** Scenario files' `deploy_tokens` of projects and groups. */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioOut } from '../../core/area.js';
import type { PlatformState } from '../../core/state.js';
import { tvalues } from '../../core/table.js';
import { createDeployToken, deployTokenProblem, deployTokenUsername } from './model.js';
import { DEPLOY_TOKEN_SCOPES } from './store.js';

export const deployTokenScenario = z
  .strictObject({
    name: z.string().min(1),
    token: z.string().min(1).optional().describe('the secret clients send; or give token_digest'),
    token_digest: z
      .string()
      .regex(/^[0-9a-f]{64}$/, 'must be a SHA-256 digest (64 hex digits)')
      .optional()
      .describe('SHA-256 of the token; instead of token'),
    username: z.string().optional().describe('default gitlab+deploy-token-<id>'),
    scopes: z.array(z.enum(DEPLOY_TOKEN_SCOPES)).min(1),
    expires_at: z
      .string()
      .refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 time')
      .nullable()
      .default(null),
    revoked: z.boolean().default(false),
  })
  .refine((t) => !t.token !== !t.token_digest, { message: 'give token or token_digest (exactly one)' });

export type DeployTokenScenario = z.output<typeof deployTokenScenario>;

/** What the model would refuse, as `<at>.deploy_tokens[j]: message` lines. */
export function deployTokenScenarioProblems(
  list: readonly DeployTokenScenario[] | undefined,
  at: string,
): string[] {
  const problems: string[] = [];
  (list ?? []).forEach((t, j) => {
    const problem = deployTokenProblem(t);
    if (problem) problems.push(`${at}.deploy_tokens[${j}]: ${problem}`);
  });
  return problems;
}

export function buildDeployTokens(
  st: Draft<PlatformState>,
  owner: 'project' | 'group',
  ownerId: number,
  list: readonly DeployTokenScenario[] | undefined,
  now: string,
): void {
  for (const t of list ?? [])
    createDeployToken(
      st,
      {
        owner,
        owner_id: ownerId,
        name: t.name,
        username: t.username ?? null,
        scopes: DEPLOY_TOKEN_SCOPES.filter((s) => t.scopes.includes(s)),
        expires_at: t.expires_at === null ? null : new Date(t.expires_at).toISOString(),
        revoked: t.revoked,
        token: t.token,
        digest: t.token_digest,
      },
      now,
    );
}

/**
 * Each project's and group's deploy tokens, the secret as its digest. Not kept: who created a token
 * (the API's creator; a scenario's tokens have none) and when (the file's `now`).
 */
export function exportDeployTokens(st: PlatformState, out: ScenarioOut): void {
  for (const t of tvalues(st.deployTokens.records)) {
    const owner = t.owner === 'project' ? out.project(t.owner_id) : out.group(t.owner_id);
    if (!owner) continue;
    const e: Record<string, unknown> = { name: t.name, token_digest: t.digest };
    // The default name follows the id, which a load hands out again: kept as the name clients saw.
    e.username = deployTokenUsername(t);
    e.scopes = t.scopes;
    if (t.expires_at !== null) e.expires_at = t.expires_at;
    if (t.revoked) e.revoked = true;
    ((owner.deploy_tokens ??= []) as unknown[]).push(e);
  }
}

/** Fields a group or project entry may carry for this area. */
export const deployTokenFields = {
  deploy_tokens: z.array(deployTokenScenario).optional(),
};

export type DeployTokenOwner = z.output<z.ZodObject<typeof deployTokenFields>>;

export const deployTokenProblems = (s: {
  groups: DeployTokenOwner[];
  projects: DeployTokenOwner[];
}): string[] => [
  ...s.groups.flatMap((g, i) => deployTokenScenarioProblems(g.deploy_tokens, `groups[${i}]`)),
  ...s.projects.flatMap((p, i) => deployTokenScenarioProblems(p.deploy_tokens, `projects[${i}]`)),
];
