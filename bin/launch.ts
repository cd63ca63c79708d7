#!/usr/bin/env node
/**
 * The `fauxlab` command as built (`dist/bin/fauxlab.js`): starts the CLI of bin/fauxlab.ts from one
 * bundled script with a V8 code cache beside it (scripts/build.js writes both).
 *
 * Start-up is most of a short test run's wait: loading the CLI as ~600 ES modules costs Node more in
 * resolving, reading and compiling them than the work itself. One script compiles at once, and the code
 * cache (V8's compiled functions of a previous run, `vm.Script` cachedData) skips most of that compile.
 *
 * The cache is an optimisation only: one that is missing, corrupt, made for another script or another
 * Node is not used (the script is compiled as usual), and a fresh one is written next to the script
 * when the command has run for a while (a server), where that directory is writable. It starts with a
 * header of its own (magic, the script's CRC-32, the length and CRC-32 of V8's data), checked before V8
 * sees the data: V8 itself checks little more than the length of the source.
 */
import { isAscii } from 'node:buffer';
import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { crc32 } from 'node:zlib';

const here = fileURLToPath(import.meta.url);
const dir = dirname(here);
const bundle = join(dir, 'fauxlab.bundle.cjs');
const cacheFile = join(dir, 'fauxlab.bundle.cache');

/** "FXC1" little-endian; a format change takes a new one. */
const MAGIC = 0x31435846;
const HEADER = 16;
/** A cache written this long after start holds the server's start-up and first requests compiled. */
const WRITE_AFTER_MS = 2000;

const bytes = readFileSync(bundle);
// esbuild writes ASCII (non-ASCII characters escaped) but for raw template text; Latin-1 decodes
// ASCII several times faster than UTF-8.
const source = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
const sourceCrc = crc32(bytes);

function readCache(): Buffer | undefined {
  let data: Buffer;
  try {
    data = readFileSync(cacheFile);
  } catch {
    return undefined;
  }
  if (
    data.length <= HEADER ||
    data.readUInt32LE(0) !== MAGIC ||
    data.readUInt32LE(4) !== sourceCrc ||
    data.readUInt32LE(8) !== data.length - HEADER ||
    data.readUInt32LE(12) !== crc32(data.subarray(HEADER))
  )
    return undefined;
  return data.subarray(HEADER);
}

const cachedData = readCache();
// The bundle has no `import()` (scripts/build.js turns them into require calls): no loader callback.
const script = new Script(source, { filename: bundle, cachedData });

function writeCache(): void {
  const tmp = `${cacheFile}.${process.pid}.tmp`;
  try {
    const data = script.createCachedData();
    const header = Buffer.alloc(HEADER);
    header.writeUInt32LE(MAGIC, 0);
    header.writeUInt32LE(sourceCrc, 4);
    header.writeUInt32LE(data.length, 8);
    header.writeUInt32LE(crc32(data), 12);
    writeFileSync(tmp, Buffer.concat([header, data]));
    // A rename: a concurrent start reads the old cache or the new one, never half of one.
    renameSync(tmp, cacheFile);
  } catch {
    // Read-only install, full disk: the cache is an optimisation.
    try {
      unlinkSync(tmp);
    } catch {
      // nothing was written
    }
  }
}

// The build's warm-up run (scripts/build.js) writes on exit, after the requests it made.
if (process.env.FAUXLAB_CODE_CACHE_WARMUP === '1') process.once('exit', writeCache);
else if (cachedData === undefined || script.cachedDataRejected === true)
  setTimeout(writeCache, WRITE_AFTER_MS).unref();

type Main = (
  exports: object,
  require: NodeJS.Require,
  module: { exports: object },
  filename: string,
  dirname: string,
  importMetaUrl: string,
) => void;
const module = { exports: {} };
// The bundle's `import.meta.url` is this file's: paths the CLI finds from it are the same as unbundled.
(script.runInThisContext() as Main)(
  module.exports,
  createRequire(bundle),
  module,
  bundle,
  dir,
  import.meta.url,
);
