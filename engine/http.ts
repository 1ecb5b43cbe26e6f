// Every byte the kit sends or receives goes through here: undici, a connect timeout, an idle
// timeout within a body, a deadline for the whole exchange from the moment it is sent (1xx answers
// included) and a body cap, so a broken server ends in evidence, never a hang.
import type { Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import { EnvHttpProxyAgent, Pool, request, type Dispatcher } from 'undici';
import { stopError, SweptDeadlines, SweptRequest, type Ended } from './swept-deadlines.js';
import { tlsFailure } from './tls-failure.js';
import type { TlsSettings } from './tls.js';

export interface Limits {
  connectTimeoutMs: number;
  /** Longest silence within a body, once its headers came (the wait for headers is the deadline's):
   * --idle-timeout. At or above the deadline it never fires: the deadline comes first. */
  idleTimeoutMs: number;
  /** Whole exchange, from the moment it is sent to the last body byte: --timeout. */
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

/** The limits of a run's --timeout, --max-body and --idle-timeout: the timeout bounds the wait for
 * headers and for the end, with no cap below it; silence within a body has a limit of its own, which
 * a slow engine may need above 30 s. It is kept as given: one at or above the timeout never fires
 * first, and a lower one is what its option says (a limit of the timeout's would be no option). */
export function limitsFor(timeoutMs: number, maxBodyBytes = DEFAULT_LIMITS.maxBodyBytes, idleTimeoutMs = DEFAULT_LIMITS.idleTimeoutMs): Limits {
  return {
    connectTimeoutMs: Math.min(timeoutMs, DEFAULT_LIMITS.connectTimeoutMs),
    idleTimeoutMs,
    deadlineMs: timeoutMs,
    maxBodyBytes,
  };
}

/** The transport errors that are the kit's own limits, not the server's doing, each with the option
 * that moves it: a server may be slower, pause longer or answer more than the kit waits for or
 * keeps, and what the kit did not see is not judged (suites/api.ts, cutByKit). */
export const KIT_LIMITS: Partial<Record<TransportErrorKind, '--idle-timeout' | '--timeout' | '--max-body'>> = {
  timeout: '--idle-timeout',
  deadline: '--timeout',
  cap: '--max-body',
};

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

/** `timeout`: silence within a body past the idle limit (--idle-timeout); `deadline`: no answer, or
 * no end, within --timeout; `stopped`: the caller's signal ended it (the run's deadline, Ctrl-C). */
export type TransportErrorKind = 'connect' | 'tls' | 'timeout' | 'deadline' | 'stopped' | 'reset' | 'protocol' | 'cap' | 'other';

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

/** An answer being read (HttpClient.open): its body, decoded, yields as it comes. */
export interface Opened {
  status: number;
  headers: Record<string, string>;
  /** The Content-Encoding the body is decoded from. */
  encoding?: string;
  body: AsyncGenerator<Buffer>;
}

/** A transport's failure, of a kind a report names (a timeout, the cap, a reset). */
export class TransportError extends Error {
  constructor(
    readonly kind: TransportErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

export class HttpClient {
  private readonly dispatcher: Dispatcher;

  private readonly clientCert: boolean;

  /** With swept deadlines: the one timer that ends every request in flight at its deadline. */
  private readonly swept?: SweptDeadlines;
  /** With swept deadlines and no proxy set, a pool per origin, asked by path: the URL is parsed once. */
  private readonly direct?: { pools: Map<string, Pool>; urls: Map<string, { origin: string; path: string }>; options: Pool.Options };

  /** `tls`: the run's trust, verification and client certificate (Node's defaults without).
   * `sweptDeadlines`: a load's many requests get no timer and no AbortSignal each (they cost a
   * request as much as undici itself): one timer ends each at its deadline through a small handle
   * undici takes as its signal, and `send`'s signal is listened to once, whatever the requests. */
  constructor(
    readonly limits: Limits,
    tls?: TlsSettings,
    opts: { sweptDeadlines?: boolean } = {},
  ) {
    this.clientCert = !!tls?.connect.cert;
    const timeouts = {
      // The deadline, from the sending, is the one bound of the wait for headers: undici's own
      // headers timeout starts later, restarts at every 1xx answer, and its coarse clock (ticks of
      // half a second) can fire before a deadline of the same length.
      headersTimeout: 0,
      bodyTimeout: limits.idleTimeoutMs,
      // Keep-alive across checks, but never reuse a socket a hostile server left half-read.
      keepAliveTimeout: 4_000,
    };
    if (opts.sweptDeadlines) this.swept = new SweptDeadlines(limits.deadlineMs);
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
      // The client of an absolute-URI proxy is made with only its connector: without this its body
      // would wait out 300 s of silence where a direct connection waits the idle timeout.
      factory: (origin: string | URL, opts: object) => new Pool(origin, { ...timeouts, ...opts }),
    });
  }

  /** With `statusOnly`, the body is not read: what a probe needs is the status line. With `times`,
   * when the headers and each read of the body arrived is noted there. `signal` stops the request
   * wherever it waits (its reason is the error's message, of kind `stopped`). */
  async send(spec: RequestSpec, signal?: AbortSignal, statusOnly = false, times?: ReadTimes): Promise<HttpResult> {
    const started = performance.now();
    if (times) times.sentAt = started;
    // One deadline from here, whatever the server sends before its headers.
    let abort: AbortSignal | SweptRequest;
    let ended: () => Ended | undefined;
    if (this.swept) {
      const r = this.swept.start(signal);
      abort = r;
      ended = () => r.ended;
    } else {
      const deadline = AbortSignal.timeout(this.limits.deadlineMs);
      abort = signal ? AbortSignal.any([deadline, signal]) : deadline;
      ended = () => (deadline.aborted ? 'deadline' : signal?.aborted ? 'stopped' : undefined);
    }
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
    const failed = (e: unknown): HttpResult['error'] => {
      const why = ended();
      if (why === 'stopped') return { kind: 'stopped', message: stopError(signal!).message };
      if (why === 'deadline' && !(encoding && String((e as { code?: unknown })?.code).startsWith('Z_'))) return deadlineError(this.limits, status !== undefined);
      return classify(e, this.limits, this.clientCert, encoding);
    };
    try {
      const res = this.direct
        ? await this.pathRequest(spec, abort as SweptRequest)
        : await request(spec.url, {
            method: spec.method,
            headers: spec.headers,
            body: spec.body,
            dispatcher: this.dispatcher,
            // A swept request's handle is the small object undici takes as an emitter-like signal.
            signal: abort as AbortSignal,
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
        return done(false, failed(e));
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
      return done(false, failed(e));
    } finally {
      if (abort instanceof SweptRequest) this.swept!.done(abort);
    }
  }

  /** The answer as it comes, for a reader that reads it as a client does (a client library's fetch):
   * the status and headers once they came, and the body decoded, read by the caller, with every
   * bound `send` has. One deadline from the sending to the last byte, which nothing the server sends
   * restarts; the idle limit within the body; --max-body counted after decoding (a bomb ends at the
   * cap, never inflated); `signal` ends it wherever it waits, and the caller's stopping to read (or
   * the signal) closes the socket at once. A failure before the headers is thrown, one within the
   * body ends the reading: both as a TransportError. Redirects are answers, never followed. */
  async open(spec: Omit<RequestSpec, 'body'> & { body?: string | Uint8Array }, signal?: AbortSignal): Promise<Opened> {
    const deadline = AbortSignal.timeout(this.limits.deadlineMs);
    const abort = signal ? AbortSignal.any([deadline, signal]) : deadline;
    let status: number | undefined;
    let encoding: string | undefined;
    const failure = (e: unknown) => {
      if (e instanceof TransportError) return e;
      const error = signal?.aborted
        ? { kind: 'stopped' as const, message: stopError(signal).message }
        : deadline.aborted && !(encoding && String((e as { code?: unknown })?.code).startsWith('Z_'))
          ? deadlineError(this.limits, status !== undefined)
          : classify(e, this.limits, this.clientCert, encoding);
      return new TransportError(error.kind, error.message);
    };
    let res: Dispatcher.ResponseData | undefined;
    // A connection the pool kept alive, closed by the server as it was taken again, resets before any
    // answer: sent once more on a new connection, as browsers do. A reset of that one is the server's.
    for (let attempt = 0; !res; attempt++) {
      try {
        res = await request(spec.url, { method: spec.method, headers: spec.headers, body: spec.body, dispatcher: this.dispatcher, signal: abort });
      } catch (e) {
        const error = failure(e);
        if (error.kind !== 'reset' || attempt > 0 || abort.aborted) throw error;
      }
    }
    status = res.statusCode;
    const headers = flattenHeaders(res.headers);
    const raw = res.body as Readable;
    raw.on('error', () => {});
    const coding = contentCoding(headers['content-encoding']);
    let source: Readable = raw;
    if (coding) {
      const decoder = decoderFor(coding);
      if (!decoder) {
        raw.destroy();
        throw new TransportError('protocol', `the body is in content coding "${coding}", which this Node.js cannot decode`);
      }
      encoding = coding;
      raw.on('error', (e) => decoder.destroy(e));
      decoder.on('error', () => {});
      source = raw.pipe(decoder);
    }
    const { maxBodyBytes } = this.limits;
    const close = () => {
      raw.destroy();
      source.destroy();
    };
    // The signal's end (the deadline included) reaches a body no read is waiting on.
    abort.addEventListener('abort', close, { once: true });
    async function* body(): AsyncGenerator<Buffer> {
      let read = 0;
      try {
        for await (const chunk of source as AsyncIterable<Buffer>) {
          read += chunk.length;
          if (read > maxBodyBytes) throw new TransportError('cap', `cut at ${size(maxBodyBytes)} (--max-body${encoding ? `, counted after ${encoding} decoding` : ''}); reading stopped`);
          yield chunk;
        }
        if (abort.aborted) throw failure(abort.reason);
      } catch (e) {
        throw failure(e);
      } finally {
        abort.removeEventListener('abort', close);
        close();
      }
    }
    return { status, headers, ...(encoding ? { encoding } : {}), body: body() };
  }

  /** A request through the pool of its origin (swept deadlines, no proxy). */
  private pathRequest(spec: RequestSpec, signal: SweptRequest): Promise<Dispatcher.ResponseData> {
    const { pools, urls, options } = this.direct!;
    let at = urls.get(spec.url);
    if (!at) {
      const u = new URL(spec.url);
      urls.set(spec.url, (at = { origin: u.origin, path: `${u.pathname}${u.search}` }));
    }
    let pool = pools.get(at.origin);
    if (!pool) pools.set(at.origin, (pool = new Pool(at.origin, options)));
    return pool.request({ path: at.path, method: spec.method, headers: spec.headers, body: spec.body, signal: signal as unknown as AbortSignal });
  }

  close(): Promise<void> {
    this.swept?.close();
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

/** No answer, or no end, within the deadline: what --timeout says. */
function deadlineError(limits: Limits, headersCame: boolean): { kind: TransportErrorKind; message: string } {
  return { kind: 'deadline', message: headersCame ? `no complete answer within --timeout ${limits.deadlineMs} ms` : `no status line and headers within --timeout ${limits.deadlineMs} ms` };
}

function classify(e: unknown, limits: Limits, clientCert: boolean, encoding?: string): { kind: TransportErrorKind; message: string } {
  const err = e as { code?: string; message?: string; name?: string };
  const code = err?.code ?? '';
  if (encoding && code.startsWith('Z_')) return { kind: 'protocol', message: `the body is not valid ${encoding} (${err.message ?? code})` };
  const tls = tlsFailure(e, clientCert);
  if (tls) return { kind: 'tls', message: tls };
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return { kind: 'connect', message: `connect timed out after ${limits.connectTimeoutMs} ms` };
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH') return { kind: 'connect', message: `cannot connect: ${code}` };
  if (code === 'UND_ERR_BODY_TIMEOUT') return { kind: 'timeout', message: `server silent for ${limits.idleTimeoutMs} ms in the body (--idle-timeout)` };
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return { kind: 'reset', message: `connection closed or reset by the server (${code})` };
  if (code === 'HPE_INVALID_CONSTANT' || code.startsWith('HPE_') || err?.name === 'HTTPParserError' || code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH')
    return { kind: 'protocol', message: `not a valid HTTP response: ${err.message ?? code}` };
  return { kind: 'other', message: String(err?.message ?? e) };
}
