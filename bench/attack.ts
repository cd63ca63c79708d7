/**
 * `npm run attack`: each attack the security tests reproduce, run against a fauxlab server on 127.0.0.1
 * (a child process on an ephemeral port) while a canary client sends `GET /api/v4/version` one request
 * at a time. Reports, per attack, the requests sent and their statuses, the canary's p50/p99/max latency
 * and the server's peak RSS (sampled from /proc every 20 ms). Each attack is bounded in requests and in
 * time (ATTACK_SECONDS, default 6), and the script stops the server and exits by itself.
 *
 * Target: canary p99 under 100 ms and peak RSS under 1 GB for every attack but the control plane's own
 * (legitimate) scenario loads.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { request, Agent } from 'node:http';
import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ObjectStore } from '../src/resources/repository/objects.js';
import { writePack } from '../src/resources/repository/pack.js';
import { FLUSH, pkt } from '../src/resources/git_http/pktline.js';
import { deflateSync, gzipSync } from 'node:zlib';

const SECONDS = Number(process.env.ATTACK_SECONDS ?? 6);
/** `ATTACK_ONLY=npm,PyPI`: only the attacks whose names contain one of these words. */
const ONLY = (process.env.ATTACK_ONLY ?? '').split(',').filter((w) => w !== '');
const ADMIN = 'attack-admin-token';
const MALLORY = 'attack-mallory-token';
const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'bin', 'fauxlab.js');

interface Sent {
  status: number;
}

/** One HTTP request with a raw Host header and body (fetch may not set Host). */
function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer,
) {
  return new Promise<Sent>((resolve) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent: attackAgent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
    });
    req.on('error', () => resolve({ status: 0 }));
    req.end(body);
  });
}
const attackAgent = new Agent({ keepAlive: true, maxSockets: 8 });
const canaryAgent = new Agent({ keepAlive: true, maxSockets: 1 });

interface Attack {
  name: string;
  /** Requests at most (across the concurrent loops). */
  count: number;
  concurrency: number;
  /** Sends one request of the attack. */
  once: (port: number, i: number) => Promise<number>;
  /** Not held to the target: the control plane's own legitimate work. */
  exempt?: boolean;
}

const json = (o: unknown) => JSON.stringify(o);
const post = (port: number, path: string, body: string, type = 'application/json', extra = {}) =>
  send(
    port,
    'POST',
    path,
    { 'Content-Type': type, 'Content-Length': String(Buffer.byteLength(body)), ...extra },
    body,
  ).then((r) => r.status);
const put = (port: number, path: string, body: string, type = 'application/json', extra = {}) =>
  send(
    port,
    'PUT',
    path,
    { 'Content-Type': type, 'Content-Length': String(Buffer.byteLength(body)), ...extra },
    body,
  ).then((r) => r.status);
const get = (port: number, path: string, extra = {}) => send(port, 'GET', path, extra).then((r) => r.status);

/** npm publish documents: a `__proto__` package, dist-tag and dependency; base64 past the instance bound. */
const npmDoc = (version: string, data: string, length: number) =>
  `{"name":"@mallory/__proto__","dist-tags":{"__proto__":"${version}"},"versions":{"${version}":` +
  `{"dist":{"shasum":"x"},"dependencies":{"__proto__":"1"}}},"_attachments":{"@mallory/__proto__-${version}.tgz":` +
  `{"data":"${data}","length":${length}}}}`;
