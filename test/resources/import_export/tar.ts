import { gunzipSync, gzipSync } from 'node:zlib';
import { extract, pack } from 'tar-stream';

/** The files of a tar.gz, by name. */
export async function untar(bytes: Buffer): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const x = extract();
  const done = new Promise<void>((resolve, reject) => {
    x.on('entry', (h, stream, next) => {
      const parts: Buffer[] = [];
      stream.on('data', (c: unknown) => parts.push(c as Buffer));
      stream.on('end', () => {
        files.set(h.name, Buffer.concat(parts));
        next();
      });
    });
    x.on('finish', resolve);
    x.on('error', reject);
  });
  x.end(gunzipSync(bytes));
  await done;
  return files;
}

/** A tar.gz of the given files (for archives fauxlab did not write). */
export async function tarGz(files: Iterable<[string, Buffer | string]>): Promise<Buffer> {
  const p = pack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve) => {
    p.on('data', (c: unknown) => chunks.push(c as Buffer));
    p.on('end', resolve);
  });
  for (const [name, body] of files) p.entry({ name }, body);
  p.finalize();
  await done;
  return gzipSync(Buffer.concat(chunks));
}
