/**
 * Project access tokens (`ResourceAccessTokens`): each is a personal access token of a bot user the
 * project has as a maintainer (`User#project_bot?`); this slice says which bots are whose.
 */
import { emptyIndex, type MultiIndex } from '../../core/table.js';

export interface ResourceTokensState {
  /** project id -> its bot users' ids (`Project#bots`) */
  bots: MultiIndex;
}

export const emptyResourceTokens = (): ResourceTokensState => ({ bots: emptyIndex() });

declare module '../../core/state.js' {
  interface AreaStates {
    resourceTokens: ResourceTokensState;
  }
}
