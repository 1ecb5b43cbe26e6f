// Bodies in a content coding are decoded as every HTTP client decodes them (RFC 9110, 8.4: with no
// Accept-Encoding any coding is acceptable), the cap counting decoded bytes, and a body that is
// not what its coding says ends in evidence, never a throw.
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { evidenceOf } from '../../engine/exchanges.js';
import { HttpClient, KEPT_OF_A_CUT_BODY, type Limits } from '../../engine/http.js';
import { Redactor } from '../../engine/redact.js';
import { ONLY_A_HANG_MS } from '../support/machine.js';

const LIMITS: Limits = { connectTimeoutMs: ONLY_A_HANG_MS, idleTimeoutMs: ONLY_A_HANG_MS, deadlineMs: ONLY_A_HANG_MS, maxBodyBytes: 64 * 1024 };
const TEXT = JSON.stringify({ object: 'list', data: Array.from({ length: 50 }, (_, i) => ({ id: `model-${i}` })) });

let server: Server | undefined;
afterEach(async () => {
  server?.close();
  server = undefined;
});

/** A server of the test's own, answering every request with `write`. */
async function serve(write: (res: import('node:http').ServerResponse) => void | Promise<void>): Promise<string> {
  server = createServer((_req, res) => void write(res));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return `http://127.0.0.1:${port}/`;
}

async function get(url: string, limits = LIMITS) {
  const http = new HttpClient(limits);
  try {
    return await http.send({ method: 'GET', url, headers: {} });
  } finally {
    await http.close();
  }
}

describe('content codings', () => {
  it.each([
    ['gzip', gzipSync],
    ['x-gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const)('decodes %s', async (coding, encode) => {
    const url = await serve((res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding });
      res.end(encode(Buffer.from(TEXT)));
    });
    const r = await get(url);
    expect(r.error).toBeUndefined();
    expect(r.complete).toBe(true);
    expect(r.body.toString()).toBe(TEXT);
    expect(r.encoding).toBe(coding === 'x-gzip' ? 'gzip' : coding);
  });

  it('decodes a stream sent as several gzip members, as each arrives', async () => {
    const events = ['data: {"a":1}\n\n', 'data: {"b":2}\n\n', 'data: [DONE]\n\n'];
    const url = await serve(async (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
      for (const e of events) {
        res.write(gzipSync(Buffer.from(e)));
        await new Promise((r) => setTimeout(r, 10));
      }
      res.end();
    });
    const r = await get(url);
    expect(r.body.toString()).toBe(events.join(''));
  });

  it('stops a small body that inflates far beyond the cap at the cap, counting decoded bytes', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(LIMITS.maxBodyBytes);
    const url = await serve((res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(bomb);
    });
    const r = await get(url);
    expect(r.error?.kind).toBe('cap');
    expect(r.error?.message).toContain('counted after gzip decoding');
    // Only the start of a cut body is kept.
    expect(r.body.length).toBe(Math.min(LIMITS.maxBodyBytes, KEPT_OF_A_CUT_BODY));
    expect(r.bytesRead).toBeLessThan(LIMITS.maxBodyBytes + 1024 * 1024);
  });

  it('says a body is not valid gzip when it is not, and keeps what was decoded', async () => {
    const url = await serve((res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end('this is not gzip at all');
    });
    const r = await get(url);
    expect(r.error?.kind).toBe('protocol');
    expect(r.error?.message).toMatch(/not valid gzip/);
  });

  it('names a coding it cannot undo', async () => {
    const url = await serve((res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'compress' });
      res.end('whatever');
    });
    const r = await get(url);
    expect(r.error).toEqual({ kind: 'protocol', message: 'the body is in content coding "compress", which this Node.js cannot decode' });
  });

  it('leaves identity and uncoded bodies as they are', async () => {
    const url = await serve((res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'identity' });
      res.end(TEXT);
    });
    const r = await get(url);
    expect(r.body.toString()).toBe(TEXT);
    expect(r.encoding).toBeUndefined();
  });

  it('keeps the coding in the evidence', async () => {
    const url = await serve((res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(Buffer.from(TEXT)));
    });
    const r = await get(url);
    const e = evidenceOf({ ...r, label: 'list', request: { method: 'GET', url, headers: {} }, rateLimited: false, retries: 0 }, new Redactor());
    expect(e.headers).toMatchObject({ 'content-encoding': 'gzip' });
    expect(e.excerpt).toContain('"object":"list"');
  });
});
