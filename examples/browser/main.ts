// A chat page built on the official openai SDK, as a frontend team would write it: a reply
// streamed into the DOM, a tool call and its second turn, a 429 retried, a stream that fails.
// ?mode=http&base=URL talks to `conformance mock` over HTTP (another origin: CORS);
// ?mode=page (the default) installs the mock in the page itself.
import DOMPurify from 'dompurify';
import { marked } from 'marked';
import OpenAI from 'openai';

const params = new URLSearchParams(location.search);
const KEY = params.get('key') ?? 'sk-mock-alpha-000000000000000000000001';
const MODEL = params.get('model') ?? 'mock-chat-1';
const $ = (id: string) => document.getElementById(id)!;
const status = (text: string) => ($('status').textContent = text);

/** What the page saw, for a person and for the browser test: when each delta was painted, and
 * the reply's text as it came (before markdown rendering). */
const seen = { deltas: [] as { at: number; length: number }[], text: '', chatRequests: 0 };
(window as unknown as { chatPage: typeof seen }).chatPage = seen;

async function baseUrl(): Promise<string> {
  if (params.get('mode') === 'http') return `${params.get('base') ?? 'http://127.0.0.1:8080'}/v1`;
  const { installMock, DEFAULT_CONFIG } = await import('chat-api-conformance/mock/browser');
  // Paced like a real model, so the reply visibly arrives token by token.
  const page = installMock({ config: { ...DEFAULT_CONFIG, timing: { ttft_ms: 120, tokens_per_second: 120 } } });
  return `${page.baseUrl}/v1`;
}

async function main(): Promise<void> {
  const client = new OpenAI({
    apiKey: KEY,
    baseURL: await baseUrl(),
    dangerouslyAllowBrowser: true,
    maxRetries: 2,
    // Counts what reaches the network layer, so a retry shows.
    fetch: (url, init) => {
      if (String(url).endsWith('/chat/completions')) seen.chatRequests++;
      return fetch(url, init);
    },
  });
  const busy = (on: boolean) => document.querySelectorAll('button').forEach((b) => (b.disabled = on));

  /** The reply as markdown, rendered again on each delta (sanitized: it is a model's text). */
  async function streamInto(target: HTMLElement, prompt: string, headers: Record<string, string> = {}): Promise<void> {
    target.textContent = '';
    seen.text = '';
    const content = ($('content') as HTMLSelectElement).value;
    const split = ($('split') as HTMLInputElement).checked;
    if (content || split) headers['x-mock-content'] = `${content || 'prose'}${split ? '; split=bytes' : ''}`;
    const stream = await client.chat.completions.create({ model: MODEL, stream: true, messages: [{ role: 'user', content: prompt }] }, { headers });
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta?.content;
      if (!delta) continue;
      seen.text += delta;
      target.innerHTML = DOMPurify.sanitize(marked.parse(seen.text, { async: false }));
      seen.deltas.push({ at: performance.now(), length: seen.text.length });
    }
  }

  const run = (name: string, job: () => Promise<void>) => async () => {
    busy(true);
    status(`${name}…`);
    try {
      await job();
      status(`${name}: done`);
    } catch (e) {
      $('error').textContent = `${name}: ${(e as Error).message}`;
      status(`${name}: failed`);
    } finally {
      busy(false);
    }
  };

  $('send').addEventListener(
    'click',
    run('reply', () => streamInto($('reply'), ($('prompt') as HTMLTextAreaElement).value)),
  );

  $('tool-demo').addEventListener(
    'click',
    run('tool', async () => {
      const tools: OpenAI.ChatCompletionTool[] = [
        { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
      ];
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is the weather in Paris?' }];
      const first = await client.chat.completions.create({ model: MODEL, messages, tools });
      const call = first.choices[0].message.tool_calls?.[0];
      if (call?.type !== 'function') throw new Error('no tool call');
      $('tool').textContent = `${call.function.name}(${call.function.arguments})`;
      const next = await client.chat.completions.create({
        model: MODEL,
        tools,
        messages: [...messages, first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: '{"temp_c": 21}' }],
      });
      $('tool').append(`\n→ ${next.choices[0].message.content}`);
    }),
  );

  $('retry-demo').addEventListener(
    'click',
    run('retry', async () => {
      const before = seen.chatRequests;
      const r = await client.chat.completions.create(
        { model: MODEL, messages: [{ role: 'user', content: 'Hello after a rate limit.' }] },
        { headers: { 'x-mock-fault': 'rate-limited; retry_after_ms=150; times=1' } },
      );
      $('retry').textContent = `answered after ${seen.chatRequests - before} attempts: ${r.choices[0].message.content}`;
    }),
  );

  $('error-demo').addEventListener(
    'click',
    run('stream error', () => streamInto($('reply'), 'This stream will fail.', { 'x-mock-fault': 'stream-error; chunks=3' })),
  );

  status('ready');
}

main().catch((e) => status(`failed to start: ${(e as Error).message}`));
