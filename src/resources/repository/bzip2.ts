/**
 * A bzip2 compressor (the format `bzip2 -9` writes, readable by any bzip2 decoder): a `BZh9` stream of
 * blocks of at most 900k bytes after the first run-length pass, each Burrows-Wheeler transformed, then
 * move-to-front coded with RUNA/RUNB zero runs and Huffman coded with 2-6 tables chosen per 50 symbols.
 * Synchronous: callers bound the input (see MAX_BZIP2_INPUT).
 */

/** The most bytes one call compresses (0.5-2 s a megabyte, by how repetitive): this bounds a request. */
export const MAX_BZIP2_INPUT = 8 * 1024 * 1024;

/** Bytes of one block after the first run-length pass, as `bzip2 -9` cuts them (900k less its slack). */
const BLOCK_MAX = 900_000 - 19;
/** The encoder's longest Huffman code (the decoder accepts up to 20). */
const MAX_CODE_LEN = 17;
const GROUP_SIZE = 50;
const REFINE_ITERATIONS = 4;

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i << 24;
    for (let k = 0; k < 8; k++) c = c & 0x80000000 ? (c << 1) ^ 0x04c11db7 : c << 1;
    t[i] = c >>> 0;
  }
  return t;
})();

/** bzip2's CRC-32: the polynomial 0x04c11db7 fed most significant bit first, not reflected. */
export function bzip2Crc(data: Uint8Array, start = 0, end = data.length): number {
  let crc = 0xffffffff;
  for (let i = start; i < end; i++) crc = (crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ data[i]!) & 0xff]!;
  return ~crc >>> 0;
}

class BitWriter {
  private buf = 0;
  private count = 0;
  private out: Uint8Array;
  private pos = 0;

  constructor(capacity: number) {
    this.out = new Uint8Array(Math.max(64, capacity));
  }

  /** Writes the low `n` bits of `v` (n <= 24), most significant first. */
  bits(n: number, v: number): void {
    this.buf = (this.buf << n) | (v & ((1 << n) - 1));
    this.count += n;
    while (this.count >= 8) {
      this.count -= 8;
      this.byte((this.buf >>> this.count) & 0xff);
    }
  }

  u32(v: number): void {
    this.bits(16, (v >>> 16) & 0xffff);
    this.bits(16, v & 0xffff);
  }

  private byte(b: number): void {
    if (this.pos === this.out.length) {
      const bigger = new Uint8Array(this.out.length * 2);
      bigger.set(this.out);
      this.out = bigger;
    }
    this.out[this.pos++] = b;
  }

  finish(): Buffer {
    if (this.count > 0) this.bits(8 - this.count, 0);
    return Buffer.from(this.out.buffer, this.out.byteOffset, this.pos);
  }
}

/**
 * Sorts the block's rotations by prefix doubling (ranks of 2k-byte prefixes from those of k-byte ones,
 * each round two counting sorts) and returns the last column and where the unrotated block went.
 */
function bwt(block: Uint8Array, n: number): { last: Uint8Array; origPtr: number } {
  const sa = new Int32Array(n);
  const sa2 = new Int32Array(n);
  let rank = new Int32Array(n);
  let tmp = new Int32Array(n);
  const cnt = new Int32Array(Math.max(256, n) + 1);
  for (let i = 0; i < n; i++) cnt[block[i]!]!++;
  for (let i = 1; i < 256; i++) cnt[i]! += cnt[i - 1]!;
  for (let i = n - 1; i >= 0; i--) sa[--cnt[block[i]!]!] = i;
  rank[sa[0]!] = 0;
  for (let i = 1; i < n; i++)
    rank[sa[i]!] = rank[sa[i - 1]!]! + (block[sa[i]!] !== block[sa[i - 1]!] ? 1 : 0);
  let classes = rank[sa[n - 1]!]! + 1;
  // Rotations that stay equal after k >= n are identical: any order of them gives the same output.
  for (let k = 1; k < n && classes < n; k <<= 1) {
    // sa is in order of the first k bytes, so sa[j] - k is in order of the second k bytes.
    for (let j = 0; j < n; j++) {
      const s = sa[j]! - k;
      sa2[j] = s < 0 ? s + n : s;
    }
    cnt.fill(0, 0, classes + 1);
    for (let j = 0; j < n; j++) cnt[rank[sa2[j]!]!]!++;
    for (let i = 1; i < classes; i++) cnt[i]! += cnt[i - 1]!;
    for (let j = n - 1; j >= 0; j--) sa[--cnt[rank[sa2[j]!]!]!] = sa2[j]!;
    tmp[sa[0]!] = 0;
    for (let i = 1; i < n; i++) {
      const a = sa[i]!;
      const b = sa[i - 1]!;
      const a2 = a + k >= n ? a + k - n : a + k;
      const b2 = b + k >= n ? b + k - n : b + k;
      tmp[a] = tmp[b]! + (rank[a] !== rank[b] || rank[a2] !== rank[b2] ? 1 : 0);
    }
    [rank, tmp] = [tmp, rank];
    classes = rank[sa[n - 1]!]! + 1;
  }
  const last = new Uint8Array(n);
  let origPtr = 0;
  for (let i = 0; i < n; i++) {
    const s = sa[i]!;
    if (s === 0) origPtr = i;
    last[i] = block[s === 0 ? n - 1 : s - 1]!;
  }
  return { last, origPtr };
}

