/**
 * Sending a finished export to `upload[url]`, as the platform's export worker does after writing the
 * archive: a background request, so no API request waits for it. The request for an export registers
 * its upload (`waiting`); the job that finishes the export releases it, and it is then tried up to three
 * times (network errors, 429 and 5xx) with a short backoff. Outcomes: `GET /__fauxlab/export_uploads`.
 */
import type { Clock } from '../../core/clock.js';
import { OutboundBlocked, outboundRequest, type OutboundPolicy } from '../../core/outbound.js';
import { packArchive } from './archive.js';
import type { StoredFile } from './store.js';

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
  /** When the export is due to finish on the instance clock (with the delays of the request's time). */
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

/** The tar.gz of an export's files, packed once (on first download or upload). */
export function packed(file: Extract<StoredFile, { kind: 'export' }>): Promise<Buffer> {
  return (file.packed ??= packArchive(file.files));
}

export class UploadLog {
  readonly #entries: ExportUpload[] = [];
  /** `<project id>:<export generation>` -> the upload waiting for that export. */
  readonly #waiting = new Map<string, ExportUpload>();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #policies = new WeakMap<ExportUpload, OutboundPolicy>();
  #seq = 0;

  list(): ExportUpload[] {
    return this.#entries.map((e) => structuredClone(e));
  }

  clear(): void {
    this.#entries.length = 0;
  }

  /** Registers the upload of an export that was just requested; it supersedes the project's older one. */
  register(
    u: Pick<ExportUpload, 'project_id' | 'project' | 'url' | 'method'>,
    generation: number,
    dueMs: number,
    /** `Gitlab::HTTP`'s adapter for the upload (`allow_local_requests_from_web_hooks_and_services`). */
    policy: OutboundPolicy,
  ): void {
    for (const [key, entry] of this.#waiting)
      if (entry.project_id === u.project_id) {
        entry.status = 'failed';
        entry.attempts.push({ at: new Date().toISOString(), error: 'superseded by a newer export' });
        this.#waiting.delete(key);
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
    this.#waiting.set(`${u.project_id}:${generation}`, entry);
    this.#policies.set(entry, policy);
  }

  /** The export finished: its upload (if it asked for one) starts now, in the background. */
  release(projectId: number, generation: number, file: Extract<StoredFile, { kind: 'export' }>): void {
    const key = `${projectId}:${generation}`;
    const entry = this.#waiting.get(key);
    if (!entry) return;
    this.#waiting.delete(key);
    entry.status = 'sending';
    const run = packed(file)
      .then((bytes) => {
        entry.bytes = bytes.length;
        return send(entry, bytes, this.#policies.get(entry)!);
      })
      .catch((e: unknown) => {
        entry.status = 'failed';
        entry.attempts.push({ at: new Date().toISOString(), error: String(e) });
      })
      .finally(() => this.#inFlight.delete(run));
    this.#inFlight.add(run);
  }

  /** Resolves once every upload under way is done (with its retries). */
  async settled(): Promise<void> {
    while (this.#inFlight.size) await Promise.allSettled([...this.#inFlight]);
  }
}

async function send(entry: ExportUpload, bytes: Buffer, policy: OutboundPolicy): Promise<void> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const record: UploadAttempt = { at: new Date().toISOString() };
    entry.attempts.push(record);
    try {
      const res = await outboundRequest(
        entry.url,
        {
          method: entry.method,
          headers: { 'Content-Type': 'application/gzip', 'Content-Length': String(bytes.length) },
          body: new Uint8Array(bytes),
          timeoutMs: TIMEOUT_MS,
        },
        policy,
      );
      record.status = res.status;
      entry.response_status = res.status;
      if (res.status < 500 && res.status !== 429) {
        entry.status = res.status >= 200 && res.status < 300 ? 'uploaded' : 'failed';
        return;
      }
    } catch (e) {
      // `Gitlab::HTTP::BlockedUrlError`: not retried.
      if (e instanceof OutboundBlocked) {
        record.error = e.message;
        break;
      }
      const err = e as { code?: string; cause?: { code?: string }; name?: string };
      record.error = err.code ?? err.cause?.code ?? err.name ?? String(e);
    }
    if (attempt < MAX_ATTEMPTS) await new Promise((r) => setTimeout(r, BACKOFF_MS * 2 ** (attempt - 1)));
  }
  entry.status = 'failed';
}

const logs = new WeakMap<Clock, UploadLog>();

/** The export-upload log of the instance with this clock. */
export function exportUploads(clock: Clock): UploadLog {
  let log = logs.get(clock);
  if (!log) logs.set(clock, (log = new UploadLog()));
  return log;
}
