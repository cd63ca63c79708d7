/**
 * Git's pkt-line framing (four hex digits of length, the length counting themselves) and the
 * side-band channels that carry a pack, progress and errors in one stream.
 */

/** The most a pkt-line carries in all (its length prefix included). */
export const MAX_PKT = 65520;

export const FLUSH = Buffer.from('0000');
export const DELIM = Buffer.from('0001');

/** One pkt-line of `data` (text is written as UTF-8). */
export function pkt(data: string | Buffer): Buffer {
  const body = typeof data === 'string' ? Buffer.from(data) : data;
  const head = Buffer.from((body.length + 4).toString(16).padStart(4, '0'));
  return Buffer.concat([head, body]);
}

/** The value of an ASCII hex digit (either case), or -1. */
const hexDigit = (c: number): number =>
  c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;

/** A packet read: its payload, or the special `flush` (0000) and `delim` (0001) markers. */
export type Packet = Buffer | 'flush' | 'delim' | 'end';

/** A reader over a request body: packets one at a time, then the rest (a pack) as it is. */
export class PktReader {
  pos = 0;
  constructor(readonly buf: Buffer) {}

  /** The next packet; `end` when the body is used up. Throws on a malformed length. */
  next(): Packet {
    if (this.pos >= this.buf.length) return 'end';
    if (this.pos + 4 > this.buf.length) throw new Error('truncated pkt-line');
    // The four hex digits of the length, read without a string per packet (a request may carry
    // 100,000 of them).
    let len = 0;
    for (let i = this.pos; i < this.pos + 4; i++) {
      const d = hexDigit(this.buf[i]!);
      if (d < 0) throw new Error('bad pkt-line length');
      len = len * 16 + d;
    }
    if (len === 0) {
      this.pos += 4;
      return 'flush';
    }
    if (len === 1) {
      this.pos += 4;
      return 'delim';
    }
    if (len < 4 || this.pos + len > this.buf.length) throw new Error('bad pkt-line length');
    const out = this.buf.subarray(this.pos + 4, this.pos + len);
    this.pos += len;
    return out;
  }

  /** The next packet as a line without its trailing newline (markers as they are). */
  line(): string | 'flush' | 'delim' | 'end' {
    const p = this.next();
    if (typeof p === 'string') return p;
    const s = p.toString('utf8');
    return s.endsWith('\n') ? s.slice(0, -1) : s;
  }

  rest(): Buffer {
    return this.buf.subarray(this.pos);
  }
}

/** `data` on side-band `band` (1 pack data, 2 progress, 3 error), split into pkt-lines of at most `max`. */
export function* sideband(band: 1 | 2 | 3, data: Buffer, max = MAX_PKT): Generator<Buffer> {
  const room = max - 5;
  for (let i = 0; i < data.length; i += room) {
    const part = data.subarray(i, Math.min(i + room, data.length));
    const head = Buffer.from(
      (part.length + 5).toString(16).padStart(4, '0') + String.fromCharCode(band),
      'latin1',
    );
    yield Buffer.concat([head, part]);
  }
}
