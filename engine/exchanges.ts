// Requests shared by many checks: each distinct request is sent once per run, and only when a
// selected check asks for it. A 429 is waited out within its Retry-After, a bounded number of times.
import { createHash } from 'node:crypto';
import type { Evidence } from './check.js';
import type { HttpClient, HttpResult, RequestSpec } from './http.js';
import { BodyStore } from './bodies.js';
import { BOUNDS, bounded, printable } from './bounded.js';
import { curlOf } from './curl.js';
import { jsonLimitProblem, parseError } from './json.js';
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
  /** The start of the body and its length, kept at hand for evidence: a body a run holds out of
   * memory (engine/bodies.ts) is not read back to show its first lines. Absent: `body` is at hand. */
  head?: { start: Buffer; length: number };
}

/** Bytes of each body kept at hand for evidence: more than an excerpt's characters can take. */
const HEAD_BYTES = 8 * 1024;

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

  /** Where the bodies wait between the checks that read them. */
  private readonly bodies: BodyStore;

  constructor(
    private readonly http: HttpClient,
    private readonly concurrency: number,
    private readonly retry: RetryPolicy,
    private readonly signal?: AbortSignal,
    bodies = new BodyStore(),
  ) {
    this.bodies = bodies;
  }

  /** Lets go of the bodies held: once the run's results are made, nothing reads them. */
  close(): void {
    this.bodies.close();
  }

  /** An exchange whose body the store holds, read from it whenever a check asks, until the run is
   * stopped: a check still reading then (one that judges every answer of the run) is cut short as
   * its requests are, its verdict already given. Its start stays at hand for evidence. */
  private exchange(result: HttpResult, label: string, request: RequestSpec, rateLimited: boolean, retries: number): Exchange {
    const { body, ...rest } = result;
    // A copy: a view would keep the whole body's memory.
    const head = { start: body.length <= HEAD_BYTES ? body : Buffer.from(body.subarray(0, HEAD_BYTES)), length: body.length };
    const held = this.bodies.hold(body);
    const { bodies, signal } = this;
    const read = () => {
      if (signal?.aborted) throw new Error('the run was stopped: no body is read any more');
      return bodies.read(held);
    };
    return Object.defineProperty({ ...rest, label, request, rateLimited, retries, head }, 'body', { get: read, enumerable: true }) as Exchange;
  }

  /** Every exchange of the run so far, answered or not. */
  async all(): Promise<Exchange[]> {
    return Promise.all(this.memo.values());
  }

  /** The same method, URL, headers and body give the same exchange. */
  send(spec: RequestSpec, label = `${spec.method} ${new URL(spec.url).pathname}`): Promise<Exchange> {
    const key = JSON.stringify([spec.method, spec.url, Object.entries(spec.headers).sort(), bodyKey(spec.body), spec.repeat ?? 0]);
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
      if (result.status !== 429) return this.exchange(result, label, spec, false, attempt);
      const wait = retryAfterMs(result.headers);
      if (attempt >= this.retry.maxRetries || wait === undefined || wait > this.retry.maxWaitMs) return this.exchange(result, label, spec, true, attempt);
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

/** What was read of recent bodies (parsed JSON, the stream's events, a suite's reading of them),
 * so the checks that read one answer in turn read it once. Bounded by what the readings cost (about
 * the bytes of the body each: a reading that found the body broken, a few bytes), not kept for the
 * run: a hostile run's every answer read for every check would not fit. */
const READ_CACHE_COST = 32 * 1024 * 1024;
const READ_CACHE_ENTRIES = 512;
const readCache = new Map<Exchange, { cost: number; reads: Map<string, unknown> }>();
let readCacheCost = 0;

/** `read`'s result for the body of `ex`, from the cache when this exchange was read so recently; `kind`
 * names the reading (one per function that reads), and `cost` says what keeping the result costs.
 * `read` asks for the body when it needs it (a reading made of another reads none). */
export function readOf<T>(ex: Exchange, kind: string, read: (body: () => Buffer) => T, cost: (value: T, bytes: number) => number = (_, bytes) => bytes): T {
  const own = (ex as Owning)[OWN_READS];
  if (own) {
    if (own.has(kind)) return own.get(kind) as T;
    const value = read(() => ex.body);
    own.set(kind, value);
    return value;
  }
  let entry = readCache.get(ex);
  if (entry) {
    // Read again: the most recent.
    readCache.delete(ex);
    readCache.set(ex, entry);
    if (entry.reads.has(kind)) return entry.reads.get(kind) as T;
  } else readCache.set(ex, (entry = { cost: 0, reads: new Map() }));
  const value = read(() => ex.body);
  const spent = cost(value, ex.head?.length ?? ex.body.length);
  entry.reads.set(kind, value);
  entry.cost += spent;
  readCacheCost += spent;
  for (const [old, e] of readCache) {
    if ((readCacheCost <= READ_CACHE_COST && readCache.size <= READ_CACHE_ENTRIES) || old === ex) break;
    readCache.delete(old);
    readCacheCost -= e.cost;
  }
  return value;
}

/** Where an exchange that one reader alone reads keeps its readings (readsOwn). */
const OWN_READS = Symbol('own readings');
type Owning = Exchange & { [OWN_READS]?: Map<string, unknown> };

/** `ex` keeps what is read of it with it, never in the run's cache, until forgetReads: a reader that
 * reads an exchange no other reader will ask for (a load's answer, judged once) spares the cache's
 * upkeep, which cost more than the reading outside JSON.parse. */
export function readsOwn(ex: Exchange): void {
  (ex as Owning)[OWN_READS] = new Map();
}

/** Drops what was read of `ex`: a reader that is done with an exchange (a load's answer, judged)
 * leaves its readings young garbage, whoever still holds the exchange. */
export function forgetReads(ex: Exchange): void {
  if ((ex as Owning)[OWN_READS]) {
    (ex as Owning)[OWN_READS] = undefined;
    return;
  }
  const entry = readCache.get(ex);
  if (!entry) return;
  readCache.delete(ex);
  readCacheCost -= entry.cost;
}

/** The body decoded, read anew each time: a check that wants the text of a body holds it while it reads. */
export function bodyText(ex: Exchange): string {
  return ex.body.toString('utf8');
}

export type JsonBody = { ok: true; value: unknown } | { ok: false; error: string };

const sentBodies = new WeakMap<RequestSpec, unknown>();
/** A body longer than this is not kept parsed: the request holds it already, and a second copy of
 * every request a server made large (a model id of a megabyte) is what a run cannot keep. */
const SENT_KEPT_PARSED = 64 * 1024;

/** The JSON a request carried, parsed once per request: a run's rules read the bodies of all its
 * requests, and a load sends one request many times. Undefined for no body, or one that is no JSON.
 * Shared: read it, never change it. */
export function sentJson(spec: RequestSpec): unknown {
  // One lookup where the body parsed: a load asks this of one request many times.
  const known = sentBodies.get(spec);
  if (known !== undefined || sentBodies.has(spec)) return known;
  let value: unknown;
  try {
    value = spec.body === undefined ? undefined : JSON.parse(spec.body);
  } catch {
    value = undefined;
  }
  if ((spec.body?.length ?? 0) <= SENT_KEPT_PARSED) sentBodies.set(spec, value);
  return value;
}

/** A body as a key of the requests sent: a long one by its digest, as the request holds it already. */
function bodyKey(body: string | undefined): string | null {
  if (body === undefined) return null;
  return body.length <= 1024 ? body : `#${body.length}:${createHash('sha256').update(body).digest('base64')}`;
}

/** The body as JSON, or why it is none: not UTF-8, empty, past the JSON limits (engine/json.ts:
 * counted on the bytes, before anything is parsed), or not JSON. */
export function bodyJson(ex: Exchange): JsonBody {
  return readOf(
    ex,
    'json',
    (lent): JsonBody => {
      const body = lent();
      // JSON is UTF-8 (RFC 8259, 8.1); a decoder that quietly substitutes U+FFFD would hide the fault.
      if (!isUtf8(body)) {
        const at = firstInvalidUtf8(body);
        return { ok: false, error: `body is not valid UTF-8${at ? ` (first bad byte at offset ${at.offset})` : ''}` };
      }
      if (!body.length) return { ok: false, error: 'body is empty' };
      const past = jsonLimitProblem(body);
      if (past) return { ok: false, error: past };
      try {
        return { ok: true, value: JSON.parse(body.toString('utf8')) };
      } catch (e) {
        return { ok: false, error: `body is not JSON: ${parseError(e)}` };
      }
    },
    // Why a body is no JSON is a line: kept whatever its size.
    (json, bytes) => (json.ok ? bytes : 0),
  );
}

export function bodySse(ex: Exchange): SseParse {
  return readOf(ex, 'sse', (body) => parseSse(body()));
}

export const EXCERPT_CHARS = 1200;

/** Printable excerpt of bytes that may be garbage, for a check's own message: invalid UTF-8 and
 * control bytes made visible, cut with the mark of a cut. Evidence is bounded by evidenceOf. */
export function excerpt(body: Buffer | string, max = EXCERPT_CHARS): string {
  // Four bytes per character at most: decoding more than that could not change the excerpt.
  const text = typeof body === 'string' ? body : body.subarray(0, max * 4).toString('utf8');
  const escaped = printable(text.slice(0, max));
  // Escapes lengthen the text: the excerpt is cut after them, so it stays readable in size.
  const shown = escaped.slice(0, max);
  const cut = shown.length < escaped.length || text.length > max || (typeof body !== 'string' && body.length > max * 4);
  return cut ? `${shown}… [${body.length} ${typeof body === 'string' ? 'characters' : 'bytes'} in all]` : shown;
}

/** The start of a body as evidence shows it: a window of it decoded and made printable, then
 * redacted and cut (engine/bounded.ts). `length`: of the whole body, when `body` is its start. */
function bodyExcerpt(body: Buffer | string, redactor: Redactor, length = body.length): string {
  // Four bytes per character at most, and room for a key the cut would split.
  const room = (BOUNDS.excerpt + redactor.longestForm()) * 4;
  if (typeof body === 'string') return bounded(printable(body), BOUNDS.excerpt, redactor);
  return length > room
    ? bounded(printable(body.subarray(0, room).toString('utf8')), BOUNDS.excerpt, redactor, { length, unit: 'bytes' })
    : bounded(printable(body.toString('utf8')), BOUNDS.excerpt, redactor);
}

const SHOWN_HEADERS = ['content-type', 'content-encoding', 'content-length', 'transfer-encoding', 'retry-after', 'retry-after-ms', 'www-authenticate', 'x-request-id'];

/** `tls`: the run's TLS choices, repeated in the command that replays the exchange. Every text of
 * it redacted and bounded (engine/bounded.ts); the command is the kit's own request, whole, with
 * each key as the variable that holds it. */
export function evidenceOf(ex: Exchange, redactor: Redactor, tls?: TlsFlags): Evidence {
  const headers: Record<string, string> = {};
  for (const h of SHOWN_HEADERS) if (ex.headers[h] !== undefined) headers[h] = ex.headers[h];
  const bound = (text: string, max: number) => bounded(text, max, redactor);
  const each = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, bound(v, BOUNDS.header)]));
  const body = ex.head ?? { start: ex.body, length: ex.body.length };
  return {
    label: bound(ex.label, BOUNDS.label),
    request: {
      method: ex.request.method,
      url: bound(ex.request.url, BOUNDS.url),
      headers: each(redactor.headers(ex.request.headers)),
      body: ex.request.body === undefined ? undefined : bodyExcerpt(ex.request.body, redactor),
    },
    status: ex.status,
    headers: each(redactor.headers(headers)),
    excerpt: body.length ? bodyExcerpt(body.start, redactor, body.length) : undefined,
    error: ex.error
      ? bound(`${ex.error.kind}: ${ex.error.message}${ex.bytesRead ? ` (${ex.bytesRead} bytes read)` : ''}`, BOUNDS.error)
      : ex.rateLimited
        ? `still 429 after ${ex.retries} retries`
        : undefined,
    durationMs: ex.durationMs,
    reproduce: curlOf(ex.request, redactor.shellSecrets(), tls),
  };
}
