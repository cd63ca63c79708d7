/**
 * The bytes of the files a multipart request carried, read once while the body is parsed, so that
 * synchronous handlers (and the writes they run) can store them without waiting on `File#arrayBuffer`.
 * Keyed by the `File` object: nothing outlives the request.
 */
const bytes = new WeakMap<File, Uint8Array>();

/** Reads every file of a parsed form (the body cap bounds their total). */
export async function preloadFiles(entries: Iterable<[string, string | File]>): Promise<void> {
  for (const [, v] of entries) if (typeof v !== 'string') bytes.set(v, new Uint8Array(await v.arrayBuffer()));
}

/** A request file's bytes (undefined for a file that did not come from a parsed request body). */
export const fileBytes = (f: File): Uint8Array | undefined => bytes.get(f);
