// node:http adapter: the fast path. Plain objects in and out; no web Request/Response here
// (building them per request cuts a Node 20 server's throughput about five times).
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { MockTls } from './tls.js';
import { boundaryGuard, boundaryOf } from './boundary.js';
import { internalError, MAX_REQUEST_BYTES, safeHandle } from './core/guard.js';
import { createMock, type Mock } from './core/handle.js';
import { limitsOf } from './core/limits.js';
import { Live } from './dashboard/live.js';
import { dashboardRoute } from './dashboard/routes.js';
import { isRaw, isStream, type MockReply, type StreamReply } from './core/types.js';

export { MAX_REQUEST_BYTES, safeHandle };

export interface MockServer {
  /** http://host:port (https:// with `tls`), the base URL and the site URL alike. */
  url: string;
  server: Server;
  mock: Mock;
  close(): Promise<void>;
}

export interface MockServerOptions {
  port?: number;
  /** The address to listen on (127.0.0.1). Which Host names and Origins are answered is the
   * mock's configuration: `allowed_hosts` and `cors.origins` (mock/boundary.ts). */
  host?: string;
  mock?: Mock;
  /** Serve https with this certificate and key (and require client certificates of `clientCa`). */
  tls?: MockTls;
  /** The live dashboard at /__mock/ (on unless false; `conformance mock --no-dashboard`). */
  dashboard?: boolean;
}

export async function startMockServer(opts: MockServerOptions = {}): Promise<MockServer> {
  const mock = opts.mock ?? createMock();
  const scheme = opts.tls ? 'https' : 'http';
  const guard = boundaryGuard(boundaryOf(mock.config), scheme);
  const live = opts.dashboard === false ? undefined : new Live(mock);
  const dashboard = live && dashboardRoute(mock, live, scheme);
  const maxBytes = limitsOf(mock.config).body_bytes;
  // Callbacks, not promises, on the way in: this path serves every request.
  const handler: RequestListener = (req, res) => {
    // Before the core sees it: a refused Host or Origin leaves no trace (journal, a fault's `times`).
    const refused = guard({ method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers });
    if (refused) return writeReply(res, refused);
    if (dashboard && req.url?.startsWith('/__mock') && dashboard(req, res)) return;
    // With a dashboard, each answer is timed from here (and followed while a page listens).
    const t0 = live ? performance.now() : 0;
    readBody(req, res, maxBytes, (body, size) => {
      // Past the size limit only the body's start was kept: the core refuses it, naming the limit.
      const plain = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers as Record<string, string>, body };
      let reply = safeHandle(mock, size > body.length ? { ...plain, size } : plain);
      if (live) reply = live.follow(reply, req.headers, res, t0);
      writeReply(res, reply);
    });
  };
  const server = serverFor(handler, opts.tls);
  const listening = await listen(server, opts.port, opts.host, scheme);
  // The pages' event streams never end by themselves: closed with the server.
  return { ...listening, close: () => (live?.close(), listening.close()), server, mock };
}

/** An http server, or with `tls` an https one: the same handler, over TLS sockets. Every route of
 * the mock, its dashboard and the recorder runs under the one guard here. */
export function serverFor(handler: RequestListener, tls?: MockTls): Server {
  const listener: RequestListener = (req, res) => guarded(res, () => handler(req, res));
  const server: Server = tls
    ? createHttpsServer({ cert: tls.cert, key: tls.key, ...(tls.clientCa ? { ca: tls.clientCa, requestCert: true, rejectUnauthorized: true } : {}) }, listener)
    : createServer(listener);
  // Longer than a client of the kit keeps an idle connection (the kit's 4 s, undici's default 4 s),
  // so that the client always lets one go first: at Node's 5 s, a client a busy moment kept from its
  // own 4 s timer sent a request on a connection the mock closed as it came (ECONNRESET), most of all
  // with the mock and the client in one process, their timers firing in the same late tick.
  server.keepAliveTimeout = 65_000;
  return server;
}

/** Listens (on 127.0.0.1 and a free port unless told otherwise) and says where, with what stops it:
 * closing cuts every connection at once (a stream held open, an idle keep-alive one, one still in
 * its TLS handshake), so that a stop is never left waiting on a client. */
