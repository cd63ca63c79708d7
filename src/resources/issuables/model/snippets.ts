/** Snippets and epics (as far as notes need them). */
import { type Draft } from 'immer';
import { nextId, type PlatformState } from '../../../core/state.js';
import { idelete, madd, mget, mremove, tdelete, tget, tset } from '../../../core/table.js';
import { type EpicIssueRecord, type EpicRecord, type SnippetRecord } from '../store.js';
import { groupMeta } from './meta.js';

type S = Draft<PlatformState>;

// ---------------------------------------------------------------------------------------------------
// Snippets and epics (as far as notes need them)

export function createSnippet(st: S, input: Omit<SnippetRecord, 'id'>): number {
  const id = nextId(st, 'snippets');
  tset(st.issuables.snippets, id, { id, ...input });
  if (input.project_id !== null) madd(st.issuables.idx.owned, `sp${input.project_id}`, id);
  madd(st.issuables.idx.owned, `su${input.author_id}`, id);
  return id;
}

export function createEpic(st: S, input: Omit<EpicRecord, 'id' | 'iid'>): number {
  const id = nextId(st, 'epics');
  const meta = groupMeta(st, input.group_id);
  const iid = ++meta.epic_iid;
  tset(st.issuables.epics, id, { id, iid, ...input });
  madd(st.issuables.idx.owned, `eg${input.group_id}`, id);
  return id;
}

/** Puts an issue in an epic, out of any other: at the top of the epic's list, as the platform does. */
export function linkEpicIssue(st: S, epicId: number, issueId: number, now: string): number {
  for (const old of mget(st.issuables.idx.owned, `ie${issueId}`)) unlinkEpicIssue(st, old);
  const positions = mget(st.issuables.idx.owned, `ee${epicId}`).map(
    (l) => tget(st.issuables.epicIssues, l)!.relative_position,
  );
  const id = nextId(st, 'epic_issues');
  const rec: EpicIssueRecord = {
    id,
    epic_id: epicId,
    issue_id: issueId,
    relative_position: positions.length ? Math.min(...positions) - EPIC_ISSUE_GAP : 0,
    created_at: now,
    updated_at: now,
  };
  tset(st.issuables.epicIssues, id, rec);
  madd(st.issuables.idx.owned, `ee${epicId}`, id);
  madd(st.issuables.idx.owned, `ie${issueId}`, id);
  return id;
}

export const EPIC_ISSUE_GAP = 1000;

export function unlinkEpicIssue(st: S, linkId: number): void {
  const l = tget(st.issuables.epicIssues, linkId);
  if (!l) return;
  mremove(st.issuables.idx.owned, `ee${l.epic_id}`, linkId);
  mremove(st.issuables.idx.owned, `ie${l.issue_id}`, linkId);
  tdelete(st.issuables.epicIssues, linkId);
}

/** An epic's issue links go with it. */
export function unlinkEpic(st: S, epicId: number): void {
  for (const l of mget(st.issuables.idx.owned, `ee${epicId}`)) unlinkEpicIssue(st, l);
  idelete(st.issuables.idx.owned, `ee${epicId}`);
}
