/**
 * Project export and import: the records in the immer state, and the files kept outside it.
 *
 * Both machines move by background jobs on the instance clock (src/core/jobs.ts): a record stores the
 * state it is in, and the jobs queued by a request move it on (`jobs.ts` in this area). A frozen clock
 * shows the same state until a test advances it; a snapshot carries the pending jobs with it.
 *
 * The files are not in the immer state (it is snapshotted, exported and compared, and a 50 MB string
 * there would make every snapshot carry it): they live in a per-instance store keyed by a file id, which
 * the records reference. The store is bounded (FILE_BYTES_CAP); a file evicted from it, or lost to a
 * reset, reads as "not found or has expired" (an export) or fails the import that needed it.
 */
import type { Draft } from 'immer';
import type { Clock } from '../../core/clock.js';
import { cancelJobs } from '../../core/jobs.js';
import type { PlatformState } from '../../core/state.js';
import { emptyTable, tdelete, type Table } from '../../core/table.js';

export type ExportStatus = 'none' | 'queued' | 'started' | 'finished' | 'regeneration_in_progress';
export type ImportStatus = 'none' | 'scheduled' | 'started' | 'finished' | 'failed';

/** A finished (or being written) export file. */
export interface ExportFileRef {
  /** Key in the instance's file store. */
  file_id: number;
  /** `<timestamp>_<path>_export.tar.gz`, dated when the export started. */
  filename: string;
}

/** One project's export (keyed by project id). */
export interface ExportRecord {
  project_id: number;
  /** Who asked for the export in progress (or the last one). */
  user_id: number;
  /** The export in progress; `finished` when none is. */
  step: 'queued' | 'started' | 'finished';
  /** Bumped by every request: the jobs of a superseded export find another generation and do nothing. */
  generation: number;
  /** The `description` param of the request, which overrides the project's in the archive. */
  description: string | null;
  /** The last finished export's file; a new request removes it (the platform's `remove_exports`). */
  file: ExportFileRef | null;
  /** The export in progress was asked for while a finished file existed: `regeneration_in_progress`. */
  regenerating?: boolean;
  /** The file of the export in progress, once it has started. */
  pending: ExportFileRef | null;
  upload: { url: string; method: 'PUT' | 'POST' } | null;
}

/** `ImportExportFailure`: a record that could not be imported. */
export interface FailedRelation {
  id: number;
  created_at: string;
  exception_class: string;
  exception_message: string;
  source: string;
  relation_name: string;
}

/** One imported project's import (keyed by the id of the project it creates). */
export interface ImportRecord {
  project_id: number;
  user_id: number;
  status: 'scheduled' | 'started' | 'finished' | 'failed';
  /** `import_state.last_error`: why the import failed. */
  error: string | null;
  correlation_id: string;
  failed_relations: FailedRelation[];
  /** The uploaded archive, unpacked, in the instance's file store (dropped when the import ends). */
  file_id: number;
  /** `override_params`, already checked and turned into project fields. */
  overrides: Record<string, unknown>;
  /** With `overwrite`: the path of the project the import replaces when it finishes. */
  original_path: string | null;
  /** The finishing step came while the archive was still being unpacked: it runs again once it is. */
  awaiting_unpack?: boolean;
}

/** Step delays in milliseconds (control plane: `PUT /__fauxlab/import_export`). */
export interface Delays {
  /** queued -> started */
  export_queued_ms: number;
  /** started -> finished */
  export_started_ms: number;
  /** scheduled -> started */
  import_scheduled_ms: number;
  /** started -> finished (or failed) */
  import_started_ms: number;
}

export const DEFAULT_DELAYS: Readonly<Delays> = Object.freeze({
  export_queued_ms: 1000,
  export_started_ms: 2000,
  import_scheduled_ms: 1000,
  import_started_ms: 2000,
});

export interface ImportExportState {
  exports: Table<ExportRecord>;
  imports: Table<ImportRecord>;
  delays: Delays;
}

export function emptyImportExport(): ImportExportState {
  return { exports: emptyTable(), imports: emptyTable(), delays: { ...DEFAULT_DELAYS } };
}

