import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { serveNode } from '../../src/host/node-server.js';
import { createFauxlab } from '../../src/index.js';
import { smallWorld } from '../helpers.js';

const TOKEN = 'root-api';
type Fetch = Parameters<typeof serveNode>[0]['fetch'];

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

function listen(how: 'serveNode' | 'serve', fetch: Fetch, turnMs?: number): Promise<number> {
  return new Promise((resolve) => {
    const onListen = (info: AddressInfo) => resolve(info.port);
    const s =
      how === 'serveNode'
        ? serveNode({ fetch, hostname: '127.0.0.1', port: 0, turnMs }, onListen)
        : (serve(
            { fetch: fetch as (r: Request) => Response, hostname: '127.0.0.1', port: 0 },
            onListen,
          ) as Server);
    servers.push(s);
  });
}

/** Sends raw HTTP/1.1 bytes on one connection and reads until `done` says the answer is whole. */
function raw(port: number, bytes: string, done: (text: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      text += d;
      if (done(text)) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('error', reject);
  });
}

/** The parts of an answer that do not change from one request to the next (not Date). */
async function answer(res: Response) {
  const headers = [...res.headers].filter(([k]) => k !== 'date');
  return { status: res.status, headers, body: await res.text() };
}

describe('serveNode', () => {
  it('serveNode: answers byte for byte as @hono/node-server serve does, reads and writes alike', async () => {
    const a = createFauxlab({ scenario: smallWorld });
    const b = createFauxlab({ scenario: smallWorld });
    const [pa, pb] = await Promise.all([listen('serveNode', a.app.fetch), listen('serve', b.app.fetch)]);
    const auth = { 'PRIVATE-TOKEN': TOKEN };
    const json = { ...auth, 'Content-Type': 'application/json' };
    const steps: [string, RequestInit][] = [
      ['/api/v4/user', { headers: auth }],
      ['/api/v4/projects?per_page=2&page=2', { headers: auth }],
      ['/api/v4/projects/999999', { headers: auth }],
      ['/api/v4/projects', { method: 'POST', headers: json, body: JSON.stringify({ name: 'made here' }) }],
      ['/api/v4/projects', { method: 'POST', headers: json, body: JSON.stringify({ name: 'made here' }) }],
      ['/api/v4/projects', { method: 'POST', headers: json, body: '{"name":' }],
      ['/api/v4/users/2', { method: 'HEAD', headers: auth }],
      ['/api/v4/user', { headers: { 'PRIVATE-TOKEN': 'wrong' } }],
      ['/api/v4/projects?search=made', { headers: auth }],
    ];
    for (const [path, init] of steps) {
      const [ra, rb] = await Promise.all([
        fetch(`http://127.0.0.1:${pa}${path}`, init),
        fetch(`http://127.0.0.1:${pb}${path}`, init),
      ]);
      // Links and URLs in bodies name each server's own port.
      const [xa, xb] = await Promise.all([answer(ra), answer(rb)]);
      const norm = (x: typeof xa, port: number) =>
        JSON.parse(JSON.stringify(x).replaceAll(`127.0.0.1:${port}`, 'HOST')) as typeof xa;
      expect(norm(xa, pa), `${init.method ?? 'GET'} ${path}`).toEqual(norm(xb, pb));
    }
    expect(a.state.projects.size).toBe(b.state.projects.size);
  });

  it('serveNode: a connection waiting to be accepted is accepted while others keep the server busy', async () => {
    // Each request holds the thread for 3 ms. Since libuv 1.45 a turn of the event loop accepts one
    // connection; a server answering every request read in a turn accepted the last of 16 eager
    // clients only after most answers had gone out.
    const clients = 16;
    const each = 8;
    let answered = 0;
    const answeredAtAccept: number[] = [];
    const busy: Fetch = () => {
      const t = performance.now();
      while (performance.now() - t < 3);
      answered++;
      return new Response('ok');
    };
    const port = await listen('serveNode', busy);
    servers[0]!.on('connection', () => answeredAtAccept.push(answered));
    const run = () =>
      new Promise<void>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        let left = each;
        const ask = () => socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
        socket.on('connect', ask);
        socket.setEncoding('latin1');
        let text = '';
        socket.on('data', (d: string) => {
          text += d;
          while (text.includes('\r\n\r\nok')) {
            text = text.slice(text.indexOf('\r\n\r\nok') + 6);
            if (--left === 0) {
              socket.destroy();
              resolve();
              return;
            }
            ask();
          }
        });
        socket.on('error', reject);
      });
    await Promise.all(Array.from({ length: clients }, run));
    expect(answered).toBe(clients * each);
    expect(answeredAtAccept).toHaveLength(clients);
    // At most a turn's worth of answers between two accepts (one 3 ms request fills a 2 ms turn).
    expect(Math.max(...answeredAtAccept)).toBeLessThanOrEqual(2 * clients);
  });

  it('serveNode: pipelined requests on one connection are answered in order', async () => {
    const fx = createFauxlab({ scenario: smallWorld });
    const port = await listen('serveNode', fx.app.fetch);
    const ask = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\nPRIVATE-TOKEN: ${TOKEN}\r\n\r\n`;
    const text = await raw(
      port,
      ask('/api/v4/users/2') + ask('/api/v4/projects/999999') + ask('/api/v4/user') + ask('/api/v4/users/3'),
      (t) => (t.match(/HTTP\/1\.1 /g) ?? []).length === 4 && /"id":3[,}][^]*$/.test(t),
    );
    const statuses = [...text.matchAll(/HTTP\/1\.1 (\d+)/g)].map((m) => m[1]);
    expect(statuses).toEqual(['200', '404', '200', '200']);
    const ids = [...text.matchAll(/\r\n\r\n\{"(?:id":(\d+)|message)/g)].map((m) => m[1] ?? 'error');
    expect(ids).toEqual(['2', 'error', '1', '3']);
  });

  it('serveNode: a queue longer than a turn, turn after turn, answers every request in order', async () => {
    // turnMs 0: one request a turn, so the queue stays long for hundreds of turns and is cut as it goes.
    const answeredPaths: string[] = [];
    const echo: Fetch = (req) => {
      const path = new URL(req.url).pathname;
      answeredPaths.push(path);
      return new Response(path);
    };
    const port = await listen('serveNode', echo, 0);
    const perConnection = 150;
    const texts = await Promise.all(
      [0, 1, 2, 3].map((c) => {
        let bytes = '';
        for (let i = 0; i < perConnection; i++) bytes += `GET /c${c}/r${i} HTTP/1.1\r\nHost: x\r\n\r\n`;
        return raw(port, bytes, (t) => t.endsWith(`/c${c}/r${perConnection - 1}`));
      }),
    );
    texts.forEach((text, c) => {
      const bodies = [...text.matchAll(/\r\n\r\n(\/c\d+\/r\d+)/g)].map((m) => m[1]);
      expect(bodies).toEqual(Array.from({ length: perConnection }, (_, i) => `/c${c}/r${i}`));
    });
    expect(answeredPaths).toHaveLength(4 * perConnection);
  });

  it('serveNode: thousands of pipelined requests are held at most 1,024 at a time, and all answered in order', async () => {
    let read = 0;
    let answered = 0;
    let mostWaiting = 0;
    const echo: Fetch = (req) => {
      answered++;
      return new Response(new URL(req.url).pathname);
    };
    const port = await listen('serveNode', echo);
    servers[0]!.on('request', () => {
      read++;
      mostWaiting = Math.max(mostWaiting, read - answered);
    });
    const count = 4000;
    let bytes = '';
    for (let i = 0; i < count; i++) bytes += `GET /r${i} HTTP/1.1\r\nHost: x\r\n\r\n`;
    const text = await raw(port, bytes, (t) => t.endsWith(`/r${count - 1}`));
    const bodies = [...text.matchAll(/\r\n\r\n(\/r\d+)/g)].map((m) => m[1]);
    expect(bodies).toEqual(Array.from({ length: count }, (_, i) => `/r${i}`));
    expect(read).toBe(count);
    expect(mostWaiting).toBeLessThanOrEqual(1024);
  });

  it('serveNode: a streamed body and a large one arrive whole, and the connection serves again', async () => {
    const big = 'x'.repeat(3 * 1024 * 1024);
    const handler: Fetch = (req) => {
      const path = new URL(req.url).pathname;
      if (path === '/stream') {
        const enc = new TextEncoder();
        return new Response(
          new ReadableStream({
            async start(c) {
              for (const part of ['one,', 'two,', 'three']) {
                await new Promise((r) => setTimeout(r, 5));
                c.enqueue(enc.encode(part));
              }
              c.close();
            },
          }),
        );
      }
      return new Response(path === '/big' ? big : 'small');
    };
    const port = await listen('serveNode', handler);
    const streamed = await fetch(`http://127.0.0.1:${port}/stream`);
    expect(await streamed.text()).toBe('one,two,three');
    const text = await raw(
      port,
      'GET /big HTTP/1.1\r\nHost: x\r\n\r\nGET /small HTTP/1.1\r\nHost: x\r\n\r\n',
      (t) => t.endsWith('\r\n\r\nsmall'),
    );
    expect(text.split('\r\n\r\n')[1]!.startsWith(big.slice(0, 1000))).toBe(true);
    expect(text).toContain(`\r\n\r\n${big}HTTP/1.1 200 OK`);
  });

  it('serveNode: a string body of 16 KiB or more is written apart from its head, in the bytes serve writes', async () => {
    // Over the bound, with characters of two, three and four UTF-8 bytes and a lone surrogate.
    const body = `{"s":"${'é€😀'.repeat(5000)}\uD800"}`;
    const handler: Fetch = () => new Response(body, { headers: { 'content-type': 'application/json' } });
    const [pa, pb] = await Promise.all([listen('serveNode', handler), listen('serve', handler)]);
    // What serveNode's sockets are handed, write by write.
    const writes: unknown[][] = [];
    servers[0]!.on('connection', (socket) => {
      const s = socket as unknown as {
        _write: (chunk: unknown, encoding: unknown, cb: unknown) => unknown;
        _writev: (chunks: { chunk: unknown }[], cb: unknown) => unknown;
      };
      const { _write: write, _writev: writev } = s;
      s._write = function (chunk, encoding, cb) {
        writes.push([chunk]);
        return write.call(this, chunk, encoding, cb);
      };
      s._writev = function (chunks, cb) {
        writes.push(chunks.map((c) => c.chunk));
        return writev.call(this, chunks, cb);
      };
    });
    const [ra, rb] = await Promise.all([fetch(`http://127.0.0.1:${pa}/`), fetch(`http://127.0.0.1:${pb}/`)]);
    const [a, b] = [Buffer.from(await ra.arrayBuffer()), Buffer.from(await rb.arrayBuffer())];
    expect(a.equals(b)).toBe(true);
    expect(a.length).toBe(Buffer.byteLength(body));
    expect(ra.headers.get('content-length')).toBe(String(a.length));
    expect(rb.headers.get('content-length')).toBe(String(a.length));
    // The body went as a piece of its own, not joined to the head.
    const write = writes.find((w) => w.includes(body));
    expect(write).toBeDefined();
    expect(write!.some((c) => typeof c === 'string' && c.startsWith('HTTP/1.1 200') && c.length < 1000)).toBe(
      true,
    );
  });

  it('serveNode: two servers in one process answer for their own instances', async () => {
    const a = createFauxlab({ scenario: smallWorld });
    const b = createFauxlab({ scenario: smallWorld });
    const [pa, pb] = await Promise.all([listen('serveNode', a.app.fetch), listen('serveNode', b.app.fetch)]);
    const post = (port: number, name: string) =>
      fetch(`http://127.0.0.1:${port}/api/v4/projects`, {
        method: 'POST',
        headers: { 'PRIVATE-TOKEN': TOKEN, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name }),
      });
    const made = await Promise.all([post(pa, 'only-a'), post(pb, 'only-b'), post(pa, 'only-a-2')]);
    expect(made.map((r) => r.status)).toEqual([201, 201, 201]);
    const names = async (port: number) =>
      (
        (await (
          await fetch(`http://127.0.0.1:${port}/api/v4/projects?search=only&per_page=100`, {
            headers: { 'PRIVATE-TOKEN': TOKEN },
          })
        ).json()) as { name: string }[]
      )
        .map((p) => p.name)
        .sort();
    expect(await names(pa)).toEqual(['only-a', 'only-a-2']);
    expect(await names(pb)).toEqual(['only-b']);
  });
});
