/** Deploy tokens of projects and groups (`DeployToken`), by owner. */
import { emptyIndex, emptyTable, type MultiIndex, type Table } from '../../core/table.js';

export const DEPLOY_TOKEN_SCOPES = [
  'read_repository',
  'read_registry',
  'write_registry',
  'read_package_registry',
  'write_package_registry',
] as const;

export type DeployTokenScope = (typeof DEPLOY_TOKEN_SCOPES)[number];

export interface DeployTokenRecord {
  id: number;
  owner: 'project' | 'group';
  /** The project or group id. */
  owner_id: number;
  name: string;
  /** null: the default `gitlab+deploy-token-<id>`. */
  username: string | null;
  scopes: DeployTokenScope[];
  expires_at: string | null;
  revoked: boolean;
  /** sha256 of the token; the token itself is shown once, on create. */
  digest: string;
  creator_id: number | null;
  created_at: string;
}

export interface DeployTokensState {
  records: Table<DeployTokenRecord>;
  idx: {
    /** `p<project id>` / `g<group id>` -> token ids */
    by: MultiIndex;
  };
}

export const emptyDeployTokens = (): DeployTokensState => ({
  records: emptyTable(),
  idx: { by: emptyIndex() },
});

declare module '../../core/state.js' {
  interface AreaStates {
    deployTokens: DeployTokensState;
  }
}
