// Shared by the mock's own tests: requests to the core (no sockets), readers of its replies, and a
// server per test for the few that need sockets.
import { afterEach } from 'vitest';
import { DEFAULT_CONFIG } from '../../mock/config/default.js';
import type { MockConfig, Scenario } from '../../mock/config/types.js';
import { createMock, type Mock, type MockOptions } from '../../mock/core/handle.js';
import type { Frame, MockReply, MockRequest } from '../../mock/core/types.js';
import { startMockServer, type MockServer } from '../../mock/http.js';

export const KEY = DEFAULT_CONFIG.keys[0].key;
export const SECOND_KEY = DEFAULT_CONFIG.keys[1].key;
export const MODEL = 'mock-chat-1';
export const REASONER = 'mock-reason-1';
export const CHAT = '/v1/chat/completions';

export type Body = Record<string, unknown>;

/** The default configuration with some fields over it. */
export function withConfig(extra: Partial<MockConfig>): MockConfig {
  return { ...DEFAULT_CONFIG, ...extra };
}

export function scenarioMock(scenarios: Scenario[], extra: Partial<MockConfig> = {}, opts: MockOptions = {}): Mock {
  return createMock(withConfig({ scenarios, ...extra }), opts);
}

export function chatRequest(body: Body, headers: Record<string, string> = {}, key = KEY): MockRequest {
  return {
    method: 'POST',
    path: CHAT,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: MODEL, ...body }),
  };
}

export const user = (text: string) => ({ messages: [{ role: 'user', content: text }] });

export function chat(mock: Mock, body: Body, headers: Record<string, string> = {}, key = KEY): MockReply {
  return mock.handle(chatRequest(body, headers, key));
}

export function statusOf(reply: MockReply): number {
  if ('raw' in reply) throw new Error('raw reply');
  return reply.status;
}

export function headersOf(reply: MockReply): Record<string, string> {
  if ('raw' in reply) throw new Error('raw reply');
  return reply.headers;
}

const text = (b: string | Uint8Array) => (typeof b === 'string' ? b : Buffer.from(b).toString('utf8'));

export function bodyText(reply: MockReply): string {
  if (!('body' in reply)) throw new Error(`not a body reply: ${JSON.stringify(Object.keys(reply))}`);
  return text(reply.body);
}

export function json(reply: MockReply): any {
  return JSON.parse(bodyText(reply));
}

export function frames(reply: MockReply): Frame[] {
  if (!('stream' in reply)) throw new Error(`not a stream: ${'body' in reply ? text(reply.body) : 'raw'}`);
  return [...reply.stream];
}

/** The frames' bytes decoded as a whole, as a client reads them: a frame may end inside a character. */
export function streamText(fs: Frame[]): string {
  return Buffer.concat(fs.map((f) => ('bytes' in f ? Buffer.from(f.bytes) : Buffer.alloc(0)))).toString('utf8');
}

/** The `data:` payloads of a stream, `[DONE]` as a string. */
export function events(fs: Frame[]): any[] {
  return streamText(fs)
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => e.slice(6))
    .map((d) => (d === '[DONE]' ? d : JSON.parse(d)));
}

/** The content a stream carries, delta by delta. */
export function contentDeltas(fs: Frame[]): string[] {
  return events(fs)
    .filter((e) => typeof e === 'object' && e.choices?.[0]?.delta?.content)
    .map((e) => e.choices[0].delta.content as string);
}

export function finishOf(fs: Frame[]): string | undefined {
  return events(fs).find((e) => typeof e === 'object' && e.choices?.[0]?.finish_reason)?.choices[0].finish_reason;
}

export function usageOf(fs: Frame[]): any {
  return events(fs).find((e) => typeof e === 'object' && e.usage)?.usage;
}

/** A server started by the test that asks for it and closed after that test, whatever happens. */
export function serverPerTest(): (opts?: Parameters<typeof startMockServer>[0]) => Promise<MockServer> {
  let server: MockServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  return async (opts) => (server = await startMockServer(opts));
}
