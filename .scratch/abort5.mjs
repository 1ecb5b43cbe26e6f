import OpenAI from 'openai';
import { createMock } from '/work/wt-clients/dist/mock/core/handle.js';
import { startMockServer } from '/work/wt-clients/dist/mock/http.js';
const server = await startMockServer({ mock: createMock(undefined, { faults: [process.argv[2]].filter(Boolean) }) });
const log = (...a) => console.log(Math.round(performance.now()), ...a);
const wrap = async (i, n) => {
  n?.signal?.addEventListener('abort', () => log('signal aborted'));
  const r = await fetch(i, n);
  const reader = r.body.getReader();
  const body = new ReadableStream({
    async pull(c) {
      try { const { done, value } = await reader.read(); log('read', done, value?.byteLength); if (done) return c.close(); c.enqueue(value); }
      catch (e) { log('read error', e.name); c.error(e); }
    },
    cancel(reason) { log('cancel', reason); return reader.cancel(reason); },
  });
  return new Response(body, { status: r.status, headers: r.headers });
};
const c = new OpenAI({ apiKey: 'sk-mock-alpha-000000000000000000000001', baseURL: server.url + '/v1', maxRetries: 0, fetch: wrap });
const s = c.chat.completions.stream({ model: 'mock-chat-1', messages: [{ role: 'user', content: 'Write a long, detailed essay about the history of computing.' }], max_tokens: 64 });
let n = 0;
s.on('content', () => { n++; if (n === 1) { log('abort'); s.abort(); } });
const t = setTimeout(() => { log('HANG; content events', n); process.exit(1); }, 3000);
try { await s.finalChatCompletion(); log('resolved'); } catch (e) { log('threw', e.constructor.name, e.message); }
clearTimeout(t); await server.close();