/** Huffman code lengths for every symbol (unused ones weigh 1), halving weights until none exceeds maxLen. */
function codeLengths(freq: ArrayLike<number>, alphaSize: number, maxLen: number): Uint8Array {
  const lens = new Uint8Array(alphaSize);
  const weight = new Float64Array(alphaSize);
  for (let i = 0; i < alphaSize; i++) weight[i] = freq[i]! === 0 ? 1 : freq[i]!;
  for (;;) {
    // Nodes 0..alphaSize-1 are leaves; each merge adds one parent node.
    const total = 2 * alphaSize - 1;
    const w = new Float64Array(total);
    const parent = new Int32Array(total).fill(-1);
    const active = new Uint8Array(total);
    for (let i = 0; i < alphaSize; i++) {
      w[i] = weight[i]!;
      active[i] = 1;
    }
    for (let next = alphaSize; next < total; next++) {
      let a = -1;
      let b = -1;
      for (let i = 0; i < next; i++) {
        if (!active[i]) continue;
        if (a < 0 || w[i]! < w[a]!) {
          b = a;
          a = i;
        } else if (b < 0 || w[i]! < w[b]!) b = i;
      }
      active[a] = 0;
      active[b] = 0;
      w[next] = w[a]! + w[b]!;
      parent[a] = next;
      parent[b] = next;
      active[next] = 1;
    }
    let tooLong = false;
    for (let i = 0; i < alphaSize; i++) {
      let d = 0;
      for (let j = i; parent[j]! >= 0; j = parent[j]!) d++;
      lens[i] = d;
      if (d > maxLen) tooLong = true;
    }
    if (!tooLong) return lens;
    for (let i = 0; i < alphaSize; i++) weight[i] = 1 + Math.floor(weight[i]! / 2);
  }
}

