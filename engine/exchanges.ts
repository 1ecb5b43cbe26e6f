// Requests shared by many checks: each distinct request is sent once per run, and only when a
// selected check asks for it. A 429 is waited out within its Retry-After, a bounded number of times.
import type { Evidence } from './check.js';
import type { HttpClient, HttpResult, RequestSpec } from './http.js';
import { curlOf } from './curl.js';
import type { Redactor } from './redact.js';
import type { TlsFlags } from './tls.js';
import { isUtf8 } from 'node:buffer';
import { firstInvalidUtf8, parseSse, type SseParse } from './sse.js';

export interface Exchange extends HttpResult {
  label: string;
  request: RequestSpec;
  /** Still 429 after the allowed retries: the checks that depend on it are not-tested, not failed. */
  rateLimited: boolean;
  retries: number;
}

export interface RetryPolicy {
  maxRetries: number;
  /** A Retry-After longer than this is not waited for. */
  maxWaitMs: number;
}

export class Exchanges {
  private readonly memo = new Map<string, Promise<Exchange>>();
  /** Each distinct request, as it was first asked for: what the run cost, known without waiting on
   * an answer still on the wire. */
  readonly requests: RequestSpec[] = [];
  private inFlight = 0;
  private readonly queue: (() => void)[] = [];
  /** The requests on the wire now, with when each was sent. */
  private readonly open = new Map<object, { label: string; since: number }>();
  sent = 0;

  /** The request on the wire the longest, for a progress line. */
  slowest(): { label: string; ms: number } | undefined {
    let oldest: { label: string; since: number } | undefined;
    for (const o of this.open.values()) if (!oldest || o.since < oldest.since) oldest = o;
    return oldest && { label: oldest.label, ms: Math.round(performance.now() - oldest.since) };
  }

  constructor(
    private readonly http: HttpClient,
    private readonly concurrency: number,
    private readonly retry: RetryPolicy,
    private readonly signal?: AbortSignal,
  ) {}

  /** Every exchange of the run so far, answered or not. */
  async all(): Promise<Exchange[]> {
    return Promise.all(this.memo.values());
  }

  /** The same method, URL, headers and body give the same exchange. */
  send(spec: RequestSpec, label = `${spec.method} ${new URL(spec.url).pathname}`): Promise<Exchange> {
    const key = JSON.stringify([spec.method, spec.url, Object.entries(spec.headers).sort(), spec.body ?? null, spec.repeat ?? 0]);
    let p = this.memo.get(key);
    if (!p) {
      p = this.sendWithRetry(spec, label);
      this.memo.set(key, p);
      this.requests.push(spec);
    }
    return p;
  }

  private async sendWithRetry(spec: RequestSpec, label: string): Promise<Exchange> {
    const { repeat: _repeat, ...wire } = spec;
    for (let attempt = 0; ; attempt++) {
      const result = await this.limited(async () => {
        const token = {};
        this.open.set(token, { label, since: performance.now() });
        try {
          return await this.http.send(wire, this.signal);
        } finally {
          this.open.delete(token);
        }
      });
      this.sent++;
      if (result.status !== 429) return { ...result, label, request: spec, rateLimited: false, retries: attempt };
      const wait = retryAfterMs(result.headers);
      if (attempt >= this.retry.maxRetries || wait === undefined || wait > this.retry.maxWaitMs) return { ...result, label, request: spec, rateLimited: true, retries: attempt };
      await new Promise((r) => setTimeout(r, wait));
    }
  }

  private async limited<T>(fn: () => Promise<T>): Promise<T> {
    if (this.inFlight >= this.concurrency) await new Promise<void>((r) => this.queue.push(r));
    this.inFlight++;
    try {
      return await fn();
    } finally {
      this.inFlight--;
      this.queue.shift()?.();
    }
  }
}

