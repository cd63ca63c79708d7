/**
 * The scenario fields of the set-up areas, for the shared schema and world building: instance
 * `variables`, group `variables` and `deploy_tokens`, project `deploy_tokens`.
 */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { PlatformState } from '../../core/state.js';
import {
  buildGroupVariables,
  buildInstanceVariables,
  groupVariableScenario,
  instanceVariableScenario,
  variableScenarioProblems,
} from '../admin_variables/scenario.js';
import {
  buildDeployTokens,
  deployTokenScenario,
  deployTokenScenarioProblems,
} from '../deploy_tokens/scenario.js';

export const setupScenarioFields = {
  variables: z.array(instanceVariableScenario).default([]).describe('instance-level CI/CD variables'),
};

export const groupSetupFields = {
  variables: z.array(groupVariableScenario).optional().describe('group CI/CD variables'),
  deploy_tokens: z.array(deployTokenScenario).optional(),
};

export const projectSetupFields = {
  deploy_tokens: z.array(deployTokenScenario).optional(),
};

type Fields<T extends z.ZodRawShape> = z.output<z.ZodObject<T>>;
export type GroupSetup = Fields<typeof groupSetupFields>;
export type ProjectSetup = Fields<typeof projectSetupFields>;
/** What these areas read of a scenario: the shared schema is built from their fields, not the reverse. */
export type SetupScenario = Fields<typeof setupScenarioFields> & {
  groups: GroupSetup[];
  projects: ProjectSetup[];
};

export function setupScenarioProblems(s: SetupScenario): string[] {
  return [
    ...variableScenarioProblems(s.variables, ''),
    ...s.groups.flatMap((g, i) => [
      ...variableScenarioProblems(g.variables, `groups[${i}].`),
      ...deployTokenScenarioProblems(g.deploy_tokens, `groups[${i}]`),
    ]),
    ...s.projects.flatMap((p, i) => deployTokenScenarioProblems(p.deploy_tokens, `projects[${i}]`)),
  ];
}

type S = Draft<PlatformState>;

export function buildGroupSetup(st: S, id: number, g: GroupSetup, now: string): void {
  buildGroupVariables(st, id, g.variables, now);
  buildDeployTokens(st, 'group', id, g.deploy_tokens, now);
}

export const buildProjectSetup = (st: S, id: number, p: ProjectSetup, now: string) =>
  buildDeployTokens(st, 'project', id, p.deploy_tokens, now);

export const buildInstanceSetup = (st: S, s: SetupScenario) => buildInstanceVariables(st, s.variables);
