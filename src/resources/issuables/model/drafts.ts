/** An issue's or merge request's record on a draft, by its noteable or awardable type. */
import type { Draft } from 'immer';
import type { PlatformState } from '../../../core/state.js';
import { tget } from '../../../core/table.js';
import type { IssueRecord, MergeRequestRecord } from '../store.js';

type S = Draft<PlatformState>;

export type IssuableDraft = Draft<IssueRecord> | Draft<MergeRequestRecord>;

export function issuableDraft(st: S, type: string, id: number): IssuableDraft | undefined {
  if (type === 'Issue') return tget(st.issuables.issues, id);
  if (type === 'MergeRequest') return tget(st.issuables.mergeRequests, id);
  return undefined;
}