function writeBlock(out: BitWriter, block: Uint8Array, n: number, crc: number): void {
  const { last, origPtr } = bwt(block, n);

  const inUse = new Uint8Array(256);
  for (let i = 0; i < n; i++) inUse[block[i]!] = 1;
  const unseqToSeq = new Uint8Array(256);
  let nInUse = 0;
  for (let i = 0; i < 256; i++) if (inUse[i]) unseqToSeq[i] = nInUse++;
  const alphaSize = nInUse + 2;
  const EOB = nInUse + 1;

  // Move-to-front, zero runs as RUNA (0) / RUNB (1) digits of bijective base 2, other positions + 1.
  const mtf = new Uint16Array(n + 1);
  const mtfFreq = new Int32Array(alphaSize);
  let nMTF = 0;
  const order = new Uint8Array(nInUse);
  for (let i = 0; i < nInUse; i++) order[i] = i;
  let zPend = 0;
  const flushZeros = () => {
    if (zPend === 0) return;
    zPend--;
    for (;;) {
      const sym = zPend & 1;
      mtf[nMTF++] = sym;
      mtfFreq[sym]!++;
      if (zPend < 2) break;
      zPend = (zPend - 2) >> 1;
    }
    zPend = 0;
  };
  for (let i = 0; i < n; i++) {
    const s = unseqToSeq[last[i]!]!;
    if (order[0] === s) {
      zPend++;
      continue;
    }
    flushZeros();
    let j = 1;
    let prev = order[0]!;
    order[0] = s;
    while (order[j] !== s) {
      const t = order[j]!;
      order[j] = prev;
      prev = t;
      j++;
    }
    order[j] = prev;
    mtf[nMTF++] = j + 1;
    mtfFreq[j + 1]!++;
  }
  flushZeros();
  mtf[nMTF++] = EOB;
  mtfFreq[EOB]!++;

  // Tables: bzip2's initial split of the alphabet by cumulative frequency, then refined by reassigning
  // each 50-symbol group to its cheapest table and rebuilding the tables from what they were given.
  const nGroups = nMTF < 200 ? 2 : nMTF < 600 ? 3 : nMTF < 1200 ? 4 : nMTF < 2400 ? 5 : 6;
  const lens: Uint8Array[] = [];
  for (let t = 0; t < nGroups; t++) lens.push(new Uint8Array(alphaSize));
  {
    let nPart = nGroups;
    let remF = nMTF;
    let gs = 0;
    while (nPart > 0) {
      const tFreq = remF / nPart;
      let ge = gs - 1;
      let aFreq = 0;
      while (aFreq < tFreq && ge < alphaSize - 1) aFreq += mtfFreq[++ge]!;
      if (ge > gs && nPart !== nGroups && nPart !== 1 && (nGroups - nPart) % 2 === 1) aFreq -= mtfFreq[ge--]!;
      const l = lens[nPart - 1]!;
      for (let v = 0; v < alphaSize; v++) l[v] = v >= gs && v <= ge ? 0 : 15;
      nPart--;
      gs = ge + 1;
      remF -= aFreq;
    }
  }
  const nSelectors = Math.ceil(nMTF / GROUP_SIZE);
  const selectors = new Uint8Array(nSelectors);
  const cost = new Int32Array(nGroups);
  for (let iter = 0; iter < REFINE_ITERATIONS; iter++) {
    const rfreq = lens.map(() => new Int32Array(alphaSize));
    for (let g = 0, gs = 0; gs < nMTF; g++, gs += GROUP_SIZE) {
      const ge = Math.min(gs + GROUP_SIZE, nMTF);
      cost.fill(0);
      for (let i = gs; i < ge; i++) {
        const sym = mtf[i]!;
        for (let t = 0; t < nGroups; t++) cost[t]! += lens[t]![sym]!;
      }
      let best = 0;
      for (let t = 1; t < nGroups; t++) if (cost[t]! < cost[best]!) best = t;
      selectors[g] = best;
      const f = rfreq[best]!;
      for (let i = gs; i < ge; i++) f[mtf[i]!]!++;
    }
    for (let t = 0; t < nGroups; t++) lens[t] = codeLengths(rfreq[t]!, alphaSize, MAX_CODE_LEN);
  }

  // Canonical codes in the order the decoder rebuilds them: by length, then by symbol.
  const codes = lens.map((l) => {
    const code = new Int32Array(alphaSize);
    let vec = 0;
    for (let len = 1; len <= MAX_CODE_LEN; len++) {
      for (let i = 0; i < alphaSize; i++) if (l[i] === len) code[i] = vec++;
      vec <<= 1;
    }
    return code;
  });

  out.bits(24, 0x314159);
  out.bits(24, 0x265359);
  out.u32(crc);
  out.bits(1, 0);
  out.bits(24, origPtr);
  let ranges = 0;
  for (let r = 0; r < 16; r++) for (let j = 0; j < 16; j++) if (inUse[r * 16 + j]) ranges |= 0x8000 >> r;
  out.bits(16, ranges);
  for (let r = 0; r < 16; r++) {
    if (!(ranges & (0x8000 >> r))) continue;
    let m = 0;
    for (let j = 0; j < 16; j++) if (inUse[r * 16 + j]) m |= 0x8000 >> j;
    out.bits(16, m);
  }
  out.bits(3, nGroups);
  out.bits(15, nSelectors);
  const selOrder = [0, 1, 2, 3, 4, 5].slice(0, nGroups);
  for (let g = 0; g < nSelectors; g++) {
    const s = selectors[g]!;
    const j = selOrder.indexOf(s);
    for (let k = 0; k < j; k++) out.bits(1, 1);
    out.bits(1, 0);
    selOrder.splice(j, 1);
    selOrder.unshift(s);
  }
  for (const l of lens) {
    let curr = l[0]!;
    out.bits(5, curr);
    for (let i = 0; i < alphaSize; i++) {
      while (curr < l[i]!) {
        out.bits(2, 2);
        curr++;
      }
      while (curr > l[i]!) {
        out.bits(2, 3);
        curr--;
      }
      out.bits(1, 0);
    }
  }
  for (let g = 0, gs = 0; gs < nMTF; g++, gs += GROUP_SIZE) {
    const ge = Math.min(gs + GROUP_SIZE, nMTF);
    const l = lens[selectors[g]!]!;
    const code = codes[selectors[g]!]!;
    for (let i = gs; i < ge; i++) out.bits(l[mtf[i]!]!, code[mtf[i]!]!);
  }
}

/** The bzip2 stream (`BZh9`) of `input`; throws a RangeError past MAX_BZIP2_INPUT. */
export function bzip2(input: Uint8Array): Buffer {
  if (input.length > MAX_BZIP2_INPUT) throw new RangeError('bzip2 input too large');
  const out = new BitWriter(Math.ceil(input.length * 1.02) + 64);
  out.bits(24, 0x425a68); // "BZh"
  out.bits(8, 0x39); // "9"
  let combined = 0;
  const block = new Uint8Array(BLOCK_MAX);
  let i = 0;
  while (i < input.length) {
    // The first pass: a run of 4-255 equal bytes is 4 bytes and a count of the rest.
    const start = i;
    let n = 0;
    while (i < input.length && n + 5 <= BLOCK_MAX) {
      const b = input[i]!;
      let run = 1;
      while (run < 255 && i + run < input.length && input[i + run] === b) run++;
      if (run >= 4) {
        block.fill(b, n, n + 4);
        block[n + 4] = run - 4;
        n += 5;
      } else {
        block.fill(b, n, n + run);
        n += run;
      }
      i += run;
    }
    const crc = bzip2Crc(input, start, i);
    combined = (((combined << 1) | (combined >>> 31)) ^ crc) >>> 0;
    writeBlock(out, block, n, crc);
  }
  out.bits(24, 0x177245);
  out.bits(24, 0x385090);
  out.u32(combined);
  return out.finish();
}
