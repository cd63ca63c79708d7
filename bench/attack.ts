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
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SECONDS = Number(process.env.ATTACK_SECONDS ?? 6);
const ADMIN = 'attack-admin-token';
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
const get = (port: number, path: string, extra = {}) => send(port, 'GET', path, extra).then((r) => r.status);

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
    name: 'cross-origin text/plain POST, rebound Host',
    count: 2_000,
    concurrency: 4,
    once: (port, i) =>
      i % 2 === 0
        ? post(port, '/__fauxlab/reset', '{}', 'text/plain')
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
      users: [{ username: 'root', admin: true, tokens: [{ token: ADMIN, scopes: ['api'] }] }],
      groups: [{ path: 'acme', visibility: 'public' }],
      projects: [{ path: 'acme/app', visibility: 'public' }],
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
  for (const attack of ATTACKS) {
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
