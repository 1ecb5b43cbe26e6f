// Servers that answer well-formed HTTP with bodies a client chokes on, each under the kit's body cap
// (--max-body): a huge but valid completion, a field nested millions deep, an object of a million
// keys, a key-bearing model id that the server echoes back, and ids of a megabyte (the model's, and
// each answer's, distinct). The bench (bench/hostile-kit.ts) runs
// the kit against each at full size; the tests (test/engine/bounded.test.ts) at a scale CI affords.
// And servers that never end an answer (stallingServer): interim 1xx answers dripped forever, headers
// then silence, a connection never read; the tests of waits (test/engine/waits.test.ts) run every
// command against them. Each binds 127.0.0.1 on a free port.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { createGzip } from 'node:zlib';
import { DEFAULT_CONFIG } from '../mock/config/default.js';
import { createMock } from '../mock/core/handle.js';
import type { MockReply } from '../mock/core/types.js';
import { startMockServer } from '../mock/http.js';

export type HostileKind = 'big-content' | 'deep' | 'many-keys' | 'key-in-values' | 'huge-ids';

export interface HostileOptions {
  /** big-content: characters of content in each answer (JSON or streamed). */
  contentChars?: number;
  /** deep: how many `[` open the extra field `x` of each answer (and of a streamed chunk). */
  depth?: number;
  /** many-keys: members of the object in the extra field `x`. */
  keys?: number;
  /** key-in-values: the run's key, which the server puts in its model id, error messages and a header. */
  key?: string;
  /** huge-ids: characters of each answer's id (each answer's its own), and of the listed model's
   * id unless modelChars says otherwise. */
  idChars?: number;
  /** huge-ids: characters of the listed model's id (idChars when not given). */
  modelChars?: number;
  /** huge-ids: every answer names a model of this many characters, whatever was asked for: a server
   * that echoes a long model the list does not hold. */
  echoChars?: number;
  /** huge-ids: every this many chats, a 500 whose error message is as long as an id. */
  errorEvery?: number;
}

export interface HostileServer {
  url: string;
  /** Chat requests answered so far. */
  chats(): number;
  close(): Promise<void>;
}

const WORDS = 'alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november oscar papa ';

/** `chars` characters of words: an answer the stop suite can pick sequences from. */
const wordsOf = (chars: number) => WORDS.repeat(Math.ceil(chars / WORDS.length)).slice(0, chars);

/** Short distinct keys from printable ASCII (no quote, no backslash): a million fit under 8 MiB. */
function manyKeys(n: number): string {
  const alphabet = [...Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i))].filter((c) => c !== '"' && c !== '\\');
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    let k = '';
    let v = i;
    do {
      k += alphabet[v % alphabet.length];
      v = Math.floor(v / alphabet.length);
    } while (v > 0);
    parts.push(`"${k}":0`);
  }
  return `{${parts.join(',')}}`;
}

const completion = (model: string, content: string, extra = '', id = 'chatcmpl-hostile') =>
  `{"id":${JSON.stringify(id)},"object":"chat.completion","created":1750000000,"model":${JSON.stringify(model)},${extra}"choices":[{"index":0,"message":{"role":"assistant","content":${JSON.stringify(content)}},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":5,"total_tokens":10,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}`;

const chunk = (model: string, delta: string, finish: string | null, extra = '', id = 'chatcmpl-hostile') =>
  `{"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":1750000000,"model":${JSON.stringify(model)},${extra}"choices":[{"index":0,"delta":${delta},"finish_reason":${JSON.stringify(finish)}}]}`;
const usageChunk = (model: string, id = 'chatcmpl-hostile') =>
  `{"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":1750000000,"model":${JSON.stringify(model)},"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":5,"total_tokens":10,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}`;

/** A stream of `content` in pieces of 64 KiB, the extra field on its first chunk, then usage and [DONE]. */
function stream(res: ServerResponse, model: string, content: string, extra: string, id?: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const piece = 64 * 1024;
  const pieces = content.length ? Array.from({ length: Math.ceil(content.length / piece) }, (_, i) => content.slice(i * piece, (i + 1) * piece)) : [''];
  res.write(`data: ${chunk(model, '{"role":"assistant","content":""}', null, extra, id)}\n\n`);
  for (const p of pieces) res.write(`data: ${chunk(model, JSON.stringify({ content: p }), null, '', id)}\n\n`);
  res.write(`data: ${chunk(model, '{}', 'stop', '', id)}\n\n`);
  res.write(`data: ${usageChunk(model, id)}\n\n`);
  res.end('data: [DONE]\n\n');
}

