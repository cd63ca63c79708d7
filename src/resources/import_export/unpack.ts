/**
 * Unpacking an uploaded tar.gz (a project or group import) as the platform's import worker does it in
 * Sidekiq, off the request path: an archive that inflates to at most SYNC_BYTES (any ordinary export)
 * is read at once, a bounded piece of work; a larger one is inflated on zlib's thread pool and its tar
 * framing read chunk by chunk as the bytes come, so that other requests are answered meanwhile (one
 * instance streams one archive at a time, as a Sidekiq queue would).
 *
 * Bounds, each checked before the work it bounds:
 * - the bytes inflated: `Gitlab::ImportExport::DecompressedArchiveSizeValidator` (10 GiB on the
 *   platform), lowered to what an instance can hold in memory (the file store's cap); past it the
 *   import fails with the validator's message, and inflating stops there;
 * - entries (the platform's archives hold a dozen files, a group's four a group), name length (GNU
 *   tar's PATH_MAX), and the depth of a name.
 *
 * What GNU tar (`Gitlab::ImportExport::CommandLineUtil#untar_zxf`) and the importer then make of the
 * entries: a leading `/` and any part up to a `..` component are removed from a name (tar's
 * "Removing leading ... from member names"), so nothing lands outside the archive's tree; symbolic and
 * hard links are dropped (`remove_symlinks`, the hard link check of `clean_extraction_dir!`); only
 * regular files are kept, and of those only the ones the importer reads.
 */
import { createGunzip, gunzipSync } from 'node:zlib';
import type { Clock } from '../../core/clock.js';
import { ArchiveError } from './archive.js';
import { FILE_BYTES_CAP, fileStore, type ArchiveFiles } from './store.js';

/** `DecompressedArchiveSizeValidator::DEFAULT_MAX_BYTES`. */
export const PLATFORM_DECOMPRESSED_MAX = 10 * 1024 ** 3;
/** The most bytes one archive inflates to here: the platform's bound, within the file store's. */
export const MAX_DECOMPRESSED_BYTES = Math.min(PLATFORM_DECOMPRESSED_MAX, FILE_BYTES_CAP);
/** The validator's failure, as the import reports it (`FileImporter#validate_decompressed_archive_size`). */
export const SIZE_FAILURE = 'Decompressed archive size validation failed.';

export const MAX_ENTRIES = 20_000;
/** PATH_MAX: GNU tar cannot extract a longer name. */
export const MAX_NAME_BYTES = 4096;
export const MAX_DEPTH = 64;
/** A pax or GNU long-name header's body: the name it carries, and a few records beside it. */
const MAX_META_BYTES = 64 * 1024;

/** An archive that inflates to at most this is read in one go, in the request that uploads it. */
export const SYNC_BYTES = 2 * 1024 * 1024;
/** zlib's output chunk when streaming: the most the event loop frames in one callback. */
const CHUNK = 256 * 1024;

export interface UnpackLimits {
  maxBytes: number;
  /** Which regular files are kept (the others are read past and counted). */
  wanted: (name: string) => boolean;
}

const NOT_GZIP = 'Unable to decompress the archive: it is not a gzip-compressed file';
const NOT_TAR = 'Unable to extract the archive: it is not a tar file';

const BLOCK = 512;

const octal = (b: Uint8Array, start: number, len: number): number => {
  // GNU's base-256 form for sizes of 8 GiB and more: the high bit of the first byte is set.
  if (b[start]! & 0x80) {
    let v = b[start]! & 0x7f;
    for (let i = start + 1; i < start + len; i++) v = v * 256 + b[i]!;
    return v;
  }
  const s = Buffer.from(b.subarray(start, start + len))
    .toString('latin1')
    .replace(/[\0 ]+$/, '')
    .trim();
  if (s === '') return 0;
  if (!/^[0-7]+$/.test(s)) throw new ArchiveError(NOT_TAR);
  return parseInt(s, 8);
};

