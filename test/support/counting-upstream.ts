// A stand-in for the real server a recorder proxies to: it answers a chat request and a model list
// with fixed, valid bodies and keeps every request it got, so a test can say that none came.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  path: string;
  authorization?: string;
  headers: IncomingHttpHeaders;
}

export interface CountingUpstream {
  url: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

const COMPLETION = {
  id: 'chatcmpl-upstream-1',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'mock-chat-1',
  choices: [{ index: 0, message: { role: 'assistant', content: 'From the upstream.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
};
const MODELS = { object: 'list', data: [{ id: 'mock-chat-1', object: 'model', created: 1_700_000_000, owned_by: 'upstream' }] };

export async function startCountingUpstream(): Promise<CountingUpstream> {
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization, headers: req.headers });
    req.resume();
    req.on('end', () => {
      const body = JSON.stringify(req.url?.startsWith('/v1/models') ? MODELS : COMPLETION);
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((r) => (server.close(() => r()), server.closeAllConnections())),
  };
}
