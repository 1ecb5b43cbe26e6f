// A web Request answered by the core as a web Response: what both in-process adapters (Node's
// interceptors and the browser's) do with a request under the mock's base URL, so they serve the
// same bytes. Web Request/Response objects live here, off the node:http fast path. No Host or Origin
// is checked here (mock/boundary.ts): there is no socket, so no other page can reach this mock.
import { BatchInterceptor, type HttpRequestEventMap, type Interceptor } from '@mswjs/interceptors';
import { errorReply } from './core/errors.js';
import { internalError, safeHandle } from './core/guard.js';
import type { Mock } from './core/handle.js';
import { isRaw, isStream, type BodyReply, type StreamReply } from './core/types.js';

/** Whether a request goes to the mock at `baseUrl` (no trailing slash). */
const isUnder = (url: string, baseUrl: string) => url === baseUrl || url.startsWith(`${baseUrl}/`);

/** Answers what these interceptors catch under `baseUrl` with the mock, and lets the rest through.
 * Returns what restores them. */
export function interceptWith(name: string, interceptors: Interceptor<HttpRequestEventMap>[], mock: Mock, baseUrl: string): () => void {
  const interceptor = new BatchInterceptor({ name, interceptors });
  interceptor.on('request', async ({ request, controller }) => {
    if (!isUnder(request.url, baseUrl)) return;
    const r = await answer(mock, request, baseUrl);
    if (r instanceof TypeError) controller.errorWith(r);
    else controller.respondWith(r);
  });
  interceptor.apply();
  return () => interceptor.dispose();
}

/** The mock's answer, or the error a fetch client would see (bytes that are not HTTP). Under the
 * same guard as the HTTP server's routes: a throw is a 500 JSON error. */
export async function answer(mock: Mock, request: Request, baseUrl: string): Promise<Response | TypeError> {
  try {
    return await answered(mock, request, baseUrl);
  } catch (e) {
    return toResponse(internalError(e) as BodyReply);
  }
}

async function answered(mock: Mock, request: Request, baseUrl: string): Promise<Response | TypeError> {
  const url = new URL(request.url);
  const prefix = new URL(baseUrl).pathname.replace(/\/+$/, '');
  const headers: Record<string, string> = {};
  request.headers.forEach((v, k) => (headers[k] = v));
  let body: Uint8Array | undefined;
  try {
    body = request.method === 'GET' || request.method === 'HEAD' ? undefined : new Uint8Array(await request.arrayBuffer());
  } catch (e) {
    return toResponse(errorReply(400, `The request body could not be read: ${(e as Error).message}`, 'invalid_request_error', 'unreadable_body') as BodyReply);
  }
  // The core holds the body to the same limits as for the HTTP server: every transport refuses the same requests.
  const reply = safeHandle(mock, { method: request.method, path: url.pathname.slice(prefix.length) + url.search, headers, body });
  // Bytes outside HTTP cannot be answered in-process: the closest a fetch client sees is a network error.
  if (isRaw(reply)) return new TypeError('the mock answered with bytes that are not HTTP');
  if (!isStream(reply) && reply.delayMs) await abortable(reply.delayMs, request.signal);
  return toResponse(reply);
}

const NULL_BODY = new Set([101, 204, 205, 304]);

function toResponse(reply: BodyReply | StreamReply): Response {
  // A 204 (a preflight) or 304 may not have a body at all, not even an empty one.
  if (!isStream(reply)) return new Response(NULL_BODY.has(reply.status) ? null : (reply.body as ConstructorParameters<typeof Response>[0]), { status: reply.status, headers: reply.headers });
  const frames = reply.stream[Symbol.iterator]();
  let due = performance.now();
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = frames.next();
      if (next.done) return controller.close();
      // Kept to a schedule from the stream's start, as the HTTP adapter does.
      due += next.value.delayMs;
      const wait = 'apart' in next.value && next.value.apart ? Math.max(next.value.delayMs, due - performance.now()) : due - performance.now();
      if (next.value.delayMs > 0 && wait > 0) await new Promise((r) => setTimeout(r, wait));
      if ('reset' in next.value) return controller.error(new TypeError('the mock reset the connection'));
      const bytes = next.value.bytes;
      controller.enqueue(typeof bytes === 'string' ? encoder.encode(bytes) : bytes);
    },
    // The client stopped reading: generation stops with it.
    cancel() {
      frames.return?.();
    },
  });
  return new Response(body, { status: reply.status, headers: reply.headers });
}

/** A paced or slow reply waits, unless the client aborts first. */
function abortable(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
