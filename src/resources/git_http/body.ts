/**
 * The body of a git RPC (`git-upload-pack`, `git-receive-pack`) as the handlers read it: as sent, or
 * gunzipped (`Content-Encoding: gzip`, which git sends for a large upload-pack request). Inflating
 * streams off the request's thread (zlib's pool), bounded by its output, so a small gzip of gigabytes
 * is refused after at most the bound and a chunk, never inflated whole.
 */
import { createGunzip } from 'node:zlib';

/** The most a gunzipped push may have when no push size limit is set (the body cap of git requests). */
export const GIT_MAX_INFLATED = 256 * 1024 * 1024;

/**
 * The most a gunzipped upload-pack request may have: git http-backend's `http.maxRequestBuffer`
 * default, the most git's own server holds of an upload-pack request (wants and haves).
 */
export const GIT_MAX_REQUEST_BUFFER = 10 * 1024 * 1024;

/** A gunzipped body past its bound: `inflated` bytes were made when inflating stopped. */
export class InflatedTooLarge extends Error {
  override name = 'InflatedTooLarge';
  constructor(readonly inflated: number) {
    super('request body too large once inflated');
  }
}

/** A gzip stream that does not inflate. */
export class BadGzip extends Error {
  override name = 'BadGzip';
}

/** Four hex digits: how every git request body begins (a pkt-line's length). */
const framed = (b: Buffer) => /^[0-9a-f]{4}$/i.test(b.toString('latin1', 0, 4));

/**
 * `gz` gunzipped, at most `max` bytes (else `InflatedTooLarge`). A body whose first inflated bytes
 * are no pkt-line length is answered by its first bytes alone: the handlers refuse it on them
 * exactly as they would refuse it whole.
 */
export function gunzipBounded(gz: Buffer, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const z = createGunzip();
    const out: Buffer[] = [];
    let size = 0;
    let settled = false;
    const stop = (e?: Error) => {
      if (settled) return;
      settled = true;
      z.destroy();
      if (e) reject(e);
      else resolve(Buffer.concat(out, size));
    };
    z.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > max) return stop(new InflatedTooLarge(size));
      out.push(chunk);
      if (out.length === 1 && size >= 4 && !framed(chunk)) stop();
    });
    z.on('error', (e) => stop(new BadGzip(e.message)));
    z.on('end', () => stop());
    z.end(gz);
  });
}
