/** A deleted project's issuables. */
import { type Draft } from 'immer';
import { type PlatformState } from '../../../core/state.js';
import { idelete, mget, mremove, tdelete, tget } from '../../../core/table.js';
import { chunkIds } from '../store.js';
import { removeAward } from './awards.js';

import { deleteMergeRequest } from './merge-requests.js';
import { deleteIssue } from './issues.js';
import { deleteNote } from './notes.js';
import { unlinkEpic } from './snippets.js';
import { unindexLabelTitle } from './labels.js';

type S = Draft<PlatformState>;

// ---------------------------------------------------------------------------------------------------
// Project deletion

/** Everything of a project's: called by `deleteProject`. */
export function deleteProjectIssuables(st: S, projectId: number): void {
  const meta = tget(st.issuables.projectMeta, projectId);
  if (meta) {
    for (const id of chunkIds(st.issuables.idx.byProject, 'm', projectId, meta.mr_iid))
      deleteMergeRequest(st, id);
    for (const id of chunkIds(st.issuables.idx.byProject, 'i', projectId, meta.issue_iid))
      deleteIssue(st, id);
  }
  for (const id of mget(st.issuables.idx.owned, `p${projectId}`)) tdelete(st.issuables.milestones, id);
  idelete(st.issuables.idx.owned, `p${projectId}`);
  for (const id of mget(st.issuables.idx.owned, `lp${projectId}`)) dropLabel(st, `lp${projectId}`, id);
  idelete(st.issuables.idx.owned, `lp${projectId}`);
  for (const id of mget(st.issuables.idx.owned, `sp${projectId}`)) {
    // With their award emoji, and their notes' (`deleteNote` takes those).
    for (const n of [...mget(st.issuables.idx.notes, `Snippet:${id}`)]) deleteNote(st, n);
    idelete(st.issuables.idx.notes, `Snippet:${id}`);
    for (const a of [...mget(st.issuables.idx.awards, `Snippet:${id}`)]) removeAward(st, a);
    mremove(st.issuables.idx.owned, `su${tget(st.issuables.snippets, id)!.author_id}`, id);
    tdelete(st.issuables.snippets, id);
  }
  idelete(st.issuables.idx.owned, `sp${projectId}`);
  for (const n of mget(st.issuables.idx.notes, `Commit:${projectId}`)) deleteNote(st, n);
  idelete(st.issuables.idx.notes, `Commit:${projectId}`);
  tdelete(st.issuables.projectMeta, projectId);
}

/** A deleted group's milestones, labels and epics (with their notes): called through the cascade. */
export function deleteGroupIssuables(st: S, groupId: number): void {
  for (const id of mget(st.issuables.idx.owned, `g${groupId}`)) tdelete(st.issuables.milestones, id);
  for (const id of mget(st.issuables.idx.owned, `lg${groupId}`)) dropLabel(st, `lg${groupId}`, id);
  for (const id of mget(st.issuables.idx.owned, `eg${groupId}`)) {
    for (const n of mget(st.issuables.idx.notes, `Epic:${id}`)) deleteNote(st, n);
    for (const a of mget(st.issuables.idx.awards, `Epic:${id}`)) removeAward(st, a);
    unlinkEpic(st, id);
    tdelete(st.issuables.epics, id);
  }
  for (const k of ['g', 'lg', 'eg']) idelete(st.issuables.idx.owned, `${k}${groupId}`);
  tdelete(st.issuables.groupMeta, groupId);
}

/** A label of a deleted project or group: off the title index, then gone (its owner's set goes after). */
function dropLabel(st: S, ownerKey: string, id: number): void {
  const l = tget(st.issuables.labels, id);
  if (l) unindexLabelTitle(st, ownerKey, l.title, id);
  tdelete(st.issuables.labels, id);
}
