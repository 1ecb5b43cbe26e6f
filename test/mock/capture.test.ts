// What an exchange with a real server becomes: the reply as it came, its pace from the reads, and
// each departure from the document, for upstreams that do things their own way.
import { describe, expect, it } from 'vitest';
import { capture, type Exchange } from '../../mock/record/capture.js';

const request = { model: 'm', messages: [{ role: 'user', content: 'Hi' }] };
const sse = (...events: string[]) => Buffer.from(events.map((e) => `data: ${e}\n\n`).join(''));
const chunk = (delta: object, finish: string | null = null) =>
  JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
const exchange = (over: Partial<Exchange>): Exchange => ({
  request: { ...request, stream: true },
  status: 200,
  headers: { 'content-type': 'text/event-stream' },
  body: Buffer.alloc(0),
  reads: [],
  upstream: 'http://upstream.test',
  at: new Date(0),
  ...over,
});

describe('capture', () => {
  it('a stream: its text in the chunks it came in, the pause before each from the reads, a missing [DONE] as drift', () => {
    const events = [chunk({ role: 'assistant', content: '' }), chunk({ content: 'Hel' }), chunk({ content: 'lo' }), chunk({}, 'stop')];
    const body = sse(...events);
    // One read per event, 100 ms then 30 ms apart.
    let end = 0;
    const reads = events.map((e, i) => ({ end: (end += `data: ${e}\n\n`.length), ms: [100, 100, 130, 131][i] }));
    const s = capture(exchange({ body, reads }), 'x');
    expect(s.reply).toMatchObject({ chunks: ['Hel', 'lo'], finish_reason: 'stop', delays_ms: [100, 30] });
    expect(s.reply.usage).toBeUndefined();
    expect(s.recorded!.drift).toEqual(['stream: it did not end with data: [DONE] [6]']);
  });

  it('tool calls streamed in fragments, the name repeated by the server: one call, its arguments joined', () => {
    const body = sse(
      chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_9', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { name: 'get_weather', arguments: '{"city":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
      chunk({}, 'tool_calls'),
      '[DONE]',
    );
    const s = capture(exchange({ body, reads: [{ end: body.length, ms: 40 }] }), 'x');
    expect(s.reply.tool_calls).toEqual([{ name: 'get_weather', arguments: '{"city":"Paris"}', id: 'call_9' }]);
    expect(s.reply.finish_reason).toBe('tool_calls');
    expect(s.recorded!.drift).toBeUndefined();
  });

  it('an error keeps what a retry reads (Retry-After, rate-limit headers) and nothing else', () => {
    const body = Buffer.from(JSON.stringify({ error: { message: 'Slow down', type: 'rate_limit_error', code: 'rate_limited' } }));
    const s = capture(
      exchange({
        request,
        status: 429,
        headers: { 'content-type': 'application/json', 'retry-after': '2', 'x-ratelimit-remaining-requests': '0', 'set-cookie': 'a=b' },
        body,
        reads: [{ end: body.length, ms: 5 }],
      }),
      'x',
    );
    expect(s.reply).toEqual({ error: { status: 429, message: 'Slow down', type: 'rate_limit_error', code: 'rate_limited', headers: { 'retry-after': '2', 'x-ratelimit-remaining-requests': '0' } } });
  });

  it('a JSON answer that breaks the document is kept as it came, with each violation and its section', () => {
    const body = Buffer.from(
      JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'Hi!' }, finish_reason: 'eos' }] }),
    );
    const s = capture(exchange({ request, headers: { 'content-type': 'application/json' }, body, reads: [{ end: body.length, ms: 12 }] }), 'x');
    expect(s.reply).toMatchObject({ text: 'Hi!', delays_ms: [12] });
    // An unknown finish_reason is not replayed (the mock serves only the document's), but it is told.
    expect(s.reply.finish_reason).toBeUndefined();
    expect(s.recorded!.drift!.join('\n')).toMatch(/finish_reason.*\[2\.3/);
    expect(s.recorded!.drift!.join('\n')).toMatch(/usage/);
  });

  it('a body that is not JSON is an error to replay, said as drift', () => {
    const body = Buffer.from('<html>oops</html>');
    const s = capture(exchange({ request, headers: { 'content-type': 'text/html' }, body, reads: [{ end: body.length, ms: 1 }] }), 'x');
    expect(s.reply.error).toMatchObject({ status: 502 });
    expect(s.recorded!.drift).toEqual([`the body is not JSON (${body.length} bytes)`]);
  });
});