export async function listen(server: Server, port = 0, host = '127.0.0.1', scheme = 'http'): Promise<{ url: string; close(): Promise<void> }> {
  // Every TCP socket, from its accept: the http server's own list (closeAllConnections) has a TLS
  // socket only once its handshake is done, and server.close waits for the others.
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shown = address.address.includes(':') ? `[${address.address}]` : address.address;
  return {
    url: `${scheme}://${shown}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/** Sends a reply of the core, paced as it says. */
export function writeReply(res: ServerResponse, reply: MockReply): void {
  // The client went away mid-request, or a stream's generator failed: nothing left to answer.
  if (isStream(reply) || (!isRaw(reply) && reply.delayMs)) send(res, reply).catch(() => res.destroy());
  else sendNow(res, reply);
}

/** A step of a request run under the guard: a throw is a 500 JSON error, or a cut connection once
 * the answer has begun; never a dead process. The listener and the body's arrival, the two ways
 * into a request, both pass here. */
function guarded(res: ServerResponse, step: () => void): void {
  try {
    step();
  } catch (e) {
    try {
      if (res.headersSent) res.destroy();
      else sendNow(res, internalError(e) as Exclude<MockReply, StreamReply>);
    } catch {
      res.destroy();
    }
  }
}

/** The request's body and its size: past `max` bytes, only what came before (what follows is read
 * and let go, so the client gets its answer). */
export function readBody(req: IncomingMessage, res: ServerResponse, max: number, done: (body: Buffer, size: number) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (c: Buffer) => {
    if (size < max) chunks.push(size + c.length <= max ? c : c.subarray(0, max - size));
    size += c.length;
  });
  req.on('end', () => guarded(res, () => done(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks), size)));
  req.on('error', () => res.destroy());
}

/** A reply with no pause: written at once. */
function sendNow(res: ServerResponse, reply: Exclude<MockReply, StreamReply>): void {
  if (isRaw(reply)) {
    res.socket?.end(reply.raw);
    return;
  }
  // Encoded once: its length and its bytes come from the same buffer.
  const bytes = typeof reply.body === 'string' ? Buffer.from(reply.body) : reply.body;
  res.writeHead(reply.status, { ...reply.headers, 'content-length': bytes.length });
  res.end(bytes);
}

/** How long written frames are given to reach the client before a reset cuts the connection. */
const RESET_GRACE_MS = 25;

async function send(res: ServerResponse, reply: MockReply): Promise<void> {
  if (!isStream(reply)) {
    if (!isRaw(reply) && reply.delayMs && (await pause(res, reply.delayMs))) return;
    sendNow(res, reply);
    return;
  }
  res.writeHead(reply.status, reply.headers);
  // The frames due at one moment leave in one write, not one each: an unpaced stream's headers and
  // its 35 events went out as 36 writes and system calls, its events now in one, with its headers.
  // Every pause sends what is held first, so a client waiting for the first token already knows the
  // stream started, and frames due apart (a split event's pieces) still leave apart.
  let held: (string | Uint8Array)[] = [];
  let heldBytes = 0;
  let corked = true;
  res.cork();
  res.flushHeaders();
  let gone = false;
  const closed = new Promise<void>((r) => res.once('close', () => ((gone = true), r())));
  /** Writes what is held; waits while the client is behind (its buffer past the high-water mark). */
  const flush = async (): Promise<void> => {
    const ok = !held.length || res.write(held.length === 1 ? held[0] : joined(held));
    held = [];
    heldBytes = 0;
    if (corked) {
      corked = false;
      res.uncork();
    }
    if (!ok) await Promise.race([new Promise((r) => res.once('drain', r)), closed]);
  };
  // A client that disconnects stops generation: the frame iterator is simply not advanced.
  // Pauses are kept to a schedule from the stream's start, so time spent writing (or waiting for
  // the event loop under load) does not add up over a long stream.
  let due = performance.now();
  for (const frame of reply.stream) {
    due += frame.delayMs;
    const wait = 'apart' in frame && frame.apart ? Math.max(frame.delayMs, due - performance.now()) : due - performance.now();
    if (frame.delayMs > 0 && wait > 0) {
      await flush();
      if (!gone) await Promise.race([new Promise((r) => setTimeout(r, wait).unref()), closed]);
    }
    if (gone) return;
    if ('reset' in frame) {
      // A reset discards what the client has not read yet: what was written before it is flushed
      // and given a moment to be read, so a stream dropped after N chunks delivers N chunks.
      await flush();
      await new Promise<void>((r) => res.write('', () => r()));
      await Promise.race([new Promise((r) => setTimeout(r, RESET_GRACE_MS).unref()), closed]);
      if (res.socket) reset(res.socket);
      return;
    }
    held.push(frame.bytes);
    heldBytes += frame.bytes.length;
    // An unpaced stream of any length is held a write's worth at a time, never whole.
    if (heldBytes >= HELD_MAX) await flush();
    if (gone) return;
  }
  await flush();
  if (!gone) res.end();
}

/** What an unpaced stream holds before it writes: a socket's usual high-water mark. */
const HELD_MAX = 16 * 1024;

/** Frames as one write: text as text; with bytes among them, bytes. */
function joined(parts: (string | Uint8Array)[]): string | Uint8Array {
  if (parts.every((p) => typeof p === 'string')) return parts.join('');
  return Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
}

/** A TLS socket's reset goes out on the TCP socket beneath it (the TLS one has no TCP handle). */
function reset(socket: Socket): void {
  const tcp = (socket as Socket & { _parent?: Socket | null })._parent ?? socket;
  tcp.resetAndDestroy();
  socket.destroy();
}

/** Waits, unless the client goes first; true when it went. */
function pause(res: ServerResponse, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      res.off('close', gone);
      resolve(false);
    }, ms);
    const gone = () => {
      clearTimeout(timer);
      resolve(true);
    };
    res.once('close', gone);
  });
}
