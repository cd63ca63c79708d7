/** Instance-level (`Ci::InstanceVariable`) and group-level (`Ci::GroupVariable`) CI/CD variables. */
import { emptyIndex, emptyTable, type Index, type MultiIndex, type Table } from '../../core/table.js';

export interface InstanceVariableRecord {
  id: number;
  key: string;
  value: string;
  variable_type: 'env_var' | 'file';
  protected: boolean;
  masked: boolean;
  /** Not expanded (`raw`, 15.7 on); absent: false. */
  raw?: boolean;
}

export interface GroupVariableRecord {
  id: number;
  group_id: number;
  key: string;
  value: string;
  variable_type: 'env_var' | 'file';
  protected: boolean;
  masked: boolean;
  /** Not expanded (`raw`, 15.7 on); absent: false. */
  raw?: boolean;
  /** `*` unless set on a paid tier. */
  environment_scope: string;
  created_at: string;
  updated_at: string;
}

export interface CiVariablesState {
  instance: Table<InstanceVariableRecord>;
  group: Table<GroupVariableRecord>;
  idx: {
    /** key -> instance variable id (keys are unique instance-wide) */
    instanceKeys: Index;
    /** `g<group id>` -> group variable ids */
    groupBy: MultiIndex;
  };
}

export const emptyCiVariables = (): CiVariablesState => ({
  instance: emptyTable(),
  group: emptyTable(),
  idx: { instanceKeys: emptyIndex(), groupBy: emptyIndex() },
});

declare module '../../core/state.js' {
  interface AreaStates {
    ciVariables: CiVariablesState;
  }
}
