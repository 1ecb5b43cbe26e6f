// The fetch a client is given for one flow: it sends through the run's transport, and keeps each
// exchange as the flow's evidence (the request, the status, the start and the end of the body as the
// client read it), counts what the flow asked for, and answers a chat request with the kit's own 429
// when the retry flow asks it to. The body is watched as it passes to the client, never read ahead of
// it: a copy read beside the client (Response.clone) pulls the stream faster than the client does,
// and changed how openai's stream helper ends an aborted stream.
import type { Evidence } from '../engine/check.js';
import { curlOf } from '../engine/curl.js';
import { TransportError, type RequestSpec, type TransportErrorKind } from '../engine/http.js';
import { cutByKit } from '../suites/api.js';
import type { Redactor } from '../engine/redact.js';
import type { TlsFlags } from '../engine/tls.js';

/** Characters kept of a body's start and of its end: a stream's usage and errors come last. */
const KEPT = 600;
/** The request headers evidence shows (and its curl sends): what the server reads, not the SDK's
 * telemetry (x-stainless-*, user-agent). */
const SHOWN_REQUEST = ['authorization', 'content-type', 'accept'];
const SHOWN_RESPONSE = ['content-type', 'retry-after', 'retry-after-ms', 'x-request-id'];

interface Recorded {
  label: string;
  request: RequestSpec;
  sentAt: number;
  status?: number;
  headers: Record<string, string>;
  head: string;
  tail: string;
  length: number;
  error?: string;
  durationMs?: number;
  /** What the client read of the body, not yet kept as head or tail. */
  rest: string;
  /** The body's bytes as the client read them (within --max-body: the transport cut it there), for
   * the rules a failed flow is judged by (judge.ts); dropped once the flow is judged. */
  bytes: Uint8Array[];
  /** Every header of the answer, for the rules that read them (CORS, for a page). */
  allHeaders: Record<string, string>;
  /** The body came to its end, as the client read it. */
  whole: boolean;
  /** The client itself stopped the body (an abort it was asked for): no rule reads what is left. */
  stoppedByClient: boolean;
  /** The kit's own limit cut the answer (the deadline, the idle limit, --max-body): its kind, and why
   * in words naming the option (suites/api.ts, cutByKit). */
  cut?: TransportErrorKind;
  cutWhy?: string;
  /** The origin of the page that sent it (the browser client). */
  origin?: string;
}

/** An answer as the client read it, for the rules a failed flow is judged by. */
export interface OwnAnswer {
  request: RequestSpec;
  status?: number;
  headers: Record<string, string>;
  body: Buffer;
  whole: boolean;
  stoppedByClient: boolean;
  cut?: TransportErrorKind;
  origin?: string;
  durationMs: number;
}

export class Recorder {
  private readonly exchanges: Recorded[] = [];
  private busy?: number;

  /** `base`: the run's transport (its TLS and proxies, or the mock in-process). `extra`: the run's
   * --header values, sent as the run sends them. */
  constructor(
    private readonly base: typeof fetch,
    private readonly keep: readonly string[] = [],
  ) {}

  /** The next chat request is answered 429 by the kit. */
  busyOnce(retryAfterMs: number): void {
    this.busy = retryAfterMs;
  }

