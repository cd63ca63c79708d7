/**
 * Group export and import (`Groups::ImportExport`): records in the state, archives in the project
 * export's per-instance file store (`import_export/store.ts`), steps as background jobs on the instance
 * clock with the same delays as project exports and imports (`PUT /__fauxlab/import_export`).
 */
import type { Draft } from 'immer';
import { cancelJobs } from '../../core/jobs.js';
import type { PlatformState } from '../../core/state.js';
import { emptyTable, tdelete, type Table } from '../../core/table.js';
import type { ExportFileRef } from '../import_export/store.js';

export interface GroupExportRecord {
  group_id: number;
  user_id: number;
  step: 'queued' | 'started' | 'finished';
  /** Bumped by every request: a superseded export's jobs do nothing. */
  generation: number;
  file: ExportFileRef | null;
  pending: ExportFileRef | null;
}

export interface GroupImportRecord {
  group_id: number;
  user_id: number;
  status: 'scheduled' | 'started' | 'finished' | 'failed';
  /** The uploaded archive, unpacked, in the file store (dropped when the import ends). */
  file_id: number;
  error: string | null;
  /** The finishing step came while the archive was still being unpacked: it runs again once it is. */
  awaiting_unpack?: boolean;
}

export interface GroupExportState {
  exports: Table<GroupExportRecord>;
  imports: Table<GroupImportRecord>;
}

export const emptyGroupExport = (): GroupExportState => ({ exports: emptyTable(), imports: emptyTable() });

export const GROUP_JOB = {
  exportStart: 'group_export.start',
  exportFinish: 'group_export.finish',
  importStart: 'group_import.start',
  importFinish: 'group_import.finish',
} as const;

const OWN_JOBS = new Set<string>(Object.values(GROUP_JOB));

/** A deleted group's export and import go, with their pending jobs. */
export function deleteGroupExport(st: Draft<PlatformState>, groupId: number): void {
  tdelete(st.groupExport.exports, groupId);
  tdelete(st.groupExport.imports, groupId);
  if (st.jobs.length > 0) cancelJobs(st, (j) => OWN_JOBS.has(j.kind) && j.payload.group_id === groupId);
}

declare module '../../core/state.js' {
  interface AreaStates {
    groupExport: GroupExportState;
  }
}
