/**
 * The input surfaces that keeping every ref, push options and partial clone open: floods and huge values
 * of push options, ref names of odd bytes and prototype keys, filter specs that are huge, nested or ask
 * for an unbounded depth. Each is refused by a bound before the work, or served exactly, and the
 * instance goes on serving others.
 */
import { describe, expect, test } from 'vitest';
import type { Fauxlab } from '../../src/index.js';
import { MAX_PUSH_OPTION_BYTES, MAX_PUSH_OPTIONS } from '../../src/resources/git_http/receive.js';
import { MAX_COMBINE_DEPTH, MAX_FILTER_SPEC } from '../../src/resources/git_http/filter.js';
import { DELIM, FLUSH, pkt } from '../../src/resources/git_http/pktline.js';
import { ObjectStore } from '../../src/resources/repository/objects.js';
import { writePack } from '../../src/resources/repository/pack.js';
import { reliabilityFx } from '../reliability/world.js';
import { expectUnharmed } from './canary.js';

const ZERO = '0'.repeat(40);
const EMPTY_PACK = writePack(new ObjectStore(), []);
const basic = { Authorization: `Basic ${Buffer.from('dev:dev-api').toString('base64')}` };

async function head(fx: Fauxlab): Promise<string> {
  const res = await fx.app.request('/api/v4/projects/g-public%2Fp/repository/branches/master', {
    headers: { 'PRIVATE-TOKEN': 'dev-api' },
  });
  return ((await res.json()) as { commit: { id: string } }).commit.id;
}

/** A push of `commands` (raw bytes each) with `options`, as git sends it with `push-options`. */
async function push(fx: Fauxlab, commands: Buffer[], options: Buffer[] = [], pack = EMPTY_PACK) {
  const caps = Buffer.from('\0report-status side-band-64k push-options\n');
  const body = Buffer.concat([
    ...commands.map((c, i) =>
      pkt(i === 0 ? Buffer.concat([c, caps]) : Buffer.concat([c, Buffer.from('\n')])),
    ),
    FLUSH,
    ...options.map((o) => pkt(o)),
    FLUSH,
    pack,
  ]);
  const res = await fx.app.request('/g-public/p.git/git-receive-pack', {
    method: 'POST',
    headers: basic,
    body: new Uint8Array(body),
  });
  return { status: res.status, text: Buffer.from(await res.arrayBuffer()).toString('latin1') };
}

async function fetchV2(fx: Fauxlab, args: string[]) {
  const body = Buffer.concat([pkt('command=fetch\n'), DELIM, ...args.map((a) => pkt(`${a}\n`)), FLUSH]);
  const res = await fx.app.request('/g-public/p.git/git-upload-pack', {
    method: 'POST',
    headers: { 'Git-Protocol': 'version=2' },
    body: new Uint8Array(body),
  });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer()).toString('latin1');
}

async function lsRemote(fx: Fauxlab): Promise<string> {
  const res = await fx.app.request('/g-public/p.git/info/refs?service=git-upload-pack');
  return Buffer.from(await res.arrayBuffer()).toString('latin1');
}