  readonly fetch: typeof fetch = async (input, init) => {
    const request = input instanceof Request ? input : undefined;
    const url = request ? request.url : String(input);
    const method = (init?.method ?? request?.method ?? 'GET').toUpperCase() as RequestSpec['method'];
    const all = new Headers(init?.headers ?? request?.headers);
    const headers: Record<string, string> = {};
    for (const [k, v] of all) if (SHOWN_REQUEST.includes(k) || this.keep.includes(k)) headers[k] = v;
    const body = typeof init?.body === 'string' ? init.body : init?.body instanceof Uint8Array ? Buffer.from(init.body).toString('utf8') : init?.body ? '(a body the client streamed)' : undefined;
    const rec: Recorded = {
      label: `${method} ${new URL(url).pathname}`,
      request: { method, url, headers, ...(body !== undefined ? { body } : {}) },
      sentAt: performance.now(),
      headers: {},
      head: '',
      tail: '',
      length: 0,
      rest: '',
      bytes: [],
      allHeaders: {},
      whole: false,
      stoppedByClient: false,
    };
    this.exchanges.push(rec);
    if (this.busy !== undefined && method === 'POST' && url.includes('/chat/completions')) {
      const ms = this.busy;
      this.busy = undefined;
      rec.label = '429 answered by the kit, as a busy server does (Retry-After); the retry goes to the server';
      const text = JSON.stringify({ error: { message: 'Rate limit reached: retry after the time given in Retry-After.', type: 'rate_limit_error', code: 'rate_limit_exceeded' } });
      const res = new Response(text, { status: 429, headers: { 'content-type': 'application/json', 'retry-after': String(Math.max(1, Math.ceil(ms / 1000))), 'retry-after-ms': String(ms) } });
      Object.assign(rec, { status: 429, head: text, length: text.length, durationMs: 0, headers: shownOf(res.headers), whole: true });
      rec.bytes.push(new TextEncoder().encode(text));
      return res;
    }
    try {
      const res = await this.base(input, init);
      rec.status = res.status;
      rec.headers = shownOf(res.headers);
      for (const [k, v] of res.headers) rec.allHeaders[k] = v;
      rec.durationMs = Math.round(performance.now() - rec.sentAt);
      return res.body ? watched(res, rec, init?.signal ?? request?.signal) : res;
    } catch (e) {
      rec.error =
        (e as Error)?.name === 'AbortError'
          ? 'aborted by the client'
          : `${(e as Error)?.message ?? e}${(e as { cause?: Error }).cause?.message ? ` (${(e as { cause?: Error }).cause!.message})` : ''}`;
      if ((e as Error)?.name === 'AbortError') rec.stoppedByClient = true;
      cutOf(rec, e);
      rec.durationMs = Math.round(performance.now() - rec.sentAt);
      throw e;
    }
  };

  /** An exchange made without this fetch (a browser's), as evidence and in the count. */
  record(e: { request: RequestSpec; status?: number; headers?: Record<string, string>; error?: string; origin?: string }): void {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(e.request.headers)) if (SHOWN_REQUEST.includes(k.toLowerCase())) headers[k.toLowerCase()] = String(v);
    this.exchanges.push({
      label: `${e.request.method} ${new URL(e.request.url).pathname} (from the page)`,
      request: { ...e.request, headers },
      sentAt: performance.now(),
      ...(e.status !== undefined ? { status: e.status } : {}),
      headers: e.headers ?? {},
      head: '',
      tail: '',
      length: 0,
      rest: '',
      bytes: [],
      allHeaders: e.headers ?? {},
      // The page read the body; the kit sees its status and headers only.
      whole: false,
      stoppedByClient: false,
      ...(e.error ? { error: e.error } : {}),
      ...(e.origin ? { origin: e.origin } : {}),
    });
  }

  /** Every answer as the client read it, for the rules its flow is judged by (judge.ts). */
  answers(): OwnAnswer[] {
    return this.exchanges.map((e) => ({
      request: e.request,
      ...(e.status !== undefined ? { status: e.status } : {}),
      headers: e.allHeaders,
      body: Buffer.concat(e.bytes),
      whole: e.whole,
      stoppedByClient: e.stoppedByClient,
      ...(e.cut ? { cut: e.cut } : {}),
      ...(e.origin ? { origin: e.origin } : {}),
      durationMs: e.durationMs ?? 0,
    }));
  }

  /** Lets go of the bodies kept for judging: the flow is judged, or passed. */
  forget(): void {
    for (const e of this.exchanges) e.bytes = [];
  }

  /** Why the kit cut an exchange of the flow at its own limit, the first it cut; or undefined. */
  cut(): string | undefined {
    return this.exchanges.find((e) => e.cutWhy)?.cutWhy;
  }

  /** The requests sent (the kit's 429 counted: the client sent it), for the run's cost. */
  requests(): RequestSpec[] {
    return this.exchanges.map((e) => e.request);
  }

  chatRequests(): { status?: number; sentAt: number }[] {
    return this.exchanges.filter((e) => e.request.method === 'POST' && e.request.url.includes('/chat/completions')).map((e) => ({ status: e.status, sentAt: e.sentAt }));
  }

  /** Every exchange as evidence: what the client read of each body. */
  evidence(redactor: Redactor, tls?: TlsFlags): Evidence[] {
    return this.exchanges.map(settle).map((e) => ({
      label: e.label,
      request: { method: e.request.method, url: e.request.url, headers: redactor.headers(e.request.headers), ...(e.request.body !== undefined ? { body: e.request.body } : {}) },
      ...(e.status !== undefined ? { status: e.status } : {}),
      headers: e.headers,
      ...(e.length ? { excerpt: e.length > 2 * KEPT ? `${e.head}\n… [${e.length - 2 * KEPT} characters left out] …\n${e.tail}` : e.head + e.tail } : {}),
      ...(e.error ? { error: e.error } : {}),
      ...(e.durationMs !== undefined ? { durationMs: e.durationMs } : {}),
      reproduce: curlOf(e.request, redactor.shellSecrets(), tls),
    }));
  }
}

