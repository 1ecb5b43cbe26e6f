// How the clients reach the target: a WHATWG fetch on the kit's own HTTP engine (engine/http.ts
// `open`), so that what a client library reads is bounded as what the kit reads is: one deadline
// from the sending to the last byte that nothing the server sends restarts (--timeout), the idle
// limit within a body, --max-body counted after decoding (a gzip bomb ends at the cap), HTTP_PROXY
// and the run's TLS. A redirect is an answer the client gets, never followed: a 307 to another port
// would otherwise carry the key and every --header there. A request whose signal aborts, or whose
// body the client stops reading, closes its socket at once.
import { HttpClient, TransportError, type Limits, type RequestSpec } from '../engine/http.js';
import type { TlsSettings } from '../engine/tls.js';

export interface Transport {
  fetch: typeof fetch;
  close(): Promise<void>;
}

/** Response headers that no longer describe the body as the client gets it: it is decoded. */
const UNDONE = new Set(['content-encoding', 'content-length', 'transfer-encoding']);

export function transportFor(tls: TlsSettings | undefined, limits: Limits): Transport {
  const http = new HttpClient(limits, tls);
  const send = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const request = input instanceof Request ? input : undefined;
    const headers: Record<string, string> = {};
    for (const [k, v] of new Headers(init?.headers ?? request?.headers)) headers[k] = v;
    const signal = init?.signal ?? request?.signal ?? undefined;
    const spec = {
      method: (init?.method ?? request?.method ?? 'GET').toUpperCase() as RequestSpec['method'],
      url: request ? request.url : String(input),
      headers,
      body: await bodyOf(init?.body ?? (request?.body ? await request.arrayBuffer() : undefined), limits.maxBodyBytes),
    };
    signal?.throwIfAborted();
    let opened: Awaited<ReturnType<HttpClient['open']>>;
    try {
      opened = await http.open(spec, signal ?? undefined);
    } catch (e) {
      // As fetch fails: a TypeError with the cause, which every client reads as a connection error;
      // an abort of the client's own stays an AbortError.
      if (signal?.aborted) throw signal.reason;
      throw new TypeError('fetch failed', { cause: e instanceof TransportError ? e : new Error(String((e as Error)?.message ?? e)) });
    }
    const kept = new Headers();
    for (const [k, v] of Object.entries(opened.headers)) if (!UNDONE.has(k)) kept.append(k, v);
    const body = opened.body;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await body.next();
          if (done) controller.close();
          else controller.enqueue(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
        } catch (e) {
          controller.error(signal?.aborted ? signal.reason : new TypeError(`the body ended: ${(e as Error)?.message ?? e}`, { cause: e }));
        }
      },
      async cancel() {
        await body.return(undefined);
      },
    });
    // A status without a body (204, 304) takes none; a redirect is given as it came.
    const empty = opened.status === 204 || opened.status === 205 || opened.status === 304;
    if (empty) await body.return(undefined);
    return new Response(empty ? null : stream, { status: opened.status, headers: kept });
  }) as typeof fetch;
  return { fetch: send, close: () => http.close() };
}

/** A request body as the engine sends it: a client's JSON text, or its bytes, within the cap. */
async function bodyOf(body: RequestInit['body'] | ArrayBuffer, max: number): Promise<string | Uint8Array | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  const bytes = new Uint8Array(await new Response(body).arrayBuffer());
  if (bytes.length > max) throw new TypeError(`a request body of ${bytes.length} bytes, over --max-body`);
  return bytes;
}
