import { gzipSync } from 'node:zlib';
import { createFauxlab } from '../../../src/index.js';
import type { ScenarioFile } from '../../../src/scenario/schema.js';
import { packagesWorld } from './world.js';

/** The packages world with the `rubygem_packages` flag on (unless `flag: false`). */
export const gemWorld = (o: { flag?: boolean } = {}): ScenarioFile => ({
  ...packagesWorld,
  features: o.flag === false ? [] : [{ name: 'rubygem_packages', state: 'on' }],
});
export const gemFx = (o?: { flag?: boolean }) => createFauxlab({ scenario: gemWorld(o) });
export const GEMS = '/api/v4/projects/acme%2Fpkgs/packages/rubygems';

/** A ustar archive of these entries (what `gem build` writes, as far as the registry reads it). */
export function tar(entries: [string, Buffer][]): Buffer {
  const parts: Buffer[] = [];
  for (const [name, data] of entries) {
    const h = Buffer.alloc(512);
    h.write(name, 0, 100, 'utf8');
    h.write('0000644\0', 100);
    h.write('0000000\0', 108);
    h.write('0000000\0', 116);
    h.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124);
    h.write('00000000000\0', 136);
    h.write('        ', 148);
    h.write('0', 156);
    h.write('ustar\0', 257);
    h.write('00', 263);
    let sum = 0;
    for (const b of h) sum += b;
    h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    parts.push(h, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

/** A gem's `metadata.gz` YAML as `Gem::Specification#to_yaml` writes it (the fields the registry reads). */
export function gemspecYaml(name: string, version: string, deps: [string, string, string][] = []): string {
  const dependencies = deps.length
    ? `\n${deps
        .map(
          ([n, op, v]) => `- !ruby/object:Gem::Dependency
  name: ${n}
  requirement: !ruby/object:Gem::Requirement
    requirements:
    - - "${op}"
      - !ruby/object:Gem::Version
        version: '${v}'
  type: :runtime
  prerelease: false`,
        )
        .join('\n')}`
    : ' []';
  return `--- !ruby/object:Gem::Specification
name: ${name}
version: !ruby/object:Gem::Version
  version: ${version}
platform: ruby
authors:
- Tester
bindir: bin
date: 2021-03-01 00:00:00.000000000 Z
dependencies:${dependencies}
files: []
require_paths:
- lib
summary: A test gem
`;
}

/** A `.gem` of this name and version (its metadata.gz; data.tar.gz stands in). */
export const gem = (name: string, version: string, deps: [string, string, string][] = []) =>
  tar([
    ['metadata.gz', gzipSync(gemspecYaml(name, version, deps))],
    ['data.tar.gz', gzipSync(tar([['lib/x.rb', Buffer.from('X = 1\n')]]))],
  ]);
