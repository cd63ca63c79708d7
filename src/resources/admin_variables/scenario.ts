/** Scenario files' instance variables (top-level `variables`) and group `variables`. */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { PlatformState } from '../../core/state.js';
import { variableErrors } from '../ci/model.js';
import { createGroupVariable, createInstanceVariable, INSTANCE_VALUE_MAX } from './model.js';

const common = {
  key: z.string(),
  value: z.string(),
  variable_type: z.enum(['env_var', 'file']).default('env_var'),
  protected: z.boolean().default(false),
  masked: z.boolean().default(false),
};

export const instanceVariableScenario = z.strictObject(common);
export const groupVariableScenario = z.strictObject({
  ...common,
  environment_scope: z.string().default('*').describe('paid tiers'),
});

type InstanceVariableScenario = z.output<typeof instanceVariableScenario>;
type GroupVariableScenario = z.output<typeof groupVariableScenario>;

/** The models' validation errors, as `<at>.variables[j].<field>: message` lines. */
export function variableScenarioProblems(
  list: readonly (InstanceVariableScenario | GroupVariableScenario)[] | undefined,
  at: string,
): string[] {
  const problems: string[] = [];
  const seen: { id: number; key: string; environment_scope: string }[] = [];
  (list ?? []).forEach((v, j) => {
    const scope = 'environment_scope' in v ? v.environment_scope : '*';
    const errors = variableErrors({ ...v, environment_scope: scope }, seen);
    if (!('environment_scope' in v) && v.value.length > INSTANCE_VALUE_MAX)
      (errors.value ??= []).push(
        `The value of the provided variable exceeds the ${INSTANCE_VALUE_MAX} character limit`,
      );
    for (const [field, msgs] of Object.entries(errors))
      for (const m of msgs) problems.push(`${at}variables[${j}].${field}: ${m}`);
    seen.push({ id: -1 - j, key: v.key, environment_scope: scope });
  });
  return problems;
}

export function buildInstanceVariables(
  st: Draft<PlatformState>,
  list: readonly InstanceVariableScenario[],
): void {
  for (const v of list) createInstanceVariable(st, v);
}

export function buildGroupVariables(
  st: Draft<PlatformState>,
  groupId: number,
  list: readonly GroupVariableScenario[] | undefined,
  now: string,
): void {
  for (const v of list ?? []) createGroupVariable(st, groupId, v, now);
}
