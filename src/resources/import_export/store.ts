/**
 * Project export and import: records in the immer state, and what stays outside it. Both machines are
 * derived from the instance clock when read (as pipelines are): a record stores when each step happens,
 * and a frozen clock shows the same state until a test advances it.
 *
 * The archive bytes are not in the immer state (it is snapshotted, exported and compared, and a
 * 50 MB string there would make every snapshot carry it): they live in a per-instance Map keyed by an
 * archive id, which the export record references. The Map is bounded (ARCHIVE_BYTES_CAP); an archive
 * evicted from it, or lost to a reset, reads as "not found or has expired".
 */
import type { Clock } from '../../core/clock.js';
import type { Draft } from 'immer';
import type { PlatformState } from '../../core/state.js';
import { emptyTable, tdelete, type Table } from '../../core/table.js';

export type ExportStatus = 'none' | 'queued' | 'started' | 'finished' | 'regeneration_in_progress';
export type ImportStatus = 'none' | 'scheduled' | 'started' | 'finished' | 'failed';

/** One project's export (keyed by project id). Times are instance-clock milliseconds. */
export interface ExportRecord {
  project_id: number;
  user_id: number;
  requested_ms: number;
  started_ms: number;
  finished_ms: number;
  /** The archive this export produces (a key of the instance's archive Map). */
  archive_id: number;
  /** The previous export's archive, downloadable until the new one is ready. */
  previous_archive_id: number | null;
  /** `<timestamp>_<path>_export.tar.gz`. */
  filename: string;
  previous_filename: string | null;
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

/** One imported project's import state (keyed by project id). */
export interface ImportRecord {
  project_id: number;
  requested_ms: number;
  started_ms: number;
  finished_ms: number;
  /** Set when the archive could not be imported: the import ends in `failed`. */
  error: string | null;
  correlation_id: string;
  failed_relations: FailedRelation[];
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

/** The export status at `now` (`Project#export_status`). */
export function exportStatus(e: ExportRecord | undefined, now: number): ExportStatus {
  if (!e) return 'none';
  if (now >= e.finished_ms) return 'finished';
  // A new export while an older file still exists is a regeneration, whichever step it is in.
  if (e.previous_archive_id !== null) return 'regeneration_in_progress';
  return now >= e.started_ms ? 'started' : 'queued';
}

export function importStatus(i: ImportRecord | undefined, now: number): ImportStatus {
  if (!i) return 'none';
  if (now >= i.finished_ms) return i.error === null ? 'finished' : 'failed';
  return now >= i.started_ms ? 'started' : 'scheduled';
}

// ---------------------------------------------------------------------------------------------------
// Archive bytes, per instance

/** At most this many bytes of archives per instance; the oldest go first. */
export const ARCHIVE_BYTES_CAP = 256 * 1024 * 1024;

export class ArchiveStore {
  readonly #files = new Map<number, Buffer>();
  #bytes = 0;
  #seq = 0;

  /** Stores an archive; ids are never reused, even across resets and restores. */
  add(bytes: Buffer): number {
    const id = ++this.#seq;
    this.#files.set(id, bytes);
    this.#bytes += bytes.length;
    for (const [old, b] of this.#files) {
      if (this.#bytes <= ARCHIVE_BYTES_CAP || old === id) break;
      this.#files.delete(old);
      this.#bytes -= b.length;
    }
    return id;
  }

  get(id: number | null): Buffer | undefined {
    return id === null ? undefined : this.#files.get(id);
  }

  delete(id: number | null): void {
    const b = id === null ? undefined : this.#files.get(id);
    if (b === undefined) return;
    this.#files.delete(id!);
    this.#bytes -= b.length;
  }
}

const archives = new WeakMap<Clock, ArchiveStore>();

/** The archive store of the instance with this clock. */
export function archiveStore(clock: Clock): ArchiveStore {
  let s = archives.get(clock);
  if (!s) archives.set(clock, (s = new ArchiveStore()));
  return s;
}

/** `deleteProject` cascades through this: the project's export and import records. */
export function deleteProjectImportExport(st: Draft<PlatformState>, projectId: number): void {
  tdelete(st.importExport.exports, projectId);
  tdelete(st.importExport.imports, projectId);
}