const NPM_BIG = 'A'.repeat(3 << 20);
const NPM_ATTACK = [
  (i: number) => npmDoc(`1.0.${i}`, 'eA==', 1),
  (i: number) => npmDoc(`2.0.${i}`, NPM_BIG, 10),
];
const PYPI_BOUNDARY = 'fauxlabattack';
/** A twine-style upload of `__proto__` version `1.0.<i>` whose file name climbs out. */
const pypiAttackBody = (i: number) =>
  [
    ['name', '__proto__'],
    ['version', `1.0.${i}`],
    ['requires_python', ''],
    ['constructor[prototype][polluted]', 'yes'],
  ]
    .map(([k, v]) => `--${PYPI_BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
    .join('') +
  `--${PYPI_BOUNDARY}\r\nContent-Disposition: form-data; name="content"; filename="../../etc/passwd.whl"\r\n` +
  `Content-Type: application/octet-stream\r\n\r\nwheel\r\n--${PYPI_BOUNDARY}--\r\n`;

/** The address forms `Gitlab::UrlBlocker` refuses (PORT: the server's own). */
const LOCAL_URLS = [
  'http://127.0.0.1:PORT/__fauxlab/reset',
  'http://[::ffff:127.0.0.1]:PORT/__fauxlab/reset',
  'http://2130706433:PORT/__fauxlab/reset',
  'http://0x7f.1:PORT/__fauxlab/reset',
  'http://0177.0.0.1:PORT/__fauxlab/reset',
  'http://[::1]:PORT/',
  'http://0.0.0.0:PORT/',
  'http://169.254.169.254/latest/meta-data',
  'http://10.0.0.1/',
  'http://localhost:PORT/',
];

const markdown = (text: string) => json({ text, gfm: true });
const MD = {
  over: markdown('a'.repeat(2 * 1024 * 1024)),
  cap: markdown('lorem *ipsum* dolor [sit](http://x.test) amet. '.repeat(20_833).slice(0, 999_990)),
  stars: markdown('*a'.repeat(25_000)),
  links: markdown('[a]('.repeat(20_000)),
  quotes: markdown('>'.repeat(3_000) + ' x'),
};
/** Renders of one text, two at a time. */
const markdownAttack = (name: string, count: number, body: string): Attack => ({
  name,
  count,
  concurrency: 2,
  once: (port) => post(port, '/api/v4/markdown', body),
});
const manyParams = 'a=1&'.repeat(1_000_000) + 'title=t';

/**
 * The ids of the git object attacks' world (see `startServer`): a private `root/vault` with a commit
 * of a blob of its own, and `mallory` (no member of it) with her `mallory/loot`; read once.
 */
interface Vault {
  commit: string;
  blob: string;
  auth: string;
  /** The head of the public `acme/app`, for the fetches. */
  head: string;
}
let vault: Promise<Vault> | undefined;
async function api(port: number, method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`http://127.0.0.1:${port}/api/v4${path}`, {
    method,
    headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : json(body),
  });
  return (await res.json()) as Record<string, any>;
}
async function makeVault(port: number): Promise<Vault> {
  const vaultHead = await api(port, 'GET', '/projects/root%2Fvault/repository/branches/master', ADMIN);
  const tree = (await api(port, 'GET', '/projects/root%2Fvault/repository/tree', ADMIN)) as unknown as {
    path: string;
    id: string;
  }[];
  const app = await api(port, 'GET', '/projects/acme%2Fapp/repository/branches/master', ADMIN);
  return {
    commit: vaultHead.commit.id,
    blob: tree.find((e) => e.path === 'secret.txt')!.id,
    auth: `Basic ${Buffer.from(`mallory:${MALLORY}`).toString('base64')}`,
    head: app.commit.id,
  };
}
const ZERO = '0'.repeat(40);
const WHO = { name: 'Mallory', email: 'mallory@example.com', time: 1614600000 };
/** A new branch at `next`, with `objects` packed. */
const pushBody = (next: string, ref: string, objects: ObjectStore, ids: string[]) =>
  Buffer.concat([pkt(`${ZERO} ${next} ${ref}\0report-status\n`), FLUSH, writePack(objects, ids)]);
/**
 * One of the pushes naming the vault's objects (an empty pack naming its commit, a tree of its blob, a
 * commit on its commit), or a fetch with 1,000 `have` lines of its commit. The status is 599 when the
 * answer is not the refusal of an id nobody has (`missing necessary objects`, no ACK).
 */