function shownOf(h: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of SHOWN_RESPONSE) {
    const v = h.get(name);
    if (v !== null) out[name] = v;
  }
  return out;
}

/** The response as the client gets it, its body passed through a watch that keeps the start and the
 * end of what the client reads; an error of the body (an abort, a reset) is noted as it passes. As
 * fetch does, the request's signal aborting errors the body at once (undici's own body, read through
 * the watch, was seen to leave a read pending after the abort, and openai's helper with it). */
function watched(res: Response, rec: Recorded, signal: AbortSignal | null | undefined): Response {
  const decoder = new TextDecoder();
  const keep = (text: string) => {
    rec.rest += text;
    // Only the start and the end are kept: the middle is counted and dropped as it comes.
    if (!rec.head && rec.rest.length >= KEPT) {
      rec.head = rec.rest.slice(0, KEPT);
      rec.length += KEPT;
      rec.rest = rec.rest.slice(KEPT);
    }
    if (rec.head && rec.rest.length > KEPT) {
      rec.length += rec.rest.length - KEPT;
      rec.rest = rec.rest.slice(-KEPT);
    }
  };
  const reader = res.body!.getReader();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      signal?.addEventListener(
        'abort',
        () => {
          rec.error ??= 'the body was aborted by the client';
          rec.stoppedByClient = true;
          controller.error(signal.reason ?? new DOMException('This operation was aborted', 'AbortError'));
          reader.cancel(signal.reason).catch(() => {});
        },
        { once: true },
      );
    },
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          keep(decoder.decode());
          rec.whole = true;
          controller.close();
          return;
        }
        keep(decoder.decode(value, { stream: true }));
        rec.bytes.push(value);
        controller.enqueue(value);
      } catch (e) {
        rec.error ??= (e as Error)?.name === 'AbortError' ? 'the body was aborted by the client' : `the body ended with an error: ${(e as Error)?.message ?? e}`;
        if ((e as Error)?.name === 'AbortError') rec.stoppedByClient = true;
        cutOf(rec, e);
        controller.error(e);
      }
    },
    cancel(reason) {
      rec.error ??= 'the client stopped reading the body';
      rec.stoppedByClient = true;
      return reader.cancel(reason);
    },
  });
  const out = new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  // What the client may read of the original besides its body.
  Object.defineProperty(out, 'url', { value: res.url });
  return out;
}

/** An exchange with what the client read so far kept as its head or tail. */
function settle(e: Recorded): Recorded {
  if (!e.rest) return e;
  const kept = e.head ? { tail: e.rest } : { head: e.rest };
  return { ...e, ...kept, length: e.length + e.rest.length, rest: '' };
}

/** Where the kit's own transport cut an answer (its deadline, its idle limit, --max-body), from the
 * error the client was given: its cause, as clients/transport.ts wraps it, or the cause's cause, as a
 * client library wraps that. The first cut of an exchange is the one kept. */
function cutOf(rec: Recorded, e: unknown): void {
  if (rec.cut) return;
  for (let at = e, depth = 0; at && depth < 4; at = (at as { cause?: unknown }).cause, depth++) {
    if (!(at instanceof TransportError)) continue;
    const why = cutByKit({ error: { kind: at.kind, message: at.message }, status: rec.status, bytesRead: rec.bytes.reduce((n, b) => n + b.length, 0) });
    if (why) {
      rec.cut = at.kind;
      rec.cutWhy = why;
    }
    return;
  }
}
