/** Scenario files' instance variables (top-level `variables`) and group `variables`. */
import type { Draft } from 'immer';
import { z } from 'zod';
import type { ScenarioOut } from '../../core/area.js';
import type { PlatformState } from '../../core/state.js';
import { tvalues } from '../../core/table.js';
import { variableErrors } from '../ci/model.js';
import { createGroupVariable, createInstanceVariable, INSTANCE_VALUE_MAX } from './model.js';
import type { GroupVariableRecord, InstanceVariableRecord } from './store.js';

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

type Variable = InstanceVariableRecord | GroupVariableRecord;

/** A variable's scenario entry: the fields that differ from the schema's defaults. */
function variableEntry(v: Variable): Record<string, unknown> {
  const e: Record<string, unknown> = { key: v.key, value: v.value };
  if (v.variable_type !== 'env_var') e.variable_type = v.variable_type;
  if (v.protected) e.protected = true;
  if (v.masked) e.masked = true;
  if ('environment_scope' in v && v.environment_scope !== '*') e.environment_scope = v.environment_scope;
  return e;
}

/** Instance variables as the top-level `variables`, group ones as their group's `variables`. */
export function exportCiVariables(st: PlatformState, out: ScenarioOut): void {
  const instance = tvalues(st.ciVariables.instance).map(variableEntry);
  if (instance.length) out.file.variables = instance;
  for (const v of tvalues(st.ciVariables.group)) {
    const g = out.group(v.group_id);
    if (g) ((g.variables ??= []) as unknown[]).push(variableEntry(v));
  }
}

/** Top-level fields of this area: instance variables. */
export const instanceVariableFields = {
  variables: z.array(instanceVariableScenario).default([]).describe('instance-level CI/CD variables'),
};

/** Fields a group entry may carry for this area. */
export const groupVariableFields = {
  variables: z.array(groupVariableScenario).optional().describe('group CI/CD variables'),
};

/** What this area reads of a scenario. */
export type VariablesScenario = z.output<z.ZodObject<typeof instanceVariableFields>> & {
  groups: z.output<z.ZodObject<typeof groupVariableFields>>[];
};

export const ciVariableProblems = (s: VariablesScenario): string[] => [
  ...variableScenarioProblems(s.variables, ''),
  ...s.groups.flatMap((g, i) => variableScenarioProblems(g.variables, `groups[${i}].`)),
];
