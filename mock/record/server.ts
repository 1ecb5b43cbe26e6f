// `conformance mock --record DIR --upstream URL` and `--replay DIR`: a server that proxies to a real
// one and keeps each exchange as a scenario (per test, named by a header), or answers from those
// recordings with the mock's own core. The upstream's key is used on the wire and never written.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { request as upstreamRequest } from 'undici';
import { contentCoding, decoderFor, flattenHeaders } from '../../engine/http.js';
import { Redactor } from '../../engine/redact.js';
import { validator } from '../../schemas/index.js';
import { boundaryGuard, boundaryOf, hostProblem, isLoopbackAddress, originProblem } from '../boundary.js';
import type { CorsPolicy } from '../config/types.js';
import { preflight, withCors } from '../core/cors.js';
import { noBearer } from '../core/bearer.js';
import { echoed, errorReply } from '../core/errors.js';
import { resolveFaults } from '../core/faults/select.js';
import type { ChatRequest } from '../core/generate.js';
import { createMock, type Mock } from '../core/handle.js';
import { DEFAULT_LIMITS, overLimit } from '../core/limits.js';
import { API_ROUTES, CATALOG_PATH, routePath } from '../core/routes.js';
import type { MockReply } from '../core/types.js';
import { safeHandle } from '../core/guard.js';
import { listen, readBody, serverFor, writeReply } from '../http.js';
import type { MockTls } from '../tls.js';
import { capture, scenarioName } from './capture.js';
import { Fixtures, fixtureName, REPLAY_KEY, type ListedModel } from './fixtures.js';

export const TEST_ID_HEADER = 'x-test-id';
/** Why an exchange stopped before its answer was whole, as its log line says. */
const LEFT = 'the client left';
const CLOSED = 'the recorder closed';
const validCatalog = validator('catalog');
/** Of an upstream answer, at most this much is kept for its recording; the client gets it all. */
const RECORD_MAX_BYTES = 16 * 1024 * 1024;
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length']);
/** Headers of the API (its credential, the body's type, what the client takes) and the client's name. */
const API_HEADERS = new Set(['authorization', 'content-type', 'accept', 'user-agent']);

/** Whether a client's header goes upstream: the API's, and those an application sets itself (x-,
 * openai-); never one a browser adds by itself (Cookie, Origin, Referer, Sec-Fetch-*, ...), a
 * hop-by-hop one, the mock's own (x-mock-*, the test id) or a proxy's (x-forwarded-*). */
function forwarded(name: string, testHeader: string): boolean {
  if (API_HEADERS.has(name)) return true;
  return (name.startsWith('x-') || name.startsWith('openai-')) && !name.startsWith('x-mock-') && !name.startsWith('x-forwarded-') && name !== 'x-real-ip' && name !== testHeader;
}

/** Why a request is not forwarded: only the API's routes, with their methods, and (the public
 * catalog aside) with a Bearer credential reach the upstream with its key. */
function unforwardable(method: string, path: string, authorization: string | undefined): MockReply | undefined {
  const route = routePath(path);
  const allowed = API_ROUTES[route];
  if (!allowed) return errorReply(404, `The recorder forwards the API's routes only (${Object.keys(API_ROUTES).join(', ')}), not ${echoed(route)}.`, 'invalid_request_error', 'not_found');
  if (method !== allowed)
    return { ...errorReply(405, `${route} takes ${allowed}, not ${echoed(method)}.`, 'invalid_request_error', 'method_not_allowed'), headers: { 'content-type': 'application/json', allow: allowed } };
  return route === CATALOG_PATH ? undefined : noBearer(authorization);
}

export interface RecorderOptions {
  dir: string;
  mode: 'record' | 'replay';
  /** The real server's base URL (record, or replay with fallback). */
  upstream?: string;
  /** Sent to the upstream as Bearer in place of the client's key. */
  upstreamKey?: string;
  /** Replay: a request with no recording is recorded from the upstream on the spot. */
  fallback?: boolean;
  /** The request header naming the test, and so the file (default x-test-id). */
  testIdHeader?: string;
  /** Header names whose values, and values, removed from recordings (and from requests before a replay matches them). */
  redact?: string[];
  /** Replay without the recorded pauses. */
  noDelays?: boolean;
  /** Replay: faults of the catalogue on every request (as `conformance mock --fault`). */
  faults?: string[];
  /** The whole upstream exchange, headers and body. */
  timeoutMs?: number;
  port?: number;
  /** The address to listen on (127.0.0.1); another than a loopback one needs `allowRemote` to
   * record, since whoever reaches it spends the upstream key. */
  host?: string;
  /** Origins a page may call from besides the loopback ones (as the mock's cors.origins). */
  allowOrigins?: string[];
  /** Host names requests may be addressed to besides IP addresses, localhost and *.localhost. */
  allowedHosts?: string[];
  /** Record (or replay with fallback) on a non-loopback address: anyone who reaches it spends the key. */
  allowRemote?: boolean;
  /** Serve https. */
  tls?: MockTls;
  log?: (line: string) => void;
}

