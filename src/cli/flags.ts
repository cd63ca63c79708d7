/**
 * The flags of `fauxlab serve` and their checks, and the flags that take a value (a flag left without one is
 * a usage error rather than an empty value).
 */
import { parseVersion } from '../core/versions.js';
import type { Argv } from 'yargs';
import { parseSize } from './serve.js';

export function serveOptions(y: Argv) {
  return y
    .option('port', {
      alias: 'p',
      type: 'number',
      default: 4000,
      describe: 'port to listen on (0: any free port)',
    })
    .option('host', { type: 'string', default: '127.0.0.1', describe: 'address to listen on' })
    .option('scenario', {
      alias: 's',
      type: 'string',
      describe: 'scenario file (.yaml, .yml or .json); default the demo world',
    })
    .option('seed', { type: 'number', describe: "seed for generated records (overrides the scenario's)" })
    .option('tier', {
      choices: ['free', 'premium', 'ultimate'] as const,
      describe: "tier (overrides the scenario's)",
    })
    .option('gitlab-version', {
      type: 'string',
      describe:
        "GitLab version to answer as: a minor such as 15.4, or a release such as 15.4.6 (overrides the scenario's; 13.12 to 18.11)",
    })
    .option('base-url', {
      type: 'string',
      describe: 'external URL for links in responses, e.g. http://gitlab.example.com',
    })
    .option('control-plane', {
      type: 'boolean',
      default: true,
      describe: 'serve /__fauxlab/ (--no-control-plane: off)',
    })
    .option('admin-token', {
      type: 'string',
      describe:
        'require "Authorization: Bearer TOKEN" on /__fauxlab/ (for a shared host); or FAUXLAB_ADMIN_TOKEN',
    })
    .option('frozen-clock', {
      type: 'boolean',
      default: false,
      describe: 'freeze the clock at its start instead of running in real time',
    })
    .option('explain', {
      type: 'boolean',
      default: false,
      describe: "send each 404's reason in an X-Fauxlab-Explain header (the platform sends none)",
    })
    .option('latency', {
      type: 'string',
      describe: 'add latency to every request: ms (200) or a range (100-500)',
    })
    .option('state-file', {
      type: 'string',
      describe: 'load the world from FILE on start (if it exists); save it there after writes and on exit',
    })
    .option('journal-size', {
      type: 'number',
      default: 1000,
      describe: 'requests kept in the journal (GET /__fauxlab/requests); 0 turns it off',
    })
    .option('journal-body-bytes', {
      type: 'string',
      describe:
        'bodies the journal keeps, newest first (default 8MiB; older entries keep the rest, not the body)',
    })
    .option('max-body-size', {
      type: 'string',
      describe: 'refuse request bodies larger than SIZE with 413 (bytes, or 512k, 64MiB, 1GB; default 64MiB)',
    })
    .option('response-cache', {
      type: 'boolean',
      default: true,
      describe: 'answer a repeated GET from memory while the world is unchanged (--no-response-cache: off)',
    })
    .option('quiet', {
      alias: 'q',
      type: 'boolean',
      default: false,
      describe: 'print no line per request (the banner and errors still show)',
    })
    .option('max-uploads-total', {
      type: 'string',
      describe: 'refuse uploads once all stored files would pass SIZE, with 413 (default 512MiB)',
    })
    .check((a) => {
      for (const [flag, v] of [
        ['--max-body-size', a.maxBodySize],
        ['--max-uploads-total', a.maxUploadsTotal],
        ['--journal-body-bytes', a.journalBodyBytes],
      ] as const)
        if (typeof v === 'string' && parseSize(v) === undefined)
          throw new Error(`${flag} must be a size: bytes, or a number with k, M or G (64MiB)`);
      if (!Number.isInteger(a.port) || a.port < 0 || a.port > 65535)
        throw new Error('--port must be an integer from 0 to 65535');
      if (a.seed !== undefined && !Number.isSafeInteger(a.seed)) throw new Error('--seed must be an integer');
      if (typeof a.gitlabVersion === 'string')
        try {
          parseVersion(a.gitlabVersion);
        } catch (e) {
          throw new Error(`--gitlab-version: ${(e as Error).message}`);
        }
      if (typeof a.baseUrl === 'string' && !/^https?:\/\/[^/]/.test(a.baseUrl))
        throw new Error('--base-url must be an http(s) URL');
      if (!Number.isInteger(a.journalSize) || (a.journalSize as number) < 0)
        throw new Error('--journal-size must be an integer >= 0');
      if (typeof a.latency === 'string' && !/^\s*\d+(\.\d+)?\s*(-\s*\d+(\.\d+)?\s*)?$/.test(a.latency))
        throw new Error('--latency must be milliseconds (200) or a range (100-500)');
      if (typeof a.latency === 'string') {
        const [lo, hi = lo] = a.latency.split('-').map(Number);
        if (lo! > hi!) throw new Error('--latency: the range must go from low to high');
      }
      return true;
    });
}

/** Flags that take a value (aliases included), in every command. */
export const VALUE_FLAGS = new Set([
  'port',
  'p',
  'host',
  'scenario',
  's',
  'seed',
  'tier',
  'gitlab-version',
  'base-url',
  'admin-token',
  'latency',
  'state-file',
  'journal-size',
  'journal-body-bytes',
  'max-body-size',
  'max-uploads-total',
  'url',
  'format',
  'output',
  'o',
  'token',
  'group',
  'project',
]);

/**
 * The first value flag given without a value: last on the line, or followed by another flag. The
 * parser would take such a flag as empty, or keep the default (`--port` alone served on 4000).
 * `--admin-token ""` is an explicit value and is left to the checks of that flag.
 */
export function missingValue(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return undefined;
    const m = /^--?([^=]+)(=(.*))?$/.exec(arg);
    if (!m || !VALUE_FLAGS.has(m[1]!)) continue;
    const flag = m[1]!.length === 1 ? `-${m[1]}` : `--${m[1]}`;
    if (m[2] !== undefined) {
      if (m[3] === '' && m[1] !== 'admin-token') return flag;
      continue;
    }
    const next = argv[i + 1];
    // A negative number is a value (`--seed -3`); anything else starting with a dash is a flag.
    if (next === undefined || (next.startsWith('-') && !/^-\d/.test(next))) return flag;
    if (next === '' && m[1] !== 'admin-token') return flag;
    i++;
  }
  return undefined;
}
