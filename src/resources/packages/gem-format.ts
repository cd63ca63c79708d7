/**
 * What the RubyGems registry reads and writes besides HTTP: a `.gem` (a tar holding `metadata.gz`, the
 * gzipped YAML of its `Gem::Specification`), read as `Gem::Package#spec` does for
 * `Packages::Rubygems::ProcessGemService`, and Ruby's `Marshal` format 4.8 for the dependency API's
 * answer (`Marshal.dump` of arrays, hashes with symbol keys and UTF-8 strings).
 */
import { gunzipSync } from 'node:zlib';
import { parse } from 'yaml';

/** The most bytes `metadata.gz` may unpack to (a gemspec is a few KiB; a bomb stops here). */
const MAX_METADATA = 1024 * 1024;
/** Entries of the gem's tar read before giving up on finding `metadata.gz`. */
const MAX_ENTRIES = 64;

export class GemError extends Error {}

export interface GemSpec {
  name: string;
  version: string;
  platform: string;
  /** name, requirement (`Gem::Requirement#to_s`), in the gemspec's order, runtime and development alike. */
  dependencies: [string, string][];
}

/** The entry of a ustar archive with this name, or undefined (sizes checked against the buffer). */
function tarEntry(tar: Buffer, wanted: string): Buffer | undefined {
  let at = 0;
  for (let n = 0; n < MAX_ENTRIES && at + 512 <= tar.length; n++) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) return undefined;
    const field = (from: number, len: number) => {
      const s = header.subarray(from, from + len);
      const nul = s.indexOf(0);
      return s.subarray(0, nul < 0 ? len : nul).toString('utf8');
    };
    const size = parseInt(field(124, 12).trim() || '0', 8);
    if (!Number.isSafeInteger(size) || size < 0) throw new GemError('a tar header with a bad size');
    const prefix = field(345, 155);
    const name = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
    const start = at + 512;
    if (start + size > tar.length) throw new GemError('a tar entry past the end');
    if (name === wanted) return tar.subarray(start, start + size);
    at = start + Math.ceil(size / 512) * 512;
  }
  return undefined;
}

/** A YAML value as a string (`Gem::Version`'s `version`, a plain scalar). */
function text(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  if (v && typeof v === 'object' && !Array.isArray(v)) return text((v as Record<string, unknown>).version);
  return undefined;
}

/** `Gem::Requirement#to_s`: its `[op, version]` pairs as `op version`, joined with `, `. */
function requirement(v: unknown): string {
  const reqs = (v as { requirements?: unknown } | null)?.requirements;
  if (!Array.isArray(reqs) || reqs.length === 0) return '>= 0';
  return reqs
    .slice(0, 64)
    .map((r) => (Array.isArray(r) ? `${text(r[0]) ?? ''} ${text(r[1]) ?? ''}` : ''))
    .join(', ');
}

/** `Gem::Package.new(file).spec`: the gemspec's name, version, platform and dependencies. */
export function readGem(bytes: Buffer): GemSpec {
  const gz = tarEntry(bytes, 'metadata.gz');
  if (!gz) throw new GemError('no metadata.gz in the gem');
  let yaml: string;
  try {
    yaml = gunzipSync(gz, { maxOutputLength: MAX_METADATA }).toString('utf8');
  } catch {
    throw new GemError('metadata.gz does not unpack');
  }
  let doc: unknown;
  try {
    // Ruby's tags (`!ruby/object:Gem::Specification`, `Gem::Version`) read as the plain maps they tag.
    doc = parse(yaml, { logLevel: 'silent', maxAliasCount: 100, uniqueKeys: false });
  } catch {
    throw new GemError('the gemspec is not YAML');
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new GemError('the gemspec is no map');
  const spec = doc as Record<string, unknown>;
  const name = text(spec.name);
  const version = text(spec.version);
  if (!name || !version) throw new GemError('the gemspec has no name or version');
  const deps = Array.isArray(spec.dependencies) ? spec.dependencies.slice(0, 1000) : [];
  return {
    name,
    version,
    platform: text(spec.platform) ?? 'ruby',
    dependencies: deps.flatMap((d): [string, string][] => {
      const dep = d as Record<string, unknown> | null;
      const n = dep && text(dep.name);
      return n ? [[n, requirement(dep.requirement)]] : [];
    }),
  };
}

// ---- Marshal 4.8

export type Marshalable = null | boolean | number | string | Marshalable[] | { sym: string } | SymbolHash;
/** A hash with symbol keys, as a list of pairs (never an object keyed by client data). */
export interface SymbolHash {
  pairs: [string, Marshalable][];
}

/** `Marshal.dump`: symbols once each (later as links), strings UTF-8 (the `E` ivar). */
export function marshalDump(value: Marshalable): Buffer {
  const out: number[] = [4, 8];
  const symbols = new Map<string, number>();
  const long = (n: number) => {
    if (n === 0) out.push(0);
    else if (n > 0 && n < 123) out.push(n + 5);
    else if (n < 0 && n > -124) out.push((n - 5) & 0xff);
    else {
      const bytes: number[] = [];
      let x = n;
      for (let i = 0; i < 4; i++) {
        bytes.push(x & 0xff);
        x >>= 8;
        if ((n >= 0 && x === 0) || (n < 0 && x === -1)) break;
      }
      out.push(n >= 0 ? bytes.length : 256 - bytes.length, ...bytes);
    }
  };
  const bytes = (b: Buffer) => {
    long(b.length);
    for (const x of b) out.push(x);
  };
  const symbol = (s: string) => {
    const link = symbols.get(s);
    if (link !== undefined) {
      out.push(0x3b); // ;
      long(link);
      return;
    }
    symbols.set(s, symbols.size);
    out.push(0x3a); // :
    bytes(Buffer.from(s, 'utf8'));
  };
  const write = (v: Marshalable): void => {
    if (v === null) out.push(0x30);
    else if (v === true) out.push(0x54);
    else if (v === false) out.push(0x46);
    else if (typeof v === 'number') {
      out.push(0x69); // i
      long(v);
    } else if (typeof v === 'string') {
      out.push(0x49, 0x22); // I"
      bytes(Buffer.from(v, 'utf8'));
      long(1);
      symbol('E');
      out.push(0x54);
    } else if (Array.isArray(v)) {
      out.push(0x5b); // [
      long(v.length);
      for (const x of v) write(x);
    } else if ('sym' in v) symbol(v.sym);
    else {
      out.push(0x7b); // {
      long(v.pairs.length);
      for (const [k, x] of v.pairs) {
        symbol(k);
        write(x);
      }
    }
  };
  write(value);
  return Buffer.from(out);
}