const cstr = (b: Uint8Array, start: number, len: number): string => {
  const part = b.subarray(start, start + len);
  const nul = part.indexOf(0);
  return Buffer.from(nul < 0 ? part : part.subarray(0, nul)).toString('utf8');
};

/** GNU tar's `safer_name_suffix`: no leading `/`, nothing up to the last `..` component, no `./`. */
export function saferName(name: string): string {
  const parts = name.split('/');
  const last = parts.lastIndexOf('..');
  return parts
    .slice(last + 1)
    .filter((p) => p !== '' && p !== '.')
    .join('/');
}

/** The pax records of an extended header (`<len> key=value\n`...). */
function paxPath(body: Uint8Array): string | undefined {
  const text = Buffer.from(body).toString('utf8');
  let pos = 0;
  let path: string | undefined;
  while (pos < text.length) {
    const space = text.indexOf(' ', pos);
    const len = space < 0 ? NaN : Number(text.slice(pos, space));
    if (!Number.isInteger(len) || len <= 0) break;
    const record = text.slice(space + 1, pos + len - 1);
    const eq = record.indexOf('=');
    if (eq > 0 && record.slice(0, eq) === 'path') path = record.slice(eq + 1);
    pos += len;
  }
  return path;
}

/** Reads tar framing from bytes pushed in any pieces. */
class TarReader {
  readonly files: ArchiveFiles = new Map();
  entries = 0;
  #header = new Uint8Array(BLOCK);
  #headerFill = 0;
  #zeroBlocks = 0;
  #ended = false;
  /** The entry being read: bytes of body left, then of padding. */
  #left = 0;
  #pad = 0;
  #keep: Uint8Array[] | null = null;
  #keepName = '';
  #meta: { kind: 'pax' | 'long'; parts: Uint8Array[] } | null = null;
  #nextName: string | undefined;

  constructor(private readonly wanted: (name: string) => boolean) {}