describe('push options', () => {
  test('a flood past the count bound is refused before anything is read; the bound itself is served', async () => {
    const fx = reliabilityFx();
    const id = await head(fx);
    const cmd = Buffer.from(`${ZERO} ${id} refs/notes/flood`);
    const many = Array.from({ length: MAX_PUSH_OPTIONS + 1 }, (_, i) => Buffer.from(`mr.label=l${i}`));
    const refused = await push(fx, [cmd], many);
    expect(refused).toEqual({ status: 400, text: 'protocol error: too many push options' });
    expect(await lsRemote(fx)).not.toContain('refs/notes/flood');
    const ok = await push(fx, [cmd], many.slice(0, MAX_PUSH_OPTIONS));
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('ok refs/notes/flood');
    await expectUnharmed(fx);
  });

  test('option bytes past their bound are refused; a huge title within it is refused by the title rule', async () => {
    const fx = reliabilityFx();
    const id = await head(fx);
    // Each option is one pkt-line (at most 65,516 bytes): enough of them pass the bytes' bound.
    const piece = Buffer.from(`merge_request.description=${'d'.repeat(60_000)}`);
    const huge = Array.from({ length: Math.ceil(MAX_PUSH_OPTION_BYTES / piece.length) + 1 }, () => piece);
    const refused = await push(fx, [Buffer.from(`${ZERO} ${id} refs/heads/big`)], huge);
    expect(refused).toEqual({ status: 400, text: 'protocol error: push options too large' });
    const long = Buffer.from(`merge_request.title=${'t'.repeat(60_000)}`);
    const r = await push(
      fx,
      [Buffer.from(`${ZERO} ${id} refs/heads/big`)],
      [Buffer.from('merge_request.create'), long],
    );
    expect(r.status).toBe(200);
    expect(r.text).toContain('ok refs/heads/big');
    expect(r.text).toContain('Title is too long (maximum is 255 characters)');
    const mrs = await fx.app.request('/api/v4/projects/g-public%2Fp/merge_requests?source_branch=big', {
      headers: { 'PRIVATE-TOKEN': 'dev-api' },
    });
    expect(await mrs.json()).toEqual([]);
    await expectUnharmed(fx);
  });
});

describe('ref names', () => {
  test('odd bytes and check-ref-format breaches are funny refnames; prototype keys are plain refs', async () => {
    const fx = reliabilityFx();
    const id = await head(fx);
    const odd = [
      Buffer.concat([Buffer.from('refs/notes/'), Buffer.from([0xff, 0xfe])]),
      Buffer.from('refs/notes/a\x01b'),
      Buffer.from('refs/notes/a..b'),
      Buffer.from('refs/notes/a@{1}'),
      Buffer.from('refs/notes/x.lock/y'),
      Buffer.from('refs/notes/.hidden'),
      Buffer.from('refs/notes//double'),
      Buffer.from('refs/__proto__'),
    ];
    const r = await push(
      fx,
      odd.map((name) => Buffer.concat([Buffer.from(`${ZERO} ${id} `), name])),
    );
    expect(r.status).toBe(200);
    expect(r.text.match(/ng \S+ funny refname/g)).toHaveLength(odd.length);
    for (const name of ['refs/__proto__/constructor', 'refs/notes/__proto__', 'refs/notes/hasOwnProperty']) {
      const ok = await push(fx, [Buffer.from(`${ZERO} ${id} ${name}`)]);
      expect(ok.text).toContain(`ok ${name}`);
    }
    const ls = await lsRemote(fx);
    expect(ls).toContain(`${id} refs/__proto__/constructor\n`);
    expect(ls).toContain(`${id} refs/notes/__proto__\n`);
    expect(ls).not.toContain('a..b');
    await expectUnharmed(fx);
  });
});

describe('filter specs', () => {
  test('a huge spec, a deep combine and an unbounded tree depth are refused with git words before a walk', async () => {
    const fx = reliabilityFx();
    const id = await head(fx);
    const huge = await fetchV2(fx, [
      `want ${id}`,
      `filter blob:limit=${'9'.repeat(MAX_FILTER_SPEC)}`,
      'done',
    ]);
    expect(huge).toMatch(/^[0-9a-f]{4}ERR invalid filter-spec 'blob:limit=9+\.\.\.'\n$/);
    let nested = 'blob:none';
    for (let i = 0; i <= MAX_COMBINE_DEPTH; i++) nested = `combine:${encodeURIComponent(nested)}+tree:3`;
    const deep = await fetchV2(fx, [`want ${id}`, `filter ${nested}`, 'done']);
    expect(deep).toContain('ERR invalid filter-spec');
    const overflow = await fetchV2(fx, [`want ${id}`, 'filter tree:99999999999999999999', 'done']);
    expect(overflow).toContain("ERR expected 'tree:<depth>'");
    // The largest depth git parses is served as no tree filter at all: the same pack.
    const full = await fetchV2(fx, [`want ${id}`, 'done']);
    const deepest = await fetchV2(fx, [`want ${id}`, 'filter tree:4294967295', 'done']);
    expect(deepest).toBe(full);
    await expectUnharmed(fx);
  });
});
