// @mswjs/interceptors adapter: fetch, node:http and XMLHttpRequest requests to the base URL are
// answered in-process by the same core as the HTTP server, with no port. Web Request/Response
// objects live only here, off the node:http fast path.
import { BatchInterceptor } from '@mswjs/interceptors';
import { ClientRequestInterceptor } from '@mswjs/interceptors/ClientRequest';
import { FetchInterceptor } from '@mswjs/interceptors/fetch';
import { XMLHttpRequestInterceptor } from '@mswjs/interceptors/XMLHttpRequest';
import { errorReply } from './core/errors.js';
import { createMock, type Mock } from './core/handle.js';
import { isRaw, isStream, type BodyReply, type StreamReply } from './core/types.js';
import { MAX_REQUEST_BYTES, safeHandle } from './http.js';

export const DEFAULT_INTERCEPT_URL = 'http://mock.conformance.test';

export interface InterceptedMock {
  /** Requests under this URL are answered by the mock; all others go to the network. */
  baseUrl: string;
  mock: Mock;
  /** Restores the network. */
  dispose(): void;
}

/** Apply before an SDK client is created: clients that capture `fetch` at construction keep the
 * unpatched one otherwise. */
export function interceptMock(opts: { baseUrl?: string; mock?: Mock } = {}): InterceptedMock {
  const baseUrl = (opts.baseUrl ?? DEFAULT_INTERCEPT_URL).replace(/\/+$/, '');
  const mock = opts.mock ?? createMock();
  const interceptor = new BatchInterceptor({
    name: 'conformance-mock',
    interceptors: [new ClientRequestInterceptor(), new XMLHttpRequestInterceptor(), new FetchInterceptor()],
  });
  interceptor.on('request', async ({ request, controller }) => {
    if (request.url !== baseUrl && !request.url.startsWith(`${baseUrl}/`)) return;
    const url = new URL(request.url);
    const prefix = new URL(baseUrl).pathname.replace(/\/+$/, '');
    const headers: Record<string, string> = {};
    request.headers.forEach((v, k) => (headers[k] = v));
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : new Uint8Array(await request.arrayBuffer());
    // The same cap as the HTTP server, so both transports refuse the same requests.
    const reply = body && body.byteLength > MAX_REQUEST_BYTES
      ? errorReply(413, `Request body larger than ${MAX_REQUEST_BYTES} bytes.`, 'invalid_request_error', 'body_too_large')
      : safeHandle(mock, { method: request.method, path: url.pathname.slice(prefix.length) + url.search, headers, body });
    // Bytes outside HTTP cannot be answered in-process: the closest a fetch client sees is a network error.
    if (isRaw(reply)) return controller.errorWith(new TypeError('the mock answered with bytes that are not HTTP'));
    if (!isStream(reply) && reply.delayMs) await abortable(reply.delayMs, request.signal);
    controller.respondWith(toResponse(reply));
  });
  interceptor.apply();
  return { baseUrl, mock, dispose: () => interceptor.dispose() };
}

const NULL_BODY = new Set([101, 204, 205, 304]);

function toResponse(reply: BodyReply | StreamReply): Response {
  // A 204 (a preflight) or 304 may not have a body at all, not even an empty one.
  if (!isStream(reply)) return new Response(NULL_BODY.has(reply.status) ? null : reply.body, { status: reply.status, headers: reply.headers });
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
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}