async function bodyOf(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const parts: Buffer[] = [];
  for await (const p of req) parts.push(p as Buffer);
  try {
    const v = JSON.parse(Buffer.concat(parts).toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

export async function hostileServer(kind: HostileKind, opts: HostileOptions = {}): Promise<HostileServer> {
  const key = opts.key ?? '';
  const models = kind === 'key-in-values' ? [`model-${key}`] : kind === 'huge-ids' ? [`m-${'m'.repeat(opts.modelChars ?? opts.idChars ?? 1000)}`] : ['hostile-1'];
  const echoed = kind === 'huge-ids' && opts.echoChars ? `e-${'e'.repeat(opts.echoChars)}` : undefined;
  /** huge-ids: each answer's own id, as long as the model's. */
  const idOf = (n: number) => (kind === 'huge-ids' ? `chatcmpl-${n}-${'i'.repeat(opts.idChars ?? 1000)}` : undefined);
  // Built once: every answer of a kind carries the same extra field.
  const extra = kind === 'deep' ? `"x":${'['.repeat(opts.depth ?? 1000)}${']'.repeat(opts.depth ?? 1000)},` : kind === 'many-keys' ? `"x":${manyKeys(opts.keys ?? 1000)},` : '';
  const content = kind === 'big-content' ? wordsOf(opts.contentChars ?? 1000) : WORDS.trim();
  let chats = 0;
  const server = createServer(async (req, res) => {
    res.on('error', () => {});
    const path = req.url?.split('?')[0];
    const echo = kind === 'key-in-values' ? { 'x-request-id': `req-${key}` } : {};
    if (req.method === 'GET' && path === '/v1/models') {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json', ...echo });
      res.end(JSON.stringify({ object: 'list', data: models.map((id) => ({ id, object: 'model', created: 1_750_000_000, owned_by: 'hostile' })) }));
      return;
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      req.resume();
      res.writeHead(404, { 'content-type': 'application/json', ...echo });
      res.end(JSON.stringify({ error: { message: kind === 'key-in-values' ? `no route ${path} for key ${key}` : 'not found' } }));
      return;
    }
    chats++;
    const body = await bodyOf(req);
    const model = typeof body?.model === 'string' ? body.model : '';
    // The key-bearing server refuses every other credential, saying which it refused (and the key):
    // a server that echoes credentials.
    if (kind === 'key-in-values' && req.headers.authorization !== `Bearer ${key}`) {
      res.writeHead(401, { 'content-type': 'application/json', ...echo });
      res.end(JSON.stringify({ error: { message: `refused ${req.headers.authorization ?? 'no credentials'}; the key is ${key}` } }));
      return;
    }
    if (!body || !models.includes(model) || !Array.isArray(body.messages)) {
      res.writeHead(400, { 'content-type': 'application/json', ...echo });
      res.end(JSON.stringify({ error: { message: kind === 'key-in-values' ? `no model ${JSON.stringify(model)} for key ${key}` : 'bad request' } }));
      return;
    }
    if (kind === 'huge-ids' && opts.errorEvery && chats % opts.errorEvery === 0) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `failed: ${'e'.repeat(opts.idChars ?? 1000)}` } }));
      return;
    }
    if (body.stream === true) return stream(res, echoed ?? model, content, extra, idOf(chats));
    res.writeHead(200, { 'content-type': 'application/json', ...echo });
    res.end(completion(echoed ?? model, content, extra, idOf(chats)));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    chats: () => chats,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The mock, its first key `key` and its first model's catalog entry declaring sizes no request
 * should be built to: stop sequences by the hundred million, an enum of a hundred thousand values. */
export async function hugeCatalog(key: string): Promise<HostileServer> {
  const [first, ...rest] = DEFAULT_CONFIG.models;
  const parameters = { ...first.parameters, stop: { type: 'array', max_items: 1e8 }, verbosity: { type: 'enum', values: Array.from({ length: 100_000 }, (_, i) => `v${i}`) } };
  const keys = DEFAULT_CONFIG.keys.map((k, i) => (i ? k : { ...k, key }));
  const server = await startMockServer({ mock: createMock({ ...DEFAULT_CONFIG, keys, models: [{ ...first, parameters } as typeof first, ...rest] }) });
  return { url: server.url, chats: () => server.mock.journal.list().filter((e) => e.path === '/v1/chat/completions').length, close: () => server.close() };
}

/** `early-hints`: lists its model (GET /v1/models; any other GET is a 404, so a catalog is found
 * missing at once), then answers every POST with an interim answer (103 Early Hints, or 102
 * Processing) every `everyMs`, never a final one. `headers-then-silence`: the same, but every POST
 * gets a 200 and its headers, then nothing, never closing. `never-answers`: accepts connections and
 * never reads from them, nor writes. */
export type StallKind = 'early-hints' | 'headers-then-silence' | 'never-answers';

export interface StallingServer {
  url: string;
  /** Requests (or, for never-answers, connections) left waiting so far. */
  stalled(): number;
  close(): Promise<void>;
}

export async function stallingServer(kind: StallKind, opts: { everyMs?: number; status?: 102 | 103; model?: string } = {}): Promise<StallingServer> {
  const sockets = new Set<Socket>();
  let stalled = 0;
  const server =
    kind === 'never-answers'
      ? createTcpServer({ pauseOnConnect: true }, (socket) => {
          stalled++;
          socket.on('error', () => {});
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
        })
      : createServer((req, res) => {
          res.on('error', () => {});
          req.resume();
          if (req.method === 'GET') {
            const listed = req.url?.split('?')[0] === '/v1/models';
            res.writeHead(listed ? 200 : 404, { 'content-type': 'application/json' });
            res.end(
              JSON.stringify(
                listed ? { object: 'list', data: [{ id: opts.model ?? 'stalling-1', object: 'model', created: 1_750_000_000, owned_by: 'hostile' }] } : { error: { message: 'not found' } },
              ),
            );
            return;
          }
          stalled++;
          if (kind === 'headers-then-silence') {
            res.writeHead(200, { 'content-type': 'application/json' });
            res.flushHeaders();
            return;
          }
          const interim = () => (opts.status === 102 ? res.writeProcessing() : res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' }));
          const timer = setInterval(interim, opts.everyMs ?? 1000);
          res.on('close', () => clearInterval(timer));
        });
  if (kind !== 'never-answers') server.on('connection', (socket: Socket) => (sockets.add(socket), socket.on('close', () => sockets.delete(socket))));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stalled: () => stalled,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** What a client library meets where the kit's own requests were bounded (issue 41): each answers
 * every chat request so, and every other route as the mock does (the model list, the catalog), so
 * that the flows reach their chat requests. `retry-after-day`: a 429 asking to wait a day (in seconds;
 * `retry-after-date`, as an HTTP date). `endless-stream`: chunks forever. `headers-then-silence`: a
 * 200 and its headers, then nothing. `million-deltas`: a stream of a million one-character deltas.
 * `gzip-bomb`: a gzip body that inflates to a gigabyte. `fifty-megabytes`: a 50 MB answer.
 * `redirect`: a 307 to a server on another port, which counts what reaches it and whether a secret
 * came with it. */
export type ClientHostileKind = 'retry-after-day' | 'retry-after-date' | 'endless-stream' | 'headers-then-silence' | 'million-deltas' | 'gzip-bomb' | 'fifty-megabytes' | 'redirect';

export interface ClientHostileServer {
  url: string;
  /** Chat requests answered so far, and those of them a page sent (they carry an Origin). */
  chats(): { all: number; fromPage: number };
  /** redirect: the requests that reached the other port, and those that carried a secret given. */
  elsewhere(): { requests: number; withSecret: number };
  close(): Promise<void>;
}

const DAY_S = 86_400;
const MEGABYTE = 1024 * 1024;

/** A gigabyte of zeros, gzipped (4.5 MB at the fastest level, made in a second or so): made once, in
 * pieces, never held inflated. */
let bomb: Promise<Buffer> | undefined;
function gzipBomb(): Promise<Buffer> {
  bomb ??= new Promise<Buffer>((resolve, reject) => {
    const gzip = createGzip({ level: 1 });
    const out: Buffer[] = [];
    gzip.on('data', (b: Buffer) => out.push(b));
    gzip.on('end', () => resolve(Buffer.concat(out)));
    gzip.on('error', reject);
    const zeros = Buffer.alloc(MEGABYTE);
    let left = 1024;
    const more = () => {
      while (left > 0) {
        left--;
        if (!gzip.write(zeros)) return void gzip.once('drain', more);
      }
      gzip.end();
    };
    more();
  });
  return bomb;
}

export async function clientHostileServer(kind: ClientHostileKind, secrets: readonly string[] = []): Promise<ClientHostileServer> {
  const elsewhere = { requests: 0, withSecret: 0 };
  const chats = { all: 0, fromPage: 0 };
  const other = createServer((req, res) => {
    elsewhere.requests++;
    const seen = JSON.stringify(req.headers) + (req.url ?? '');
    if (secrets.some((s) => s && seen.includes(s))) elsewhere.withSecret++;
    req.resume();
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"nothing here"}}');
  });
  other.listen(0, '127.0.0.1');
  await once(other, 'listening');
  const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  const zipped = kind === 'gzip-bomb' ? await gzipBomb() : undefined;
  const base = createMock();
  const sse = (events: Iterable<string>): Generator<{ delayMs: number; bytes: string }> =>
    (function* () {
      for (const e of events) yield { delayMs: 0, bytes: e };
    })();
  const chunkOf = (content: string) => `data: ${chunk('mock-chat-1', JSON.stringify({ content }), null)}\n\n`;
  const chatReply = (streamed: boolean): MockReply => {
    switch (kind) {
      case 'retry-after-day':
      case 'retry-after-date':
        return {
          status: 429,
          headers: { 'content-type': 'application/json', 'retry-after': kind === 'retry-after-day' ? String(DAY_S) : new Date(Date.now() + DAY_S * 1000).toUTCString() },
          body: '{"error":{"message":"Rate limit reached: retry tomorrow.","type":"rate_limit_error"}}',
        };
      case 'endless-stream':
        return {
          status: 200,
          headers: { 'content-type': streamed ? 'text/event-stream' : 'application/json' },
          stream: (function* () {
            if (!streamed) yield { delayMs: 0, bytes: '{"id":"x","choices":[' };
            for (;;) yield { delayMs: 2, bytes: streamed ? chunkOf('a') : ' ' };
          })(),
        };
      case 'headers-then-silence':
        return { status: 200, headers: { 'content-type': streamed ? 'text/event-stream' : 'application/json' }, stream: [{ delayMs: 2 ** 31 - 1, bytes: '' }] };
      case 'million-deltas':
        if (!streamed) break;
        return {
          status: 200,
          headers: { 'content-type': 'text/event-stream' },
          stream: sse(
            (function* () {
              yield `data: ${chunk('mock-chat-1', '{"role":"assistant","content":""}', null)}\n\n`;
              const thousand = chunkOf('a').repeat(1000);
              for (let i = 0; i < 1000; i++) yield thousand;
              yield `data: ${chunk('mock-chat-1', '{}', 'stop')}\n\ndata: [DONE]\n\n`;
            })(),
          ),
        };
      case 'gzip-bomb':
        return { status: 200, headers: { 'content-type': streamed ? 'text/event-stream' : 'application/json', 'content-encoding': 'gzip' }, body: zipped! };
      case 'fifty-megabytes': {
        const piece = 'a'.repeat(64 * 1024);
        const pieces = (50 * MEGABYTE) / piece.length;
        return streamed
          ? { status: 200, headers: { 'content-type': 'text/event-stream' }, stream: sse(Array.from({ length: pieces }, () => chunkOf(piece))) }
          : {
              status: 200,
              headers: { 'content-type': 'application/json' },
              stream: sse([
                `{"id":"x","object":"chat.completion","created":1750000000,"model":"mock-chat-1","choices":[{"index":0,"message":{"role":"assistant","content":"`,
                ...Array.from({ length: pieces }, () => piece),
                '"},"finish_reason":"stop"}]}',
              ]),
            };
      }
      case 'redirect':
        return { status: 307, headers: { location: `${otherUrl}/v1/chat/completions`, 'content-type': 'application/json' }, body: '{"error":{"message":"moved"}}' };
    }
    return { status: 200, headers: { 'content-type': 'application/json' }, body: completion('mock-chat-1', WORDS.trim()) };
  };
  const server = await startMockServer({
    mock: {
      ...base,
      handle: (req) => {
        if (req.method !== 'POST' || req.path.split('?')[0] !== '/v1/chat/completions') return base.handle(req);
        chats.all++;
        if (req.headers.origin) chats.fromPage++;
        const body = JSON.parse(Buffer.from(req.body ?? '').toString('utf8') || '{}') as { stream?: unknown };
        return chatReply(body.stream === true);
      },
    },
  });
  return {
    url: server.url,
    chats: () => ({ ...chats }),
    elsewhere: () => ({ ...elsewhere }),
    close: async () => {
      other.closeAllConnections();
      await Promise.all([server.close(), new Promise<void>((r) => other.close(() => r()))]);
    },
  };
}
