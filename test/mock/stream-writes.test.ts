// How the node:http adapter writes a stream: the frames due at one moment in one write (an unpaced
// stream's events together), the headers before the first pause, the pieces of a split event apart,
// and an unpaced stream of any length a bounded write at a time. Counted on the server's responses
// as they write.
import { ServerResponse } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import type { Scenario } from '../../mock/config/types.js';
import { createMock } from '../../mock/core/handle.js';
import { CHAT, KEY, serverPerTest, withConfig } from './helpers.js';

const serve = serverPerTest();

/** A stream's body as the client read it, and the sizes of the writes the server made for it. */
async function streamed(scenario: Scenario, headers: Record<string, string> = {}): Promise<{ body: string; writes: number[] }> {
  const server = await serve({ mock: createMock(withConfig({ scenarios: [scenario] })), dashboard: false });
  const writes: number[] = [];
  const write = ServerResponse.prototype.write;
  vi.spyOn(ServerResponse.prototype, 'write').mockImplementation(function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    const size = typeof chunk === 'string' ? Buffer.byteLength(chunk) : (chunk as Uint8Array).length;
    if (size) writes.push(size);
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  });
  try {
    const res = await fetch(server.url + CHAT, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model: 'mock-chat-1', messages: [{ role: 'user', content: 'go' }], stream: true }),
    });
    return { body: await res.text(), writes };
  } finally {
    vi.restoreAllMocks();
  }
}

const events = (body: string) => body.split('\n\n').filter(Boolean);
const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`);

describe('the node:http adapter writes a stream', () => {
  it('unpaced: every event in one write', async () => {
    const { body, writes } = await streamed({ name: 'seven', match: {}, reply: { chunks: words(7).map((w) => `${w} `) } });
    expect(events(body)).toHaveLength(7 + 3); // role, seven deltas, finish, [DONE]
    expect(body.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(writes).toEqual([Buffer.byteLength(body)]);
  });

  it('paced: the headers leave before the first pause, held by nothing', async () => {
    // The first token an hour away: the client knows the stream started long before it.
    const server = await serve({ mock: createMock(withConfig({ timing: { ttft_ms: 3_600_000 } })), dashboard: false });
    const stop = new AbortController();
    const res = await fetch(server.url + CHAT, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mock-chat-1', messages: [{ role: 'user', content: 'go' }], stream: true }),
      signal: stop.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    stop.abort();
  });

  it('split into bytes: the pieces of an event leave apart', async () => {
    const { body, writes } = await streamed({ name: 'seven', match: {}, reply: { chunks: words(7).map((w) => `${w} `) } }, { 'x-mock-content': 'prose; split=bytes' });
    expect(events(body)).toHaveLength(10);
    // Each event in at least three pieces (cut in its field name and between its two line feeds).
    expect(writes.length).toBeGreaterThanOrEqual(3 * 10);
  });

  it('unpaced and long: a bounded write at a time, nothing lost', async () => {
    const chunks = words(4_000).map((w) => `${w} `);
    const { body, writes } = await streamed({ name: 'long', match: {}, reply: { chunks } });
    const deltas = events(body).slice(1, -2);
    expect(deltas).toHaveLength(chunks.length);
    expect(deltas.map((e) => JSON.parse(e.slice(6)).choices[0].delta.content).join('')).toBe(chunks.join(''));
    const largest = Math.max(...events(body).map((e) => Buffer.byteLength(e) + 2));
    expect(writes.length).toBeGreaterThan(10);
    for (const w of writes) expect(w).toBeLessThan(16 * 1024 + largest);
  });
});
