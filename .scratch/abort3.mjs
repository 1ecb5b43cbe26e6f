import OpenAI from 'openai';
import { createMock } from '/work/wt-clients/dist/mock/core/handle.js';
import { startMockServer } from '/work/wt-clients/dist/mock/http.js';
import { Recorder } from '/work/wt-clients/dist/clients/recorder.js';
const server = await startMockServer({ mock: createMock(undefined, { faults: [process.argv[2]].filter(Boolean) }) });
const rec = new Recorder((i, n) => fetch(i, n));
const c = new OpenAI({ apiKey: 'sk-mock-alpha-000000000000000000000001', baseURL: server.url + '/v1', maxRetries: 0, fetch: async (i, n) => { const r = await fetch(i, n); const b = await r.arrayBuffer(); return new Response(b, { status: r.status, headers: r.headers }); } });
const s = c.chat.completions.stream({ model: 'mock-chat-1', messages: [{ role: 'user', content: 'Write a long, detailed essay about the history of computing.' }], max_tokens: 64 });
let n = 0;
s.on('content', () => { n++; if (n === 1) { console.log('abort'); s.abort(); } });
const t = setTimeout(() => { console.log('HANG; content events', n); process.exit(1); }, 4000);
try { await s.finalChatCompletion(); console.log('resolved'); } catch (e) { console.log('threw', e.constructor.name, e.message); }
clearTimeout(t); await server.close();
