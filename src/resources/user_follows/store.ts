/**
 * Users following users (`Users::UserFollowUser`, GitLab 13.11): the platform's `users_follow_users`
 * rows have no id or time of their own, so the slice is the pair, kept both ways.
 */
import { emptyIndex, type MultiIndex } from '../../core/table.js';

export interface FollowsState {
  /** follower id -> the ids of the users they follow (`User#followees`) */
  following: MultiIndex;
  /** followee id -> the ids of their followers (`User#followers`) */
  followers: MultiIndex;
}

export const emptyFollows = (): FollowsState => ({ following: emptyIndex(), followers: emptyIndex() });

declare module '../../core/state.js' {
  interface AreaStates {
    follows: FollowsState;
  }
}
