/** Snippets and epics (as far as notes need them). */
import { type Draft } from 'immer';
import { nextId, type PlatformState } from '../../../core/state.js';
import { madd, tset } from '../../../core/table.js';
import { type EpicRecord, type SnippetRecord } from '../store.js';
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
