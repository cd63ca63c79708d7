/**
 * Sending a finished export to `upload[url]`, as the platform's export worker does after writing the
 * archive: a background request, so no API request waits for it. An upload waits for its export to
 * finish on the instance clock (a watcher checks while uploads are pending), then is tried up to three
 * times (network errors, 429 and 5xx) with a short backoff. Outcomes: `GET /__fauxlab/export_uploads`.
 */
import type { Clock } from '../../core/clock.js';
import { archiveStore } from './store.js';

export interface UploadAttempt {
  /** Wall-clock time (the instance clock may be frozen). */
  at: string;
  status?: number;
  error?: string;
}

export interface ExportUpload {
  id: number;
  project_id: number;
  project: string;
  url: string;
  method: 'PUT' | 'POST';
  /** When the export finishes on the instance clock: the upload starts then. */
  due_at: string;
  status: 'waiting' | 'sending' | 'uploaded' | 'failed';
  response_status: number | null;
  bytes: number | null;
  attempts: UploadAttempt[];
}

const MAX_ATTEMPTS = 3;
const BACKOFF_MS = 100;
const TIMEOUT_MS = 10_000;
const LOG_SIZE = 500;
const WATCH_INTERVAL_MS = 25;

interface Pending {
  entry: ExportUpload;
  dueMs: number;
  archiveId: number;
}

export class UploadLog {
  readonly #entries: ExportUpload[] = [];
  readonly #waiting = new Map<number, Pending>();
  readonly #inFlight = new Set<Promise<void>>();
  #seq = 0;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(readonly clock: Clock) {}

  list(): ExportUpload[] {
    return this.#entries.map((e) => structuredClone(e));
  }

  clear(): void {
    this.#entries.length = 0;
  }

  /** Queues the upload of an export's archive, sent once the clock reaches `dueMs`. */
  schedule(
    u: Pick<ExportUpload, 'project_id' | 'project' | 'url' | 'method'>,
    dueMs: number,
    archiveId: number,
  ): void {
    // A new export replaces the upload its predecessor still waited for (`POST` removes old exports).
    for (const [id, p] of this.#waiting)
      if (p.entry.project_id === u.project_id) {
        p.entry.status = 'failed';
        p.entry.attempts.push({ at: new Date().toISOString(), error: 'superseded by a newer export' });
        this.#waiting.delete(id);
      }
    const entry: ExportUpload = {
      ...u,
      id: ++this.#seq,
      due_at: new Date(dueMs).toISOString(),
      status: 'waiting',
      response_status: null,
      bytes: null,
      attempts: [],
    };
    this.#entries.push(entry);
    if (this.#entries.length > LOG_SIZE) this.#entries.shift();
    this.#waiting.set(entry.id, { entry, dueMs, archiveId });
    if (!this.#timer) {
      this.#timer = setInterval(() => this.tick(), WATCH_INTERVAL_MS);
      this.#timer.unref?.();
    }
  }

  /** Starts the uploads whose export has finished. */
  tick(): void {
    const now = this.clock.ms();
    for (const [id, p] of this.#waiting) {
      if (now < p.dueMs) continue;
      this.#waiting.delete(id);
      const bytes = archiveStore(this.clock).get(p.archiveId);
      if (!bytes) {
        p.entry.status = 'failed';
        p.entry.attempts.push({ at: new Date().toISOString(), error: 'the archive no longer exists' });
        continue;
      }
      p.entry.status = 'sending';
      p.entry.bytes = bytes.length;
      const run = send(p.entry, bytes).finally(() => this.#inFlight.delete(run));
      this.#inFlight.add(run);
    }
    if (this.#waiting.size === 0 && this.#timer) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  /** Starts what is due, then resolves once every upload under way is done (with its retries). */
  async settled(): Promise<void> {
    this.tick();
    while (this.#inFlight.size) await Promise.allSettled([...this.#inFlight]);
  }
}

async function send(entry: ExportUpload, bytes: Buffer): Promise<void> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const record: UploadAttempt = { at: new Date().toISOString() };
    entry.attempts.push(record);
    try {
      const res = await fetch(entry.url, {
        method: entry.method,
        headers: { 'Content-Type': 'application/gzip', 'Content-Length': String(bytes.length) },
        body: new Uint8Array(bytes),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      await res.arrayBuffer().catch(() => undefined);
      record.status = res.status;
      entry.response_status = res.status;
      if (res.status < 500 && res.status !== 429) {
        entry.status = res.ok ? 'uploaded' : 'failed';
        return;
      }
    } catch (e) {
      const err = e as { cause?: { code?: string }; name?: string };
      record.error = err.cause?.code ?? err.name ?? String(e);
    }
    if (attempt < MAX_ATTEMPTS) await new Promise((r) => setTimeout(r, BACKOFF_MS * 2 ** (attempt - 1)));
  }
  entry.status = 'failed';
}

const logs = new WeakMap<Clock, UploadLog>();

/** The export-upload log of the instance with this clock. */
export function exportUploads(clock: Clock): UploadLog {
  let log = logs.get(clock);
  if (!log) logs.set(clock, (log = new UploadLog(clock)));
  return log;
}
