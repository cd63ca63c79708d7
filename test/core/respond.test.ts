import { describe, expect, it } from 'vitest';
import { jsonResponse, madeOf, plainResponse } from '../../src/core/respond.js';
import { world } from '../helpers.js';

const BODY = '{"name":"Zoë","id":1}';

async function readStream(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
  return Buffer.concat(chunks).toString();
}

describe('plainResponse in process', () => {
  it('is a Response: status, flags, headers and body read once, as a native one answers', async () => {
    const res = jsonResponse(BODY, 201, { 'x-total': '3' });
    const native = new Response(BODY, { status: 201, headers: { 'x-total': '3' } });
    expect(res).toBeInstanceOf(Response);
    for (const k of ['status', 'ok', 'statusText', 'type', 'url', 'redirected', 'bodyUsed'] as const)
      expect(res[k]).toEqual(native[k]);
    expect(res.headers).toBeInstanceOf(Headers);
    expect(res.headers).toBe(res.headers);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-total')).toBe('3');
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(Object.prototype.toString.call(res)).toBe('[object Response]');
    expect(await res.text()).toBe(BODY);
    expect(res.bodyUsed).toBe(true);
    await expect(res.text()).rejects.toThrow(TypeError);
    await expect(res.json()).rejects.toThrow(TypeError);
    // A read body is used up for the stream too.
    expect(res.body?.locked).toBe(true);
  });

  it('json, arrayBuffer (a copy of its own), bytes, blob and the body stream give the same bytes', async () => {
    const bytes = Buffer.from(BODY);
    const make = () => plainResponse(bytes, 200, { 'content-type': 'application/json' });
    expect(await make().json()).toEqual({ name: 'Zoë', id: 1 });
    const ab = await make().arrayBuffer();
    expect(Buffer.from(ab).toString()).toBe(BODY);
    new Uint8Array(ab).fill(0);
    expect(bytes.toString()).toBe(BODY);
    expect(Buffer.from(await make().bytes()).toString()).toBe(BODY);
    expect(await (await make().blob()).text()).toBe(BODY);
    expect(await readStream(make().body!)).toBe(BODY);
    expect(Buffer.from(await plainResponse(BODY, 200, {}).arrayBuffer()).toString()).toBe(BODY);
    // The type the native constructor gives a body that names none: text for a string, none for bytes.
    for (const body of [BODY, bytes])
      expect([...plainResponse(body, 200, {}).headers]).toEqual([...new Response(body).headers]);
  });

  it('clone reads apart from the original, with the headers as changed; a response can be rebuilt around it', async () => {
    const res = jsonResponse(BODY);
    res.headers.set('x-extra', '1');
    const copy = res.clone();
    expect(copy).toBeInstanceOf(Response);
    expect(copy.headers.get('x-extra')).toBe('1');
    expect(madeOf(copy)?.body).toBe(BODY);
    expect(await copy.text()).toBe(BODY);
    expect(await res.text()).toBe(BODY);
    const rebuilt = new Response(jsonResponse(BODY).body, jsonResponse(BODY));
    expect(rebuilt.status).toBe(200);
    expect(await rebuilt.text()).toBe(BODY);
  });

  it('GET /api/v4/projects/:id through fx.fetch: the same answer as a native response read as a stream', async () => {
    const fx = world();
    const get = () =>
      fx.fetch('http://localhost/api/v4/projects/1', { headers: { 'PRIVATE-TOKEN': 'root-api' } });
    const a = await get();
    const b = await get();
    const streamed = await readStream(b.body!);
    expect(await a.text()).toBe(streamed);
    expect(JSON.parse(streamed)).toMatchObject({ id: 1, path_with_namespace: 'acme/website' });
    expect([...a.headers]).toEqual([...b.headers]);
  });
});
