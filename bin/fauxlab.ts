#!/usr/bin/env node
/**
 * The `fauxlab` command: serve a scenario over HTTP, validate scenario files, list routes.
 *
 * Start-up time matters (a test suite may launch it per run): only yargs (and the short, dependency-free
 * list of GitLab versions the flags are checked against) is imported up front, each
 * command imports what it needs, and faker is loaded only for a scenario with a `generate` block.
 */
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { CliError, version } from '../src/cli/common.js';
import { type ServeArgs, serveCommand } from '../src/cli/serve.js';
import {
  validateCommand,
  routesCommand,
  type ExportArgs,
  exportCommand,
  captureCommand,
  schemaCommand,
} from '../src/cli/scenario-commands.js';
import { serveOptions, missingValue } from '../src/cli/flags.js';

const cli = yargs(hideBin(process.argv))
  .scriptName('fauxlab')
  .usage('$0 [command] [options]\n\nA high-fidelity in-memory mock of the GitLab REST API v4.')
  .command(['serve', '$0'], 'serve a scenario over HTTP (the default command)', serveOptions, (a) =>
    serveCommand(a as unknown as ServeArgs),
  )
  .command('scenario', 'work with scenario files: validate, schema, export, capture', (y) =>
    y
      .command(
        'validate <file>',
        'check a scenario file, cross-references included',
        (y) =>
          y.positional('file', {
            type: 'string',
            demandOption: true,
            describe: 'a .yaml, .yml or .json file',
          }),
        (a) => validateCommand(String(a.file)),
      )
      .command('schema', 'print the JSON Schema of scenario files', {}, () => schemaCommand())
      .command(
        'export',
        'print a world as a scenario file: a running server (--url), a state file, or a scenario with ' +
          'extends and generate resolved',
        (y) =>
          y
            .option('url', { type: 'string', describe: 'a running fauxlab, e.g. http://127.0.0.1:4000' })
            .option('admin-token', { type: 'string', describe: "the server's --admin-token, if it has one" })
            .option('state-file', { type: 'string', describe: 'a file written by serve --state-file' })
            .option('scenario', { alias: 's', type: 'string', describe: 'a scenario file' })
            .option('format', { choices: ['yaml', 'json'] as const, default: 'yaml' as const })
            .option('output', { alias: 'o', type: 'string', describe: 'write to FILE instead of stdout' })
            .check((a) => {
              const given = [a.url, a.stateFile, a.scenario].filter((v) => v !== undefined).length;
              if (given !== 1) throw new Error('give exactly one of --url, --state-file or --scenario');
              if (typeof a.url === 'string' && !/^https?:\/\/[^/]/.test(a.url))
                throw new Error('--url must be an http(s) URL');
              return true;
            }),
        (a) => exportCommand(a as unknown as ExportArgs),
      )
      .command(
        'capture',
        'read a running GitLab (or any server speaking its API) through the REST API and git, and write a scenario',
        (y) =>
          y
            .option('url', {
              type: 'string',
              demandOption: true,
              describe: 'the instance, e.g. https://gitlab.example.com',
            })
            .option('token', {
              type: 'string',
              demandOption: true,
              describe: 'a personal access token (api or read_api)',
            })
            .option('group', {
              type: 'string',
              array: true,
              describe: 'a group to capture, subgroups included (repeatable)',
            })
            .option('project', { type: 'string', array: true, describe: 'a project to capture (repeatable)' })
            .option('with-secrets', {
              type: 'boolean',
              default: false,
              describe: "write CI variables' values",
            })
            .option('format', { choices: ['yaml', 'json'] as const, default: 'yaml' as const })
            .option('output', { alias: 'o', type: 'string', describe: 'write to FILE instead of stdout' })
            .check((a) => {
              if (!/^https?:\/\/[^/]/.test(a.url)) throw new Error('--url must be an http(s) URL');
              return true;
            }),
        (a) => captureCommand(a as unknown as import('../src/capture/command.js').CaptureArgs),
      )
      .demandCommand(1, 'name a scenario command: validate, schema, export or capture'),
  )
  .command('routes', 'list every API route, one per line', {}, () => routesCommand())
  .strict()
  .help()
  .alias('h', 'help')
  .version(version())
  .alias('v', 'version')
  .wrap(Math.min(110, process.stdout.columns || 80))
  .fail((msg, err) => {
    // Usage errors (unknown flags, failed checks) come with a message; a handler's own errors without.
    if (err instanceof CliError || !msg) throw err;
    throw new CliError(`${msg}\nRun "fauxlab --help" for usage.`, 2);
  });

// No top-level await: the bundled bin is a script, which cannot have one.
async function main(): Promise<void> {
  try {
    const missing = missingValue(hideBin(process.argv));
    if (missing) throw new CliError(`${missing} needs a value\nRun "fauxlab --help" for usage.`, 2);
    await cli.parseAsync();
  } catch (e) {
    process.stderr.write(`fauxlab: ${e instanceof Error ? e.message : String(e)}\n`);
    // A bug rather than a user error: the stack is there for whoever asks.
    if (!(e instanceof CliError) && process.env.FAUXLAB_DEBUG) console.error(e);
    process.exitCode = e instanceof CliError ? e.exitCode : 1;
  }
}

void main();