  push(chunk: Uint8Array): void {
    let pos = 0;
    while (pos < chunk.length && !this.#ended) {
      if (this.#left > 0) {
        const n = Math.min(this.#left, chunk.length - pos);
        const part = chunk.subarray(pos, pos + n);
        if (this.#keep) this.#keep.push(Uint8Array.from(part));
        else if (this.#meta) this.#meta.parts.push(Uint8Array.from(part));
        this.#left -= n;
        pos += n;
        if (this.#left === 0) this.#endBody();
      } else if (this.#pad > 0) {
        const n = Math.min(this.#pad, chunk.length - pos);
        this.#pad -= n;
        pos += n;
      } else {
        const n = Math.min(BLOCK - this.#headerFill, chunk.length - pos);
        this.#header.set(chunk.subarray(pos, pos + n), this.#headerFill);
        this.#headerFill += n;
        pos += n;
        if (this.#headerFill === BLOCK) {
          this.#headerFill = 0;
          this.#readHeader(this.#header);
        }
      }
    }
  }

  /** The end of the input: an entry cut short is not a tar file (tar's "Unexpected EOF"). */
  finish(): void {
    if (this.#left > 0 || this.#headerFill > 0 || this.#meta) throw new ArchiveError(NOT_TAR);
  }

  #readHeader(h: Uint8Array): void {
    if (h.every((b) => b === 0)) {
      if (++this.#zeroBlocks === 2) this.#ended = true;
      return;
    }
    this.#zeroBlocks = 0;
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
    if (octal(h, 148, 8) !== sum) throw new ArchiveError(NOT_TAR);
    if (++this.entries > MAX_ENTRIES)
      throw new ArchiveError(`Unable to extract the archive: it holds more than ${MAX_ENTRIES} entries`);
    const size = octal(h, 124, 12);
    const type = String.fromCharCode(h[156]!);
    const ustar = cstr(h, 257, 6) === 'ustar';
    const prefix = ustar ? cstr(h, 345, 155) : '';
    let raw = this.#nextName ?? (prefix ? `${prefix}/${cstr(h, 0, 100)}` : cstr(h, 0, 100));
    this.#nextName = undefined;
    this.#left = size;
    this.#pad = (BLOCK - (size % BLOCK)) % BLOCK;
    if (type === 'x' || type === 'L') {
      if (size > MAX_META_BYTES)
        throw new ArchiveError('Unable to extract the archive: an extended header is too large');
      this.#meta = { kind: type === 'x' ? 'pax' : 'long', parts: [] };
      if (size === 0) this.#endBody();
      return;
    }
    if (Buffer.byteLength(raw) > MAX_NAME_BYTES)
      throw new ArchiveError(
        `Unable to extract the archive: an entry name is longer than ${MAX_NAME_BYTES} bytes`,
      );
    raw = saferName(raw);
    if (raw.split('/').length > MAX_DEPTH)
      throw new ArchiveError(
        `Unable to extract the archive: an entry is nested deeper than ${MAX_DEPTH} levels`,
      );
    // Regular files only (`0`, the old `\0`, contiguous `7`): links are removed, the rest is not content.
    const regular = type === '0' || type === '\0' || type === '7';
    if (regular && raw !== '' && this.wanted(raw)) {
      this.#keep = [];
      this.#keepName = raw;
    }
    if (size === 0) this.#endBody();
  }

  #endBody(): void {
    if (this.#keep) {
      this.files.set(this.#keepName, Buffer.concat(this.#keep));
      this.#keep = null;
    } else if (this.#meta) {
      const body = Buffer.concat(this.#meta.parts);
      const name = this.#meta.kind === 'pax' ? paxPath(body) : cstr(body, 0, body.length);
      if (name !== undefined) this.#nextName = name;
      this.#meta = null;
    }
  }
}

/** One archive being unpacked. */
export class Unpacker {
  /** Bytes inflated so far (what the size bound counts). */
  inflated = 0;
  readonly #tar: TarReader;

  constructor(
    private readonly input: Uint8Array,
    private readonly limits: UnpackLimits,
  ) {
    this.#tar = new TarReader(limits.wanted);
  }

  get files(): ArchiveFiles {
    return this.#tar.files;
  }

  #check(): void {
    const { input } = this;
    if (input.length < 18 || input[0] !== 0x1f || input[1] !== 0x8b) throw new ArchiveError(NOT_GZIP);
  }

  #take(chunk: Uint8Array): void {
    // Counted before the tar reader sees the bytes: past the bound, nothing more is read or kept.
    this.inflated += chunk.length;
    if (this.inflated > this.limits.maxBytes) throw new ArchiveError(SIZE_FAILURE);
    this.#tar.push(chunk);
  }

  /**
   * An archive that inflates to at most SYNC_BYTES, read at once (bounded work: any ordinary import);
   * false, having read nothing, for a larger one. Throws ArchiveError.
   */
  small(): boolean {
    this.#check();
    let out: Buffer;
    try {
      out = gunzipSync(this.input, { maxOutputLength: SYNC_BYTES });
    } catch (e) {
      if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return false;
      throw new ArchiveError(NOT_GZIP);
    }
    this.#take(out);
    this.#tar.finish();
    return true;
  }

  /**
   * Inflates on zlib's thread pool, a chunk at a time: the event loop only frames the chunks (and
   * answers other requests between them); inflating stops at the size bound. Rejects with ArchiveError.
   */
  stream(): Promise<ArchiveFiles> {
    this.#check();
    return new Promise((resolve, reject) => {
      const gz = createGunzip({ chunkSize: CHUNK });
      let failed = false;
      const fail = (e: unknown) => {
        if (failed) return;
        failed = true;
        gz.destroy();
        reject(e instanceof ArchiveError ? e : new ArchiveError(NOT_GZIP));
      };
      gz.on('data', (chunk: Buffer) => {
        if (failed) return;
        try {
          this.#take(chunk);
        } catch (e) {
          fail(e);
        }
      });
      gz.on('error', fail);
      gz.on('end', () => {
        if (failed) return;
        try {
          this.#tar.finish();
          resolve(this.files);
        } catch (e) {
          fail(e);
        }
      });
      gz.end(this.input);
    });
  }
}

/** What one unpack came to (the instance keeps the last few: `unpacks(clock).log`). */
export interface UnpackOutcome {
  inflated: number;
  /** Files kept. */
  files: number;
  error: string | null;
}

interface Task {
  unpacker: Unpacker;
  done: (result: { files: ArchiveFiles } | { error: string }) => void;
}

const LOG_SIZE = 50;

/** An instance's unpacking: one large archive at a time, as one Sidekiq queue would take them. */
export class UnpackQueue {
  readonly log: UnpackOutcome[] = [];
  readonly #tasks: Task[] = [];
  #running = false;
  #idle: (() => void)[] = [];

  /**
   * Unpacks an archive: a small one at once (so that it is unpacked by the time the request that
   * uploaded it is answered), a larger one in the background, after those queued before it.
   */
  add(unpacker: Unpacker, done: Task['done']): void {
    let small = false;
    try {
      small = unpacker.small();
    } catch (e) {
      return this.#finish(unpacker, done, { error: errorOf(e) });
    }
    if (small) return this.#finish(unpacker, done, { files: unpacker.files });
    this.#tasks.push({ unpacker, done });
    if (!this.#running) void this.#drain();
  }

  /** Archives waiting or being unpacked. */
  get pending(): number {
    return this.#tasks.length;
  }

  /** Resolves once every queued archive is unpacked. */
  settled(): Promise<void> {
    return this.#running ? new Promise((r) => this.#idle.push(r)) : Promise.resolve();
  }

  async #drain(): Promise<void> {
    this.#running = true;
    while (this.#tasks.length > 0) {
      const task = this.#tasks[0]!;
      let result: { files: ArchiveFiles } | { error: string };
      try {
        result = { files: await task.unpacker.stream() };
      } catch (e) {
        result = { error: errorOf(e) };
      }
      this.#tasks.shift();
      this.#finish(task.unpacker, task.done, result);
    }
    this.#running = false;
    for (const r of this.#idle.splice(0)) r();
  }

  #finish(u: Unpacker, done: Task['done'], result: { files: ArchiveFiles } | { error: string }): void {
    this.log.push({
      inflated: u.inflated,
      files: u.files.size,
      error: 'error' in result ? result.error : null,
    });
    if (this.log.length > LOG_SIZE) this.log.shift();
    try {
      done(result);
    } catch {
      // The hand-over is no request's: an error in it must not stop the queue for the archives after.
    }
  }
}

const errorOf = (e: unknown) => (e instanceof ArchiveError ? e.message : NOT_TAR);

const queues = new WeakMap<Clock, UnpackQueue>();

/** The unpack queue of the instance with this clock. */
export function unpacks(clock: Clock): UnpackQueue {
  let q = queues.get(clock);
  if (!q) queues.set(clock, (q = new UnpackQueue()));
  return q;
}

/** The files a project import reads (`Gitlab::ImportExport` layout); the rest of an archive is skipped. */
export const projectArchiveFile = (name: string): boolean =>
  name === 'VERSION' ||
  name === 'GITLAB_VERSION' ||
  name === 'repository.json' ||
  name === 'project.bundle' ||
  name.startsWith('tree/');

/**
 * Stores an uploaded archive and queues its unpacking; once it is unpacked (or refused) the stored file
 * holds its files (or why not) and `unpacked` runs. Returns the file's id.
 */
export function unpackUpload(
  clock: Clock,
  bytes: Uint8Array,
  limits: UnpackLimits,
): { fileId: number; start: (unpacked: () => void) => void } {
  const store = fileStore(clock);
  const fileId = store.add({ kind: 'import', unpacking: bytes });
  return {
    fileId,
    start: (unpacked) =>
      unpacks(clock).add(new Unpacker(bytes, limits), (result) => {
        store.replace(fileId, { kind: 'import', ...result });
        unpacked();
      }),
  };
}