export interface Recorder {
  url: string;
  server: Server;
  fixtures: Fixtures;
  close(): Promise<void>;
}

export async function startRecorder(opts: RecorderOptions): Promise<Recorder> {
  if ((opts.mode === 'record' || opts.fallback) && !opts.upstream) throw new Error(`--upstream is required ${opts.mode === 'record' ? 'to record' : 'with --fallback upstream'}`);
  const records = opts.mode === 'record' || !!opts.fallback;
  if (records && opts.host && !isLoopbackAddress(opts.host) && !opts.allowRemote)
    throw new Error(
      `${opts.mode === 'record' ? '--record' : '--fallback upstream'} on --host ${opts.host} would let anyone who can reach this machine spend the upstream key: listen on a loopback address (the default, 127.0.0.1), or add --allow-remote-record to mean it`,
    );
  for (const o of opts.allowOrigins ?? []) {
    const problem = originProblem(o);
    if (problem) throw new Error(`--allow-origin: ${problem}`);
  }
  for (const h of opts.allowedHosts ?? []) {
    const problem = hostProblem(h);
    if (problem) throw new Error(`--allowed-host: ${problem}`);
  }
  const boundary = boundaryOf({}, { origins: opts.allowOrigins, hosts: opts.allowedHosts });
  const cors: CorsPolicy = { origins: [...boundary.origins] };
  const guard = boundaryGuard(boundary, opts.tls ? 'https' : 'http');
  // A fault that does not exist is refused now, not on the first request that would use it.
  if (opts.faults?.length) resolveFaults(opts.faults);
  const upstream = opts.upstream?.replace(/\/+$/, '');
  const testHeader = (opts.testIdHeader ?? TEST_ID_HEADER).toLowerCase();
  const redactHeaders = new Set((opts.redact ?? []).map((r) => r.toLowerCase()));
  const redactor = new Redactor().add(opts.upstreamKey);
  for (const value of opts.redact ?? []) redactor.add(value);
  const fixtures = new Fixtures(opts.dir, redactor);
  const pending = new Set<Promise<void>>();
  /** The upstream reads under way: each stops when its client leaves, all when the recorder closes. */
  const reading = new Set<AbortController>();
  let closing = false;
  const log = opts.log ?? (() => {});
  // A replay serves each file with a mock of its own, kept across requests (its journal, a fault's
  // `times`) and rebuilt only when a fallback adds to the file.
  const mocks = new Map<string, { version: number; mock: Mock }>();
  const mockFor = (name: string): Mock | undefined => {
    const config = fixtures.get(name);
    if (!config) return undefined;
    const cached = mocks.get(name);
    if (cached?.version === fixtures.version(name)) return cached.mock;
    const mock = createMock(config, { strictScenarios: true, anyKey: { ...REPLAY_KEY, models: config.keys[0].models }, noDelays: opts.noDelays, faults: opts.faults });
    mocks.set(name, { version: fixtures.version(name), mock });
    return mock;
  };

  const server = serverFor((req, res) => {
    // Before anything: a refused Host or Origin is never proxied, so the upstream key is not sent.
    const refused = guard({ method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers });
    if (refused) return writeReply(res, refused);
    readBody(req, res, DEFAULT_LIMITS.body_bytes, (body, size) => {
      // The mock's limits, before anything reads the body (a recording walks the request).
      const over = overLimit(size > body.length ? { body, size } : { body }, DEFAULT_LIMITS);
      if (over) return writeReply(res, withCors({ method: req.method ?? 'GET', path: req.url ?? '/', headers: flattenHeaders(req.headers) }, over, cors));
      // Every exchange is pending until its recording is written: closing waits for them.
      const exchange = serve(req, res, body).catch((e: Error) => {
        if (!res.headersSent) writeReply(res, errorReply(502, `The recorder failed: ${redactor.text(e.message)}`, 'server_error', 'recorder_error'));
        else res.destroy();
      });
      pending.add(exchange);
      void exchange.finally(() => pending.delete(exchange));
    });
  }, opts.tls);

  const serve = async (req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> => {
    const headers = flattenHeaders(req.headers);
    const plain = { method: req.method ?? 'GET', path: req.url ?? '/', headers, body };
    if (plain.method === 'OPTIONS') return writeReply(res, preflight(plain, cors));
    // Every secret the client sent is one more thing a recording must not hold.
    const bearer = /^\s*\S+\s+(\S+)/.exec(headers.authorization ?? '')?.[1];
    redactor.add(bearer);
    for (const c of (headers.cookie ?? '').split(';')) redactor.add(c.split('=').slice(1).join('=').trim());
    for (const name of redactHeaders) redactor.add(headers[name]);
    const name = fixtureName(headers[testHeader]);

    if (opts.mode === 'replay') {
      const mock = mockFor(name);
      const redacted = { ...plain, body: Buffer.from(redactor.text(body.toString('utf8'))) };
      const reply = mock ? safeHandle(mock, redacted) : noRecording(name, headers[testHeader]);
      if (!opts.fallback || !unrecorded(reply)) return writeReply(res, withCors(plain, reply, cors));
    }
    await proxy(req, res, body, headers, name);
  };

  const noRecording = (name: string, testId: string | undefined): MockReply =>
    errorReply(
      400,
      `No recordings for ${testId ? `test "${testId}"` : 'requests without a test id'}: ${fixtures.file(name)} does not exist (record it with conformance mock --record).`,
      'invalid_request_error',
      'no_recording',
    );

  const proxy = async (req: IncomingMessage, res: ServerResponse, body: Buffer, headers: Record<string, string>, name: string): Promise<void> => {
    const path = req.url ?? '/';
    const method = req.method ?? 'GET';
    const refused = unforwardable(method, path, headers.authorization);
    if (refused) return writeReply(res, withCors({ method, path, headers }, refused, cors));
    const out: Record<string, string> = { 'accept-encoding': 'identity' };
    for (const [k, v] of Object.entries(headers)) if (forwarded(k, testHeader)) out[k] = v;
    // The catalog is public (5.3): no key goes with it, the client's or the upstream's.
    if (routePath(path) === CATALOG_PATH) delete out.authorization;
    else if (opts.upstreamKey) out.authorization = `Bearer ${opts.upstreamKey}`;
    const started = performance.now();
    // The upstream is read for the client: once the client has gone, or the recorder closes, reading
    // stops (an endless upstream would be read, and its bytes kept, for ever).
    const stop = new AbortController();
    const left = () => {
      if (!res.writableFinished) stop.abort(LEFT);
    };
    res.once('close', left);
    reading.add(stop);
    // A request on a kept-alive connection while the recorder closes: not forwarded.
    if (closing) stop.abort(CLOSED);
    const kept: Buffer[] = [];
    const reads: { end: number; ms: number }[] = [];
    let size = 0;
    let status = 0;
    let replyHeaders: Record<string, string> = {};
    try {
      const up = await upstreamRequest(`${upstream}${path}`, {
        method: method as 'GET',
        headers: out,
        body: method === 'GET' || method === 'HEAD' ? undefined : body,
        headersTimeout: opts.timeoutMs ?? 120_000,
        bodyTimeout: opts.timeoutMs ?? 120_000,
        signal: stop.signal,
      });
      status = up.statusCode;
      replyHeaders = flattenHeaders(up.headers);
      for (const k of HOP_BY_HOP) delete replyHeaders[k];
      const allowed = withCors({ method, path, headers }, { status, headers: replyHeaders, body: '' }, cors);
      res.writeHead(status, 'headers' in allowed ? allowed.headers : replyHeaders);
      res.flushHeaders();
      // The client gets each read as it comes (a stream stays a stream); the recording keeps its
      // start (RECORD_MAX_BYTES) and the time of each read of it.
      for await (const chunk of up.body as AsyncIterable<Buffer>) {
        if (!res.write(chunk)) await drained(res);
        if (size < RECORD_MAX_BYTES) {
          if (size + chunk.length <= RECORD_MAX_BYTES) kept.push(chunk);
          reads.push({ end: Math.min(size + chunk.length, RECORD_MAX_BYTES), ms: Math.round(performance.now() - started) });
        }
        size += chunk.length;
      }
    } catch (e) {
      if (!stop.signal.aborted) throw e;
    } finally {
      reading.delete(stop);
      res.off('close', left);
    }
    if (stop.signal.aborted) {
      res.destroy();
      return log(`not recorded: ${stop.signal.reason} before ${method} ${path} was answered`);
    }
    res.end();
    await save(method, path.split('?')[0], body, status, replyHeaders, Buffer.concat(kept), reads, name);
  };

  /** The answer in plain bytes, then its recording. */
  const save = async (method: string, path: string, body: Buffer, status: number, headers: Record<string, string>, raw: Buffer, reads: { end: number; ms: number }[], name: string): Promise<void> => {
    let answer = raw;
    const coding = contentCoding(headers['content-encoding']);
    if (coding) {
      // The client got the bytes as they came; the recording holds what they say. (Their pace is
      // lost: the reads were of compressed bytes.)
      try {
        answer = await decoded(raw, coding);
      } catch (e) {
        return log(`not recorded: ${method} ${path}: its ${coding} body could not be decoded: ${(e as Error).message}`);
      }
      reads.splice(0, reads.length, { end: answer.length, ms: reads.at(-1)?.ms ?? 0 });
    }
    await record(method, path, body, status, headers, answer, reads, name);
  };

  const record = async (
    method: string,
    path: string,
    body: Buffer,
    status: number,
    headers: Record<string, string>,
    answer: Buffer,
    reads: { end: number; ms: number }[],
    name: string,
  ): Promise<void> => {
    if (method === 'GET' && path.endsWith('/v1/models') && status === 200) {
      const listed = modelsOf(answer);
      await fixtures.add(name, undefined, listed);
      return log(`recorded ${fixtures.file(name)}: the model list (${listed.length} models)`);
    }
    if (method === 'GET' && path.endsWith('/models.json') && status === 200) {
      let doc: unknown;
      try {
        doc = JSON.parse(answer.toString('utf8'));
      } catch {
        return log(`not recorded: the catalog at ${path} is not JSON`);
      }
      if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return log(`not recorded: the catalog at ${path} is not a JSON object`);
      await fixtures.add(name, undefined, [], doc as Record<string, unknown>);
      log(`recorded ${fixtures.file(name)}: the catalog`);
      for (const d of validCatalog(doc).errors) log(`  drift: ${d}`);
      return;
    }
    if (method !== 'POST' || !path.endsWith('/v1/chat/completions')) return;
    let request: ChatRequest;
    try {
      request = JSON.parse(redactor.text(body.toString('utf8'))) as ChatRequest;
      if (!request || !Array.isArray(request.messages)) throw new Error('no messages');
    } catch {
      return log(`not recorded: ${method} ${path} did not send a chat request the mock could match`);
    }
    const scenario = capture({ request, status, headers, body: answer, reads, upstream: upstream!, at: new Date() }, scenarioName(fixtures.count(name) + 1, request));
    await fixtures.add(name, scenario);
    log(`recorded ${fixtures.file(name)}: ${scenario.name}`);
    for (const d of scenario.recorded?.drift ?? []) log(`  drift: ${redactor.text(d)}`);
  };

  const listening = await listen(server, opts.port, opts.host, opts.tls ? 'https' : 'http');
  // Closing takes no new exchange and stops reading the upstream for those under way (their answers
  // are cut, and not recorded), lets the recordings already complete reach the disk, then cuts every
  // connection: a stop waits on no upstream and no client.
  const close = async () => {
    closing = true;
    server.close();
    for (const stop of reading) stop.abort(CLOSED);
    await Promise.allSettled([...pending]);
    await listening.close();
  };
  return { ...listening, server, fixtures, close };
}

/** Written out, or the client gone: either way there is no more to wait for. */
function drained(res: ServerResponse): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

/** No recording answers this request: a strict-scenario refusal, or no file for the test. */
function unrecorded(reply: MockReply): boolean {
  if (!('status' in reply) || reply.status !== 400 || !('body' in reply)) return false;
  const text = typeof reply.body === 'string' ? reply.body : Buffer.from(reply.body).toString('utf8');
  return /"code":"(no_scenario|no_recording)"/.test(text);
}

function modelsOf(answer: Buffer): ListedModel[] {
  try {
    const list = JSON.parse(answer.toString('utf8')) as { data?: { id?: unknown; owned_by?: unknown; created?: unknown }[] };
    return (list.data ?? [])
      .filter((m) => typeof m.id === 'string' && m.id)
      .map((m) => ({ id: m.id as string, ...(typeof m.owned_by === 'string' ? { owned_by: m.owned_by } : {}), ...(Number.isInteger(m.created) ? { created: m.created as number } : {}) }));
  } catch {
    return [];
  }
}

/** A whole body in a content coding, decoded with the kit's own decoders. */
function decoded(bytes: Buffer, coding: string): Promise<Buffer> {
  const decoder = decoderFor(coding);
  if (!decoder) return Promise.reject(new Error(`no decoder for "${coding}"`));
  return new Promise((resolve, reject) => {
    const out: Buffer[] = [];
    decoder.on('data', (c: Buffer) => out.push(c));
    decoder.on('end', () => resolve(Buffer.concat(out)));
    decoder.on('error', reject);
    decoder.end(bytes);
  });
}
