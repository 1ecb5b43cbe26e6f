// What the bench sends and what the ceiling answers. The ceiling's fixed replies are taken from
// the mock itself (run once, in-process, at start-up), so both servers send the same shape, the
// same size (give or take the id) and the same number of stream events.
import { createMock, DEFAULT_CONFIG, type MockConfig } from '../mock/index.js';

export const CHAT_PATH = '/v1/chat/completions';
export const KEY = DEFAULT_CONFIG.keys[0].key;
export const HEADERS: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${KEY}` };

/** Parts 1 and 2: a small valid request, not streamed, then streamed with usage. */
export const SMALL = { model: 'mock-chat-1', messages: [{ role: 'user', content: 'Hello, how are you?' }] };
export const SMALL_STREAM = { ...SMALL, stream: true, stream_options: { include_usage: true } };

/** Part 3: 40 tokens (a long answer cut by max_tokens), paced so that streams overlap. */
export const HELD_STREAM = {
  model: 'mock-chat-1',
  messages: [{ role: 'user', content: 'Write a long essay about benchmarks.' }],
  max_tokens: 40,
  stream: true,
  stream_options: { include_usage: true },
};
export const HELD_TIMING = { ttft_ms: 1000, tokens_per_second: 20 };

/** The mock's configuration: the default one, paced for part 3. */
export function mockConfig(paced: boolean): MockConfig {
  return paced ? { ...DEFAULT_CONFIG, timing: { ...HELD_TIMING } } : DEFAULT_CONFIG;
}

export interface Frame {
  delayMs: number;
  bytes: string;
}

export interface Fixture {
  status: number;
  headers: Record<string, string>;
  /** A JSON reply. */
  body?: string;
  /** A stream's writes, with the pause before each. */
  frames?: Frame[];
}

/** One reply of the mock to `body`, as fixed data. */
export function capture(config: MockConfig, body: object): Fixture {
  const reply = createMock(config).handle({ method: 'POST', path: CHAT_PATH, headers: lower(HEADERS), body: JSON.stringify(body) });
  if (!('status' in reply)) throw new Error('the mock gave a raw reply');
  if (reply.status !== 200) throw new Error(`the mock refused the bench request: ${reply.status}`);
  if ('body' in reply) return { status: reply.status, headers: reply.headers, body: String(reply.body) };
  const frames: Frame[] = [];
  for (const f of reply.stream) {
    if (!('bytes' in f)) throw new Error('the mock reset a bench stream');
    frames.push({ delayMs: f.delayMs, bytes: typeof f.bytes === 'string' ? f.bytes : Buffer.from(f.bytes).toString('utf8') });
  }
  return { status: reply.status, headers: reply.headers, frames };
}

function lower(h: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
}