/** `Project#export_status`: a new export while a finished file exists is a regeneration. */
export function exportStatus(e: ExportRecord | undefined): ExportStatus {
  if (!e) return 'none';
  if (e.step === 'finished') return e.file ? 'finished' : 'none';
  return e.regenerating ? 'regeneration_in_progress' : e.step;
}

/** Job kinds of this area; payloads carry `project_id` (and exports their `generation`). */
export const JOB = {
  exportStart: 'project_export.start',
  exportFinish: 'project_export.finish',
  importStart: 'project_import.start',
  importFinish: 'project_import.finish',
  /** Queued right after importFinish: fails an import that a crashed finish left `started`. */
  importGuard: 'project_import.guard',
} as const;

const OWN_JOBS = new Set<string>(Object.values(JOB));

/**
 * `deleteProject` cascades through this: the project's export and import records, and their pending
 * jobs (a deleted project's import does not go on). Files stay in the store until evicted.
 */
export function deleteProjectImportExport(st: Draft<PlatformState>, projectId: number): void {
  tdelete(st.importExport.exports, projectId);
  tdelete(st.importExport.imports, projectId);
  if (st.jobs.length > 0) cancelJobs(st, (j) => OWN_JOBS.has(j.kind) && j.payload.project_id === projectId);
}

// ---------------------------------------------------------------------------------------------------
// Files, per instance

/** An archive's files by name (what a tar.gz holds). */
export type ArchiveFiles = Map<string, Buffer>;

/**
 * A stored file: an export's archive (its files, written when the export started; packed into a
 * tar.gz the first time it is downloaded or uploaded), or an uploaded archive for an import (unpacked,
 * or why it could not be).
 */
export type StoredFile =
  | { kind: 'export'; files: ArchiveFiles; packed?: Promise<Buffer> }
  | { kind: 'import'; files: ArchiveFiles }
  | { kind: 'import'; error: string }
  /** An upload still being unpacked (`unpack.ts`): its compressed bytes. */
  | { kind: 'import'; unpacking: Uint8Array };

/** At most this many bytes of files per instance; the oldest go first. */
export const FILE_BYTES_CAP = 256 * 1024 * 1024;

const sizeOf = (f: StoredFile) => {
  let n = 0;
  if ('files' in f) for (const b of f.files.values()) n += b.length;
  else if ('unpacking' in f) n = f.unpacking.length;
  return n;
};

export class FileStore {
  readonly #files = new Map<number, { file: StoredFile; bytes: number }>();
  #bytes = 0;
  #seq = 0;

  /** Stores a file; ids are never reused, even across resets and restores. */
  add(file: StoredFile): number {
    const id = ++this.#seq;
    const bytes = sizeOf(file);
    this.#files.set(id, { file, bytes });
    this.#bytes += bytes;
    for (const [old, f] of this.#files) {
      if (this.#bytes <= FILE_BYTES_CAP || old === id) break;
      this.#files.delete(old);
      this.#bytes -= f.bytes;
    }
    return id;
  }

  /** Replaces a file that is still stored (an unpacked upload); one evicted meanwhile stays gone. */
  replace(id: number, file: StoredFile): void {
    const old = this.#files.get(id);
    if (old === undefined) return;
    const bytes = sizeOf(file);
    this.#files.set(id, { file, bytes });
    this.#bytes += bytes - old.bytes;
    for (const [other, f] of this.#files) {
      if (this.#bytes <= FILE_BYTES_CAP || other === id) break;
      this.#files.delete(other);
      this.#bytes -= f.bytes;
    }
  }

  get(id: number | null | undefined): StoredFile | undefined {
    return id === null || id === undefined ? undefined : this.#files.get(id)?.file;
  }

  delete(id: number | null | undefined): void {
    const f = id === null || id === undefined ? undefined : this.#files.get(id);
    if (f === undefined) return;
    this.#files.delete(id!);
    this.#bytes -= f.bytes;
  }
}

const stores = new WeakMap<Clock, FileStore>();

/** The file store of the instance with this clock. */
export function fileStore(clock: Clock): FileStore {
  let s = stores.get(clock);
  if (!s) stores.set(clock, (s = new FileStore()));
  return s;
}

declare module '../../core/state.js' {
  interface AreaStates {
    importExport: ImportExportState;
  }
}