async function vaultAttack(port: number, i: number): Promise<number> {
  const v = await (vault ??= makeVault(port));
  const objects = new ObjectStore();
  const ref = `refs/heads/stolen-${i}`;
  let path = '/mallory/loot.git/git-receive-pack';
  let headers: Record<string, string> = { Authorization: v.auth };
  let body: Buffer;
  if (i % 4 === 0) body = pushBody(v.commit, ref, objects, []);
  else if (i % 4 === 3) {
    path = '/acme/app.git/git-upload-pack';
    headers = { 'Content-Type': 'application/x-git-upload-pack-request' };
    const haves = Array.from({ length: 1_000 }, () => pkt(`have ${v.commit}\n`));
    body = Buffer.concat([pkt(`want ${v.head} multi_ack_detailed no-progress\n`), FLUSH, ...haves, FLUSH]);
  } else {
    const own = objects.putBlob(Buffer.from(`mine ${i}\n`));
    const tree = objects.putTree([{ mode: '100644', name: 'loot.txt', id: i % 4 === 1 ? v.blob : own }]);
    const parents = i % 4 === 2 ? [v.commit] : [];
    const c = objects.putCommit({ tree, parents, author: WHO, committer: WHO, message: `Mine ${i}\n` });
    body = pushBody(c, ref, objects, i % 4 === 1 ? [c, tree] : [c, tree, own]);
  }
  const res = await new Promise<{ status: number; text: string }>((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path,
        headers: { ...headers, 'Content-Length': String(body.length) },
        agent: attackAgent,
      },
      (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => resolve({ status: r.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', () => resolve({ status: 0, text: '' }));
    req.end(body);
  });
  const refused =
    i % 4 === 3
      ? res.text === pkt('NAK\n').toString()
      : res.text.includes(`ng ${ref} missing necessary objects`);
  return refused ? res.status : 599;
}
// Git's formats, as much of them as the pack attacks need: pkt-lines, object ids, pack entries.
const pktLine = (s: string | Buffer) => {
  const b = Buffer.from(s);
  return Buffer.concat([Buffer.from((b.length + 4).toString(16).padStart(4, '0')), b]);
};
const objectId = (type: string, data: Buffer) =>
  createHash('sha1').update(`${type} ${data.length}\0`).update(data).digest('hex');
function entryHeader(code: number, size: number): Buffer {
  const out = [(code << 4) | (size & 0x0f)];
  for (let rest = Math.floor(size / 16); rest > 0; rest = Math.floor(rest / 128)) {
    out[out.length - 1]! |= 0x80;
    out.push(rest & 0x7f);
  }
  return Buffer.from(out);
}
const CODES: Record<string, number> = { commit: 1, tree: 2, blob: 3 };
const packed = (type: string, data: Buffer) =>
  Buffer.concat([entryHeader(CODES[type]!, data.length), deflateSync(data)]);

/**
 * A push of 7,000 REF_DELTA entries in two chains of 3,500, each delta listed before the one it is
 * made from and the whole blobs last (the order that made delta resolution quadratic), with the
 * commit and tree naming every blob; `ref` is the branch it creates.
 */
function baseLastPush(): (ref: string) => Buffer {
  const blobs: string[] = [];
  const deltas: Buffer[][] = [];
  const bases: Buffer[] = [];
  for (const name of ['a', 'b']) {
    let data: Buffer = Buffer.from(`${name} `.repeat(28));
    bases.push(data);
    let id = objectId('blob', data);
    blobs.push(id);
    const chain: Buffer[] = [];
    for (let i = 0; i < 3_500; i++) {
      const tail = Buffer.from(String(i).padStart(8, '0'));
      // Keep the base's first 48 bytes, append the 8 of the counter.
      const delta = Buffer.from([data.length, 56, 0x90, 48, 8, ...tail]);
      chain.push(Buffer.concat([entryHeader(7, delta.length), Buffer.from(id, 'hex'), deflateSync(delta)]));
      data = Buffer.concat([data.subarray(0, 48), tail]);
      id = objectId('blob', data);
      blobs.push(id);
    }
    deltas.push(chain);
  }
  const names = blobs.map((id, i) => ({ name: `f${i}`, id }));
  names.sort((x, y) => Buffer.compare(Buffer.from(x.name), Buffer.from(y.name)));
  const tree = Buffer.concat(
    names.map((e) => Buffer.concat([Buffer.from(`100644 ${e.name}\0`), Buffer.from(e.id, 'hex')])),
  );
  const who = 'Root <root@example.com> 1614600000 +0000';
  const commit = Buffer.from(`tree ${objectId('tree', tree)}\nauthor ${who}\ncommitter ${who}\n\ndeltas\n`);
  const entries: Buffer[] = [packed('commit', commit), packed('tree', tree)];
  for (let i = 3_499; i >= 0; i--) for (const chain of deltas) entries.push(chain[i]!);
  for (const b of bases) entries.push(packed('blob', b));
  const head = Buffer.alloc(12);
  head.write('PACK', 0, 'latin1');
  head.writeUInt32BE(2, 4);
  head.writeUInt32BE(entries.length, 8);
  const body = Buffer.concat([head, ...entries]);
  const pack = Buffer.concat([body, createHash('sha1').update(body).digest()]);
  const id = objectId('commit', commit);
  return (ref) =>
    Buffer.concat([
      pktLine(`${'0'.repeat(40)} ${id} ${ref}\0report-status side-band-64k\n`),
      Buffer.from('0000'),
      pack,
    ]);
}
const deltaPush = baseLastPush();
const gitAuth = { Authorization: `Basic ${Buffer.from(`root:${ADMIN}`).toString('base64')}` };
const gitPost = (port: number, service: string, body: Buffer, extra: Record<string, string> = {}) =>
  send(
    port,
    'POST',
    `/acme/app.git/${service}`,
    {
      'Content-Type': `application/x-${service}-request`,
      'Content-Length': String(body.length),
      ...gitAuth,
      ...extra,
    },
    body,
  ).then((r) => r.status);
/** `member` gzipped once, repeated: gzip members concatenate, so a 4 GiB bomb costs one gzip. */
const gzipBomb = (member: Buffer, times: number) =>
  Buffer.concat(Array<Buffer>(times).fill(gzipSync(member)));
const GZ = {
  zeros: gzipBomb(Buffer.alloc(64 * 1024 * 1024), 64),
  haves: gzipBomb(Buffer.concat(Array<Buffer>(20_000).fill(pktLine(`have ${'a'.repeat(40)}\n`))), 64),
};
/** A tar.gz of one 800 MiB file of zeros as 800 gzip members of 1 MiB each: 0.8 MiB on the wire. */
function zeroBomb(): Buffer {
  const h = Buffer.alloc(512);
  h.write('project.bundle', 0);
  h.write('0000644\0', 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write((800 * 1024 * 1024).toString(8).padStart(11, '0') + '\0', 124);
  h.write('00000000000\0', 136);
  h.write('        ', 148);
  h.write('0', 156);
  h.write('ustar\0' + '00', 257);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  const member = gzipSync(Buffer.alloc(1024 * 1024), { level: 9 });
  return Buffer.concat([gzipSync(h), ...Array<Buffer>(800).fill(member), gzipSync(Buffer.alloc(1024))]);
}
const BOMB = zeroBomb();
/** A multipart import request of the bomb, as a client's FormData encodes it. */
async function importBody(path: string): Promise<{ type: string; body: Buffer }> {
  const form = new FormData();
  form.append('path', path);
  form.append('file', new Blob([new Uint8Array(BOMB)], { type: 'application/gzip' }), 'bomb.tar.gz');
  const req = new Request('http://x/', { method: 'POST', body: form });
  return { type: req.headers.get('content-type')!, body: Buffer.from(await req.arrayBuffer()) };
}

/** A push to acme/app of `refs` (each at `next`, an empty pack) with `options` (push-options). */
const optionsPush = (next: string, refs: Buffer[], options: Buffer[]) =>
  Buffer.concat([
    ...refs.map((r, i) =>
      pktLine(
        Buffer.concat([
          Buffer.from(`${ZERO} ${next} `),
          r,
          Buffer.from(i === 0 ? '\0report-status side-band-64k push-options\n' : '\n'),
        ]),
      ),
    ),
    Buffer.from('0000'),
    ...options.map((o) => pktLine(o)),
    Buffer.from('0000'),
    writePack(new ObjectStore(), []),
  ]);
const OPTION_FLOOD = Array.from({ length: 1_001 }, (_, i) => Buffer.from(`mr.label=l${i}`));
const OPTION_BYTES = Array.from({ length: 5 }, () => Buffer.from(`mr.description=${'d'.repeat(60_000)}`));
const ODD_REFS = (i: number) => [
  Buffer.concat([Buffer.from(`refs/notes/${i}-`), Buffer.from([0xff, 0xfe, 0x80])]),
  Buffer.from(`refs/notes/${i}..x`),
  Buffer.from(`refs/__proto__/${i}`),
  Buffer.from(`refs/notes/constructor-${i}`),
];
const FILTERS = [
  `blob:limit=${'9'.repeat(5_000)}`,
  Array.from({ length: 6 }).reduce<string>((f) => `combine:${encodeURIComponent(f)}+tree:1`, 'blob:none'),
  'tree:99999999999999999999',
  'tree:4294967295',
];
const fetchV2Body = (want: string, filter: string) =>
  Buffer.concat([
    pktLine('command=fetch\n'),
    Buffer.from('0001'),
    pktLine(`want ${want}\n`),
    pktLine(`filter ${filter}\n`),
    pktLine('done\n'),
    Buffer.from('0000'),
  ]);

/**
 * v2 `object-info` asking for `n` oids (`size` first): the vault's private commit, app's head and an
 * id nobody has, in turn. `MAX_LINES` (100,000) argument lines are answered; one more is refused.
 */
const objectInfoBody = (v: Vault, n: number) =>
  Buffer.concat([
    pktLine('command=object-info\n'),
    Buffer.from('0001'),
    pktLine('size\n'),
    ...Array.from({ length: n }, (_, i) => pktLine(`oid ${[v.commit, v.head, 'f00d'.repeat(10)][i % 3]!}\n`)),
    Buffer.from('0000'),
  ]);
let objectInfoBodies: Promise<Buffer[]> | undefined;

const ATTACKS: Attack[] = [
  {
    name: 'prototype keys in query, form, JSON',
    count: 3_000,
    concurrency: 4,
    once: (port, i) =>
      i % 3 === 0
        ? get(
            port,
            `/api/v4/version?__proto__[sudo]=root&a[__proto__][x]=1&b[][__proto__][y]=1&constructor[prototype][z]=1`,
          )
        : i % 3 === 1
          ? post(
              port,
              '/api/v4/markdown',
              '__proto__[polluted]=yes&text=x',
              'application/x-www-form-urlencoded',
            )
          : post(port, '/api/v4/markdown', '{"text":"x","__proto__":{"polluted":"yes"}}'),
  },
  {
    name: 'feature flags and uploads named __proto__',
    count: 1_000,
    concurrency: 4,
    once: (port, i) =>
      post(
        port,
        `/api/v4/features/${['__proto__', 'constructor', 'toString'][i % 3]}?value=true`,
        '',
        'application/json',
        {
          'PRIVATE-TOKEN': ADMIN,
        },
      ),
  },
  markdownAttack('markdown over the cap (2 MiB)', 30, MD.over),
  markdownAttack('markdown at the cap (1,000,000 chars)', 4, MD.cap),
  markdownAttack('markdown *a x 25,000', 40, MD.stars),
  markdownAttack('markdown [a]( x 20,000', 40, MD.links),
  markdownAttack('markdown > x 3,000', 200, MD.quotes),
  {
    name: 'scenario generate users: 10,000,000',
    count: 50,
    concurrency: 2,
    once: (port) => post(port, '/__fauxlab/scenario', json({ generate: { users: 10_000_000 } })),
  },
  {
    name: 'scenario extends /etc/passwd',
    count: 500,
    concurrency: 4,
    once: (port) => post(port, '/__fauxlab/scenario', json({ extends: '/etc/passwd' })),
  },
  {
    name: 'journal filter /**a**a**b over long paths',
    count: 200,
    concurrency: 2,
    once: (port, i) =>
      i % 2 === 0
        ? get(port, `/${'a'.repeat(8_000)}${i}`)
        : get(port, `/__fauxlab/requests?path=${encodeURIComponent('/**a**a**a**a**b')}`),
  },
  {
    name: 'cross-origin POSTs (text/plain; JSON with Origin), rebound Host',
    count: 3_000,
    concurrency: 4,
    once: (port, i) =>
      i % 3 === 0
        ? post(port, '/__fauxlab/reset', '{}', 'text/plain')
        : i % 3 === 1
          ? post(port, '/__fauxlab/reset', '{}', 'application/json', { Origin: 'http://evil.test' })
          : get(port, '/__fauxlab/state', { Host: 'evil.test' }),
  },
  {
    name: 'form body with 1,000,000 params (9.9 MB)',
    count: 10,
    concurrency: 2,
    once: (port) =>
      post(port, '/api/v4/projects/1/issues', manyParams, 'application/x-www-form-urlencoded', {
        'PRIVATE-TOKEN': ADMIN,
      }),
  },
  {
    name: 'clients closing mid-body',
    count: 500,
    concurrency: 4,
    once: (port) =>
      new Promise<number>((resolve) => {
        const s = connect(port, '127.0.0.1', () => {
          s.write(
            'POST /api/v4/markdown HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"text":"a',
          );
          setTimeout(() => {
            s.destroy();
            resolve(499);
          }, 5);
        });
        s.on('error', () => resolve(0));
      }),
  },
  {
    name: "pushes naming a private project's commit, blob, parent",
    count: 2_000,
    concurrency: 4,
    once: vaultAttack,
  },
  {
    name: 'push of 7,000 deltas listed base-last (281 KiB)',
    count: 20,
    concurrency: 2,
    once: (port, i) => gitPost(port, 'git-receive-pack', deltaPush(`refs/heads/deltas-${i}`)),
  },
  {
    name: 'gzip bombs to git RPCs (4 GiB zeros, 64 MB haves)',
    count: 200,
    concurrency: 2,
    once: (port, i) =>
      gitPost(port, i % 3 === 2 ? 'git-receive-pack' : 'git-upload-pack', i % 3 === 1 ? GZ.haves : GZ.zeros, {
        'Content-Encoding': 'gzip',
      }),
  },
  {
    // `Gitlab::UntrustedRegexp`: 2.4-3.9 s per match on a backtracking engine against 200 `a`s.
    name: 'rules: if $X =~ /.{0,33}.{0,33}.{0,33}.{0,33}!/ (pipelines)',
    count: 200,
    concurrency: 2,
    once: (port) =>
      post(
        port,
        '/api/v4/projects/acme%2Fci/pipeline',
        json({ ref: 'master', variables: [{ key: 'X', value: 'a'.repeat(2_000) }] }),
        'application/json',
        { 'PRIVATE-TOKEN': ADMIN },
      ),
  },
  {
    // A maintainer's `^(a|aa)+$` and `(x+x+)+y` on commits: 2^40 steps each when backtracking.
    name: 'push rules ^(a|aa)+$, (x+x+)+y on commits',
    count: 400,
    concurrency: 2,
    once: (port, i) =>
      post(
        port,
        '/api/v4/projects/acme%2Frules/repository/commits',
        json({
          branch: i % 2 === 0 ? `${'a'.repeat(40)}b` : `${'a'.repeat(40)}`,
          ...(i === 1 ? { start_branch: 'master' } : {}),
          commit_message: 'x'.repeat(5_000),
          actions: [{ action: 'create', file_path: `f${i}.txt`, content: 'x' }],
        }),
        'application/json',
        { 'PRIVATE-TOKEN': ADMIN },
      ),
  },
  {
    // A hook on every local address form (refused when saved: 422), one on another host's control
    // plane (saved: the name is not resolved then), and issues that fire it (each delivery refused).
    name: 'hooks on local and control-plane URLs',
    count: 1_000,
    concurrency: 2,
    once: (port, i) =>
      i === 0
        ? post(
            port,
            '/api/v4/projects/1/hooks',
            json({ url: 'http://cp.test/__fauxlab/reset', issues_events: true }),
            undefined,
            { 'PRIVATE-TOKEN': ADMIN },
          )
        : i % 2 === 1
          ? post(
              port,
              '/api/v4/projects/1/hooks',
              json({ url: LOCAL_URLS[i % LOCAL_URLS.length]!.replace('PORT', String(port)) }),
              undefined,
              { 'PRIVATE-TOKEN': ADMIN },
            )
          : post(port, '/api/v4/projects/1/issues', json({ title: `fire ${i}` }), undefined, {
              'PRIVATE-TOKEN': ADMIN,
            }),
  },
  {
    name: 'import of a gzip bomb: 800 MiB of zeros in 0.8 MiB',
    count: 6,
    concurrency: 2,
    once: async (port, i) => {
      const { type, body } = await importBody(`bomb-${i}`);
      return send(
        port,
        'POST',
        '/api/v4/projects/import',
        { 'Content-Type': type, 'Content-Length': String(body.length), 'PRIVATE-TOKEN': ADMIN },
        body,
      ).then((r) => r.status);
    },
  },
  {
    name: 'file paths git refuses (NUL, a//b, .git, ..)',
    count: 1_000,
    concurrency: 4,
    once: (port, i) =>
      post(
        port,
        `/api/v4/projects/acme%2Fapp/repository/files/${['nul%00byte.txt', 'a%2F%2Fb', '.git%2Fconfig', '..%2Fx'][i % 4]}`,
        json({ branch: 'master', commit_message: 'x', content: 'x' }),
        'application/json',
        { 'PRIVATE-TOKEN': ADMIN },
      ),
  },
  {
    name: 'push options: 1,001 of them, 300 KB of them, odd-byte and prototype ref names',
    count: 400,
    concurrency: 2,
    once: async (port, i) => {
      const v = await (vault ??= makeVault(port));
      const body =
        i % 3 === 0
          ? optionsPush(v.head, [Buffer.from(`refs/notes/o${i}`)], OPTION_FLOOD)
          : i % 3 === 1
            ? optionsPush(v.head, [Buffer.from(`refs/notes/o${i}`)], OPTION_BYTES)
            : optionsPush(v.head, ODD_REFS(i), [Buffer.from('mr.create')]);
      return gitPost(port, 'git-receive-pack', body);
    },
  },
  {
    name: 'filter specs: 5,000 bytes, combine 6 deep, tree:<2^64>, tree:<2^32-1> (v2 fetch)',
    count: 400,
    concurrency: 2,
    once: async (port, i) => {
      const v = await (vault ??= makeVault(port));
      return gitPost(port, 'git-upload-pack', fetchV2Body(v.head, FILTERS[i % FILTERS.length]!), {
        'Git-Protocol': 'version=2',
      });
    },
  },
  {
    name: 'object-info (v2): 99,999 and 100,000 oids, a private commit among them',
    count: 200,
    concurrency: 2,
    once: async (port, i) => {
      const bodies = await (objectInfoBodies ??= (vault ??= makeVault(port)).then((v) => [
        objectInfoBody(v, 99_999),
        objectInfoBody(v, 100_000),
      ]));
      return gitPost(port, 'git-upload-pack', bodies[i % 2]!, { 'Git-Protocol': 'version=2' });
    },
  },
  {
    name: 'terraform state: prototype names, 100,000-char lock IDs, forged module JWTs',
    count: 1_200,
    concurrency: 4,
    once: (port, i) => {
      const base = '/api/v4/projects/acme%2Fapp/terraform/state';
      const name = ['__proto__', 'constructor', 'toString'][i % 3]!;
      if (i % 4 === 0)
        return post(port, `${base}/${name}`, json({ serial: i, lineage: 'l' }), undefined, {
          'PRIVATE-TOKEN': ADMIN,
        });
      if (i % 4 === 1)
        return post(
          port,
          `${base}/${name}/lock`,
          json({
            ID: 'i'.repeat(100_000),
            Operation: 'o',
            Info: '',
            Who: 'w',
            Version: '1',
            Created: 'c',
            Path: '',
          }),
          undefined,
          { 'PRIVATE-TOKEN': ADMIN },
        );
      if (i % 4 === 2)
        return send(
          port,
          'PUT',
          `/api/v4/projects/acme%2Fapp/packages/terraform/modules/..%2F..%2F${name}/aws/1.0.${i}/file`,
          { 'PRIVATE-TOKEN': ADMIN, 'Content-Length': '3' },
          'abc',
        ).then((r) => r.status);
      return send(
        port,
        'GET',
        `/api/v4/packages/terraform/modules/v1/acme/m/aws/1.0.0/file?token=e30.${Buffer.from(json({ token: 1, exp: 9e9 })).toString('base64url')}.x`,
        {},
      ).then((r) => r.status);
    },
  },
  {
    name: 'npm publishes named __proto__, 3 MiB of base64 declaring 10 bytes',
    count: 400,
    concurrency: 2,
    once: (port, i) =>
      put(
        port,
        '/api/v4/projects/mallory%2Fpkgs/packages/npm/@mallory%2f__proto__',
        NPM_ATTACK[i % 2]!(i),
        'application/json',
        {
          Authorization: `Bearer ${MALLORY}`,
        },
      ),
  },
  {
    name: 'PyPI uploads named __proto__ with ../ file names; index paths with ..',
    count: 1_000,
    concurrency: 2,
    once: (port, i) =>
      i % 2
        ? get(port, '/api/v4/projects/mallory%2Fpkgs/packages/pypi/simple/..%2F..%2Fsecret', {
            'PRIVATE-TOKEN': MALLORY,
          })
        : post(
            port,
            '/api/v4/projects/mallory%2Fpkgs/packages/pypi',
            pypiAttackBody(i),
            `multipart/form-data; boundary=${PYPI_BOUNDARY}`,
            {
              'PRIVATE-TOKEN': MALLORY,
            },
          ),
  },
  {
    name: 'Maven deploys to __proto__ paths with encoded ../ segments; climbing file names',
    count: 1_000,
    concurrency: 2,
    once: (port, i) =>
      i % 2
        ? put(
            port,
            '/api/v4/projects/mallory%2Fpkgs/packages/maven/a/b/1.0/..%2F..%2Fetc%2Fpasswd',
            'x',
            'application/octet-stream',
            {
              'PRIVATE-TOKEN': MALLORY,
            },
          )
        : put(
            port,
            `/api/v4/projects/mallory%2Fpkgs/packages/maven/__proto__/..%2F..%2Fconstructor/${i}/__proto__.jar`,
            `jar ${i}`,
            'application/octet-stream',
            { 'PRIVATE-TOKEN': MALLORY },
          ),
  },
  {
    name: 'invitation queries %a%a%a%a%a%a%b over 200-a addresses; access requests with __proto__',
    count: 1_000,
    concurrency: 2,
    once: (port, i) =>
      i % 2
        ? get(port, `/api/v4/groups/invited/invitations?query=${encodeURIComponent('%a'.repeat(6) + '%b')}`, {
            'PRIVATE-TOKEN': MALLORY,
          })
        : post(
            port,
            '/api/v4/groups/invited/access_requests',
            '{"__proto__":{"admin":true}}',
            'application/json',
            {
              'PRIVATE-TOKEN': MALLORY,
            },
          ),
  },
  {
    name: 'feature flags: __proto__ parameters, 300-char scopes, Unleash app names of 8,000 chars',
    count: 1_000,
    concurrency: 2,
    once: (port, i) =>
      i % 3 === 0
        ? get(
            port,
            `/api/v4/feature_flags/unleash/mallory%2Fflags/client/features?app_name=${'a'.repeat(8_000)}`,
            {
              'UNLEASH-INSTANCEID': 'mallory-unleash',
            },
          )
        : post(
            port,
            i % 3 === 1
              ? '/api/v4/projects/mallory%2Fflags/feature_flags'
              : '/api/v4/projects/mallory%2Fflags/feature_flags_user_lists',
            i % 3 === 1
              ? json({
                  name: `evil_${i}`,
                  version: 'new_version_flag',
                  strategies: [
                    { name: 'default', parameters: '{"__proto__":{"polluted":1}}' },
                    { name: 'default', parameters: {}, scopes: [{ environment_scope: '*a'.repeat(150) }] },
                  ],
                })
              : json({ name: '__proto__', user_xids: '__proto__,constructor' }),
            'application/json',
            { 'PRIVATE-TOKEN': MALLORY },
          ),
  },
  {
    name: 'scenario load: generate 20,000 users (legitimate)',
    count: 3,
    concurrency: 1,
    exempt: true,
    once: (port) => post(port, '/__fauxlab/scenario', json({ generate: { users: 20_000 } })),
  },
];

/** The server's resident set size in bytes (Linux), or 0. */
function rss(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

async function startServer(): Promise<{ child: ChildProcess; port: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'fauxlab-attack-'));
  const scenario = join(dir, 'world.json');
  writeFileSync(
    scenario,
    json({
      users: [
        { username: 'root', admin: true, tokens: [{ token: ADMIN, scopes: ['api'] }] },
        { username: 'mallory', tokens: [{ token: MALLORY, scopes: ['api'] }] },
      ],
      tier: 'premium',
      groups: [
        { path: 'acme', visibility: 'public' },
        {
          path: 'invited',
          visibility: 'public',
          invitations: [1, 2, 3].map((n) => ({
            email: `${'a'.repeat(200)}${n}@example.org`,
            access_level: 30,
          })),
        },
      ],
      projects: [
        { path: 'acme/app', visibility: 'public' },
        { path: 'mallory/pkgs', visibility: 'public' },
        {
          path: 'mallory/flags',
          visibility: 'public',
          feature_flags_instance_id: 'mallory-unleash',
          // 200 flags (the plan limit), each with the longest glob its scope column takes.
          feature_flags: Array.from({ length: 200 }, (_, i) => ({
            name: `flag_${i}`,
            strategies: [{ name: 'default', scopes: [`${'*a'.repeat(125)}*${i}`] }],
          })),
        },
        {
          path: 'root/vault',
          visibility: 'private',
          repository: {
            commits: [
              {
                id: 'secret',
                branch: 'master',
                message: 'Secret\n',
                author: 'root',
                files: { 'secret.txt': 'only in the vault\n' },
              },
            ],
          },
        },
        {
          path: 'acme/ci',
          visibility: 'public',
          repository: {
            commits: [
              {
                id: 'ci',
                branch: 'master',
                message: 'CI',
                author: 'root',
                files: {
                  '.gitlab-ci.yml':
                    "hit:\n  script: x\n  rules:\n    - if: '$X =~ /.{0,33}.{0,33}.{0,33}.{0,33}!/'\n" +
                    'always:\n  script: x\n',
                },
              },
            ],
          },
        },
        { path: 'mallory/loot', visibility: 'private' },
        {
          path: 'acme/rules',
          visibility: 'public',
          repository: {
            commits: [{ id: 'one', branch: 'master', message: 'First', author: 'root', files: { a: 'a' } }],
          },
          push_rule: { branch_name_regex: '^(a|aa)+$', commit_message_negative_regex: '(x+x+)+y' },
        },
      ],
    }),
  );
  const child = spawn(
    process.execPath,
    [bin, 'serve', '--port', '0', '--scenario', scenario, '--frozen-clock'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /base URL:\s+http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', () => reject(new Error(`the server exited: ${out}`)));
  });
  return { child, port };
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;

async function run(attack: Attack, port: number, pid: number) {
  const deadline = Date.now() + SECONDS * 1000;
  let sent = 0;
  const statuses = new Map<number, number>();
  let stop = false;
  const latencies: number[] = [];
  let peak = rss(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rss(pid))), 20);
  const canary = (async () => {
    while (!stop) {
      const t0 = performance.now();
      await new Promise<void>((resolve) => {
        const req = request(
          {
            host: '127.0.0.1',
            port,
            path: '/api/v4/version',
            headers: { 'PRIVATE-TOKEN': ADMIN },
            agent: canaryAgent,
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve());
          },
        );
        req.on('error', () => resolve());
        req.end();
      });
      latencies.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  await new Promise((r) => setTimeout(r, 100));
  const loops = Array.from({ length: attack.concurrency }, async () => {
    while (sent < attack.count && Date.now() < deadline) {
      const i = sent++;
      const s = await attack.once(port, i);
      statuses.set(s, (statuses.get(s) ?? 0) + 1);
    }
  });
  await Promise.all(loops);
  await new Promise((r) => setTimeout(r, 100));
  stop = true;
  await canary;
  clearInterval(sampler);
  const sorted = latencies.sort((a, b) => a - b);
  const p99 = pct(sorted, 0.99);
  const ok = attack.exempt || (p99 < 100 && peak < 1024 ** 3);
  return {
    attack: attack.name + (attack.exempt ? ' (exempt)' : ''),
    sent,
    statuses: Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])),
    canary: { n: sorted.length, p50: pct(sorted, 0.5), p99, max: sorted.at(-1) ?? NaN },
    peakRssMb: Math.round(peak / 1024 / 1024),
    ok,
  };
}

const { child, port } = await startServer();
const results = [];
try {
  for (const attack of ATTACKS.filter((a) => ONLY.length === 0 || ONLY.some((w) => a.name.includes(w)))) {
    const r = await run(attack, port, child.pid!);
    results.push(r);
    const c = r.canary;
    console.log(
      `${r.ok ? 'ok  ' : 'MISS'} ${r.attack.padEnd(52)} ${String(r.sent).padStart(5)} sent ${JSON.stringify(r.statuses).padEnd(26)} ` +
        `canary p50 ${c.p50.toFixed(1)} ms, p99 ${c.p99.toFixed(1)} ms, max ${c.max.toFixed(1)} ms (${c.n}); peak RSS ${r.peakRssMb} MB`,
    );
  }
} finally {
  child.kill('SIGTERM');
  attackAgent.destroy();
  canaryAgent.destroy();
}
process.exitCode = results.every((r) => r.ok) ? 0 : 1;