/** Retry-After in seconds or as an HTTP date; retry-after-ms (the OpenAI SDKs' header) first. */
export function retryAfterMs(headers: Record<string, string>): number | undefined {
  const ms = Number(headers['retry-after-ms']);
  if (headers['retry-after-ms'] && Number.isFinite(ms) && ms >= 0) return ms;
  const v = headers['retry-after'];
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v.trim())) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

const textCache = new WeakMap<Exchange, string>();
const jsonCache = new WeakMap<Exchange, JsonBody>();
const sseCache = new WeakMap<Exchange, SseParse>();

export function bodyText(ex: Exchange): string {
  let t = textCache.get(ex);
  if (t === undefined) textCache.set(ex, (t = ex.body.toString('utf8')));
  return t;
}

export type JsonBody = { ok: true; value: unknown } | { ok: false; error: string };

export function bodyJson(ex: Exchange): JsonBody {
  let j = jsonCache.get(ex);
  if (!j) {
    const text = bodyText(ex);
    // JSON is UTF-8 (RFC 8259, 8.1); a decoder that quietly substitutes U+FFFD would hide the fault.
    if (!isUtf8(ex.body)) {
      const at = firstInvalidUtf8(ex.body);
      j = { ok: false, error: `body is not valid UTF-8${at ? ` (first bad byte at offset ${at.offset})` : ''}` };
      jsonCache.set(ex, j);
      return j;
    }
    try {
      j = { ok: true, value: JSON.parse(text) };
    } catch (e) {
      j = { ok: false, error: text.length ? `body is not JSON: ${(e as Error).message}` : 'body is empty' };
    }
    jsonCache.set(ex, j);
  }
  return j;
}

export function bodySse(ex: Exchange): SseParse {
  let s = sseCache.get(ex);
  if (!s) sseCache.set(ex, (s = parseSse(ex.body)));
  return s;
}

export const EXCERPT_CHARS = 1200;

/** Printable excerpt of bytes that may be garbage: invalid UTF-8 and control bytes made visible. */
export function excerpt(body: Buffer | string, max = EXCERPT_CHARS): string {
  // Four bytes per character at most: decoding more than that could not change the excerpt.
  const text = typeof body === 'string' ? body : body.subarray(0, max * 4).toString('utf8');
  // eslint-disable-next-line no-control-regex
  const escaped = text.slice(0, max).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  // Escapes lengthen the text: the excerpt is cut after them, so it stays readable in size.
  const shown = escaped.slice(0, max);
  const cut = shown.length < escaped.length || text.length > max || (typeof body !== 'string' && body.length > max * 4);
  return cut ? `${shown}… [${body.length} ${typeof body === 'string' ? 'characters' : 'bytes'} in all]` : shown;
}

const SHOWN_HEADERS = ['content-type', 'content-encoding', 'content-length', 'transfer-encoding', 'retry-after', 'retry-after-ms', 'www-authenticate', 'x-request-id'];

/** `tls`: the run's TLS choices, repeated in the command that replays the exchange. */
export function evidenceOf(ex: Exchange, redactor: Redactor, tls?: TlsFlags): Evidence {
  const headers: Record<string, string> = {};
  for (const h of SHOWN_HEADERS) if (ex.headers[h] !== undefined) headers[h] = ex.headers[h];
  return {
    label: ex.label,
    request: {
      method: ex.request.method,
      url: redactor.text(ex.request.url),
      headers: redactor.headers(ex.request.headers),
      body: ex.request.body === undefined ? undefined : redactor.text(excerpt(ex.request.body)),
    },
    status: ex.status,
    headers: redactor.headers(headers),
    excerpt: ex.body.length ? redactor.text(excerpt(ex.body)) : undefined,
    error: ex.error ? `${ex.error.kind}: ${ex.error.message}${ex.bytesRead ? ` (${ex.bytesRead} bytes read)` : ''}` : ex.rateLimited ? `still 429 after ${ex.retries} retries` : undefined,
    durationMs: ex.durationMs,
    reproduce: curlOf(ex.request, redactor.shellSecrets(), tls),
  };
}
