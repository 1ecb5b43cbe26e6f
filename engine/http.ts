// Every byte the kit sends or receives goes through here: undici, a connect timeout, an idle
// timeout, an overall deadline and a body cap, so a broken server ends in evidence, never a hang.
import type { Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import { EnvHttpProxyAgent, Pool, request, type Dispatcher } from 'undici';
import { tlsFailure } from './tls-failure.js';
import type { TlsSettings } from './tls.js';

export interface Limits {
  connectTimeoutMs: number;
  /** Longest silence between two reads of headers or body. */
  idleTimeoutMs: number;
  /** Whole exchange, from connect to the last body byte. */
  deadlineMs: number;
  /** Most body bytes kept; reading stops at the first read that crosses it. */
  maxBodyBytes: number;
}

/** Of a body cut at the cap, what is kept: enough for the evidence and for what checks read of its start. */
export const KEPT_OF_A_CUT_BODY = 64 * 1024;

export const DEFAULT_LIMITS: Limits = {
  connectTimeoutMs: 10_000,
  idleTimeoutMs: 30_000,
  deadlineMs: 60_000,
  maxBodyBytes: 8 * 1024 * 1024,
};

export function limitsFor(timeoutMs: number, maxBodyBytes = DEFAULT_LIMITS.maxBodyBytes): Limits {
  return {
    connectTimeoutMs: Math.min(timeoutMs, DEFAULT_LIMITS.connectTimeoutMs),
    idleTimeoutMs: Math.min(timeoutMs, DEFAULT_LIMITS.idleTimeoutMs),
    deadlineMs: timeoutMs,
    maxBodyBytes,
  };
}

export interface RequestSpec {
  method: 'GET' | 'POST' | 'DELETE' | 'OPTIONS';
  url: string;
  /** An array sends the field once per value (a header sent twice). */
  headers: Record<string, string | string[]>;
  /** Sent as is: a check that needs a broken body builds it itself. */
  body?: string;
  /** Tells apart two sendings of the same request (to see whether answers reproduce); not sent. */
  repeat?: number;
}

/** When an answer's pieces arrived, for a load's latency profile: filled by `send` as it reads. */
export interface ReadTimes {
  /** performance.now() when the request was handed to the client. */
  sentAt: number;
  /** When the status line and headers arrived (the first byte of the answer). */
  headersAt?: number;
  /** Per read of the (decoded) body: the bytes read so far, then when, in pairs. */
  reads: number[];
}

export type TransportErrorKind = 'connect' | 'tls' | 'timeout' | 'deadline' | 'reset' | 'protocol' | 'cap' | 'other';

export interface HttpResult {
  status?: number;
  headers: Record<string, string>;
  /** Decoded from its content coding, when it had one. */
  body: Buffer;
  /** Body bytes read (decoded), which may exceed body.length by less than one read. */
  bytesRead: number;
  /** The Content-Encoding the body was decoded from (gzip, deflate, br, zstd). */
  encoding?: string;
  /** The body ended normally (not cut by a cap, a timeout or a reset). */
  complete: boolean;
  error?: { kind: TransportErrorKind; message: string };
  durationMs: number;
}

export class HttpClient {
  private readonly dispatcher: Dispatcher;

  private readonly clientCert: boolean;

  /** Requests past their deadline once their headers came, when deadlines are swept. */
  private readonly late = new Set<{ at: number; expire(): void }>();
  private sweeper?: NodeJS.Timeout;
  /** With swept deadlines and no proxy set, a pool per origin, asked by path: the URL is parsed once. */
  private readonly direct?: { pools: Map<string, Pool>; urls: Map<string, { origin: string; path: string }>; options: Pool.Options };

  /** `tls`: the run's trust, verification and client certificate (Node's defaults without).
   * `sweptDeadlines`: a load's many requests get no timer and no abort signal each (they cost a
   * request as much as undici itself): the idle timeout bounds the wait for headers, as it does
   * anyway, and one timer ends a body past its deadline; `send`'s signal is then not heeded (close
   * the client to stop what is in flight). */
  constructor(
    readonly limits: Limits,
    tls?: TlsSettings,
    private readonly opts: { sweptDeadlines?: boolean } = {},
  ) {
    this.clientCert = !!tls?.connect.cert;
    const timeouts = {
      headersTimeout: limits.idleTimeoutMs,
      bodyTimeout: limits.idleTimeoutMs,
      // Keep-alive across checks, but never reuse a socket a hostile server left half-read.
      keepAliveTimeout: 4_000,
    };
    const proxied = ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy'].some((v) => process.env[v]);
    if (opts.sweptDeadlines && !proxied) this.direct = { pools: new Map(), urls: new Map(), options: { ...timeouts, connect: { ...tls?.connect, timeout: limits.connectTimeoutMs } } };
    // Honours HTTP_PROXY / HTTPS_PROXY / NO_PROXY, as the issue asks of all HTTP from the kit.
    this.dispatcher = new EnvHttpProxyAgent({
      connectTimeout: limits.connectTimeoutMs,
      ...timeouts,
      // Direct connections, and connections through a proxy's CONNECT tunnel, trust alike.
      connect: tls?.connect,
      requestTls: tls?.connect,
      // A proxy spoken to over https is trusted through the same CAs (not --insecure: that is
      // about the server under test).
      proxyTls: tls?.connect.ca ? { ca: tls.connect.ca } : undefined,
      // As curl does: an http:// target goes through the proxy as an absolute-URI request, an
      // https:// one through a CONNECT tunnel (undici 7 would tunnel both).
      proxyTunnel: false,
      // The client of an absolute-URI proxy is made with only its connector: without this it would
      // wait 300 s for a silent server where a direct connection waits the idle timeout.
      factory: (origin: string | URL, opts: object) => new Pool(origin, { ...timeouts, ...opts }),
    });
  }

  /** With `statusOnly`, the body is not read: what a probe needs is the status line. With `times`,
   * when the headers and each read of the body arrived is noted there. */
  async send(spec: RequestSpec, signal?: AbortSignal, statusOnly = false, times?: ReadTimes): Promise<HttpResult> {
    const started = performance.now();
    if (times) times.sentAt = started;
    const swept = this.opts.sweptDeadlines;
    const deadline = swept ? undefined : AbortSignal.timeout(this.limits.deadlineMs);
    const abort = swept ? undefined : signal ? AbortSignal.any([deadline!, signal]) : deadline;
    const late = { at: started + this.limits.deadlineMs, expired: false, expire() {} };
    const deadlineHit = () => (swept ? late.expired : deadline!.aborted);
    const chunks: Buffer[] = [];
    let kept = 0;
    let bytesRead = 0;
    let status: number | undefined;
    let headers: Record<string, string> = {};
    let encoding: string | undefined;
    const done = (complete: boolean, error?: HttpResult['error']): HttpResult => ({
      status,
      headers,
      // Of a body cut at the cap only its start is kept: it is a failure whatever follows, and a
      // run that kept every cut body whole would grow by a cap per hostile answer.
      body: Buffer.concat(chunks, error?.kind === 'cap' ? Math.min(kept, KEPT_OF_A_CUT_BODY) : kept),
      bytesRead,
      complete,
      error,
      ...(encoding ? { encoding } : {}),
      durationMs: Math.round(performance.now() - started),
    });
    try {
      const res = this.direct
        ? await this.pathRequest(spec)
        : await request(spec.url, {
            method: spec.method,
            headers: spec.headers,
            body: spec.body,
            dispatcher: this.dispatcher,
            signal: abort,
          });
      if (times) times.headersAt = performance.now();
      status = res.statusCode;
      headers = flattenHeaders(res.headers);
      if (statusOnly) {
        // Destroying an unread body makes it emit an abort error: nobody is reading it.
        res.body.on('error', () => {});
        res.body.destroy();
        return done(false);
      }
      const coding = contentCoding(headers['content-encoding']);
      let source: AsyncIterable<Buffer> = res.body as AsyncIterable<Buffer>;
      if (coding) {
        const decoder = decoderFor(coding);
        if (!decoder) {
          res.body.on('error', () => {});
          res.body.destroy();
          return done(false, { kind: 'protocol', message: `the body is in content coding "${coding}", which this Node.js cannot decode` });
        }
        encoding = coding;
        (res.body as Readable).on('error', (e) => decoder.destroy(e));
        // The reader below sees the decoder's errors; once it has stopped reading (at the cap), an
        // error the teardown raises has nobody left to tell.
        decoder.on('error', () => {});
        source = (res.body as Readable).pipe(decoder);
      }
      if (swept) {
        late.expire = () => {
          late.expired = true;
          res.body.destroy(new Error('deadline'));
        };
        this.watch(late);
      }
      try {
        for await (const chunk of source) {
          bytesRead += chunk.length;
          times?.reads.push(bytesRead, performance.now());
          const room = this.limits.maxBodyBytes - kept;
          if (room > 0) {
            const piece = chunk.length > room ? chunk.subarray(0, room) : chunk;
            chunks.push(piece);
            kept += piece.length;
          }
          if (bytesRead > this.limits.maxBodyBytes) {
            res.body.destroy();
            (source as Readable).destroy?.();
            return done(false, { kind: 'cap', message: `cut at ${size(this.limits.maxBodyBytes)} (--max-body${encoding ? `, counted after ${encoding} decoding` : ''}); reading stopped` });
          }
        }
      } catch (e) {
        return done(false, classify(e, deadlineHit(), this.limits, this.clientCert, encoding));
      } finally {
        this.late.delete(late);
      }
      return done(true);
    } catch (e) {
      // A parser error carries the bytes it choked on: the evidence of what the server sent.
      const seen = (e as { data?: unknown }).data;
      if (typeof seen === 'string' && !kept) {
        const piece = Buffer.from(seen.slice(0, this.limits.maxBodyBytes), 'latin1');
        chunks.push(piece);
        kept = piece.length;
      }
      return done(false, classify(e, deadlineHit(), this.limits, this.clientCert));
    }
  }

  /** A request through the pool of its origin (swept deadlines, no proxy). */
  private pathRequest(spec: RequestSpec): Promise<Dispatcher.ResponseData> {
    const { pools, urls, options } = this.direct!;
    let at = urls.get(spec.url);
    if (!at) {
      const u = new URL(spec.url);
      urls.set(spec.url, (at = { origin: u.origin, path: `${u.pathname}${u.search}` }));
    }
    let pool = pools.get(at.origin);
    if (!pool) pools.set(at.origin, (pool = new Pool(at.origin, options)));
    return pool.request({ path: at.path, method: spec.method, headers: spec.headers, body: spec.body });
  }

  /** Ends a body once its deadline passes: one timer for every request in flight. */
  private watch(late: { at: number; expire(): void }): void {
    this.late.add(late);
    if (this.sweeper) return;
    const every = Math.max(10, Math.min(100, this.limits.deadlineMs / 4));
    this.sweeper = setInterval(() => {
      const now = performance.now();
      for (const l of this.late) if (l.at <= now) this.late.delete(l), l.expire();
      if (!this.late.size) {
        clearInterval(this.sweeper);
        this.sweeper = undefined;
      }
    }, every).unref();
  }

  close(): Promise<void> {
    clearInterval(this.sweeper);
    const pools = [...(this.direct?.pools.values() ?? [])];
    return Promise.all([this.dispatcher.destroy(), ...pools.map((p) => p.destroy())]).then(() => {});
  }
}

/** One value per name, in lower case; a field sent twice is joined as HTTP joins it. */
export function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** The one content coding to undo, lower case; identity and none give undefined. */
export function contentCoding(header: string | undefined): string | undefined {
  const coding = header?.trim().toLowerCase();
  return coding && coding !== 'identity' ? (coding === 'x-gzip' ? 'gzip' : coding) : undefined;
}

/** A streaming decoder for a coding, as every HTTP client has; undefined for one it cannot undo. */
export function decoderFor(coding: string): zlib.Gunzip | zlib.Unzip | zlib.BrotliDecompress | undefined {
  // Unzip reads both gzip and zlib-wrapped deflate, whatever the header says of the two.
  if (coding === 'gzip' || coding === 'deflate') return zlib.createUnzip();
  if (coding === 'br') return zlib.createBrotliDecompress();
  const zstd = (zlib as unknown as { createZstdDecompress?: () => zlib.Unzip }).createZstdDecompress;
  if (coding === 'zstd' && zstd) return zstd();
  return undefined;
}

/** `8 MiB`, `1.5 KiB`, `300 bytes`: sizes as a reader says them. */
export function size(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB'];
  let n = bytes;
  let u = 0;
  while (n >= 1024 && u < units.length - 1) {
    n /= 1024;
    u++;
  }
  return u === 0 ? `${bytes} bytes` : `${Number.isInteger(n) ? n : n.toFixed(1)} ${units[u]}`;
}

function classify(e: unknown, deadlineHit: boolean, limits: Limits, clientCert: boolean, encoding?: string): { kind: TransportErrorKind; message: string } {
  const err = e as { code?: string; message?: string; name?: string };
  const code = err?.code ?? '';
  if (encoding && code.startsWith('Z_')) return { kind: 'protocol', message: `the body is not valid ${encoding} (${err.message ?? code})` };
  if (deadlineHit) return { kind: 'deadline', message: `no complete answer within the deadline of ${limits.deadlineMs} ms` };
  const tls = tlsFailure(e, clientCert);
  if (tls) return { kind: 'tls', message: tls };
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return { kind: 'connect', message: `connect timed out after ${limits.connectTimeoutMs} ms` };
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH') return { kind: 'connect', message: `cannot connect: ${code}` };
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
    return { kind: 'timeout', message: `server silent for ${limits.idleTimeoutMs} ms (${code === 'UND_ERR_HEADERS_TIMEOUT' ? 'waiting for headers' : 'in the body'})` };
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return { kind: 'reset', message: `connection closed or reset by the server (${code})` };
  if (code === 'HPE_INVALID_CONSTANT' || code.startsWith('HPE_') || err?.name === 'HTTPParserError' || code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH')
    return { kind: 'protocol', message: `not a valid HTTP response: ${err.message ?? code}` };
  if (err?.name === 'AbortError') return { kind: 'deadline', message: 'aborted' };
  return { kind: 'other', message: String(err?.message ?? e) };
}
