/**
 * Protocol v2's `object-info` with many oids in one request. git's `protocol-caps.c` reads every `oid`
 * line and answers each; here a request's argument lines are bounded (`MAX_LINES`, 100,000): one past
 * the bound is refused with a protocol error before any oid is looked up, and a request at the bound
 * is answered line for line, another project's objects as unknown as ids nobody has.
 */
import { describe, expect, test } from 'vitest';
import type { Fauxlab } from '../../src/index.js';
import { DELIM, FLUSH, pkt } from '../../src/resources/git_http/pktline.js';
import { MAX_LINES } from '../../src/resources/git_http/upload.js';
import { reliabilityFx } from '../reliability/world.js';
import { expectUnharmed } from './canary.js';

const NOBODY = 'f00d'.repeat(10);

async function commit(fx: Fauxlab, project: string, content: string): Promise<string> {
  const res = await fx.app.request(`/api/v4/projects/${encodeURIComponent(project)}/repository/commits`, {
    method: 'POST',
    headers: { 'PRIVATE-TOKEN': 'root-api', 'Content-Type': 'application/json' },
    body: JSON.stringify({
      branch: 'master',
      commit_message: 'Add\n',
      actions: [{ action: 'create', file_path: 'f.txt', content }],
    }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

const objectInfo = async (fx: Fauxlab, oids: readonly string[]) => {
  const body = Buffer.concat([
    pkt('command=object-info\n'),
    DELIM,
    pkt('size\n'),
    ...oids.map((id) => pkt(`oid ${id}\n`)),
    FLUSH,
  ]);
  const res = await fx.app.request('/g-public/p.git/git-upload-pack', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-git-upload-pack-request', 'Git-Protocol': 'version=2' },
    body: new Uint8Array(body),
  });
  return { status: res.status, text: Buffer.from(await res.arrayBuffer()).toString('latin1') };
};

/** The pkt-lines of an answer, without their length prefixes (a flush as `''`). */
function lines(text: string): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length;) {
    const n = parseInt(text.slice(at, at + 4), 16);
    out.push(n === 0 ? '' : text.slice(at + 4, at + n));
    at += n === 0 ? 4 : n;
  }
  return out;
}

describe('object-info with many oids', () => {
  test(`${MAX_LINES + 1} argument lines: refused by the count bound before any lookup`, async () => {
    const fx = reliabilityFx();
    const own = await commit(fx, 'g-public/p', 'public\n');
    // `size` and 100,000 oids: one line past the bound.
    const refused = await objectInfo(
      fx,
      Array.from({ length: MAX_LINES }, () => own),
    );
    expect(refused).toEqual({
      status: 200,
      text: pkt('ERR protocol error: too many arguments\n').toString('latin1'),
    });
    await expectUnharmed(fx);
  });

  test('at the bound: every oid answered in order; a private project’s commit reads as one nobody has', async () => {
    const fx = reliabilityFx();
    const own = await commit(fx, 'g-public/p', 'public\n');
    const secret = await commit(fx, 'g-private/p', 'secret\n');
    const oids = Array.from({ length: MAX_LINES - 1 }, (_, i) => [own, secret, NOBODY][i % 3]!);
    const res = await objectInfo(fx, oids);
    expect(res.status).toBe(200);
    const got = lines(res.text);
    expect(got.length).toBe(MAX_LINES + 1);
    expect([got[0], got[got.length - 1]]).toEqual(['size', '']);
    const size = got[1]!.split(' ')[1]!;
    expect(Number(size)).toBeGreaterThan(0);
    expect(got.slice(1, 4)).toEqual([`${own} ${size}`, `${secret} `, `${NOBODY} `]);
    expect(new Set(got.slice(1, -1))).toEqual(new Set([`${own} ${size}`, `${secret} `, `${NOBODY} `]));
    await expectUnharmed(fx);
  });
});
