// The mock and its recorder stop when they are told to, and read nothing for a client that has gone
// (issue 32). Against an upstream that streams for ever: once the client leaves, the recorder stops
// reading it (what the upstream still writes is what socket buffers held); closing the recorder
// waits on no upstream read and no client. And one SIGTERM or SIGINT ends `conformance mock`, plain,
// over TLS or recording, whatever its clients hold open: a stream that never ends, an idle
// keep-alive connection, a connection that never finished its TLS handshake. What they hold never
// ends by itself, so a stop that waits on it hangs (caught by a guard of tens of seconds): no test
// here times the stop (issue 35).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect as connectTcp, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as connectTls } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRecorder, type Recorder } from '../../mock/record/server.js';
import { startEndlessUpstream, type EndlessUpstream } from '../support/endless-upstream.js';
import { within } from '../support/machine.js';
import { startMockProcess, type MockProcess } from '../support/mock-process.js';
import { makeCertificates, type Certificates } from '../tls/certificates.js';
import { KEY, MODEL } from './helpers.js';

const STREAM = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Write a long essay.' }], stream: true });
/** What socket buffers on both sides of two loopback connections hold, at most, with room to spare. */
const BUFFERED_MAX = 16 * 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Until `done` holds, or `ms` have passed (a hang guard): whether it held. */
async function until(done: () => boolean, ms: number): Promise<boolean> {
  const end = performance.now() + ms;
  while (!done() && performance.now() < end) await sleep(10);
  return done();
}

/** How long a stop may take before it is taken to hang: what it waits on, when broken, never ends. */
const hangGuard = () => within(20_000);

/** What `work` gives, or 'hung' if it has not ended at the hang guard. */
async function unlessHung<T>(work: Promise<T>): Promise<T | 'hung'> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), hangGuard())));
  try {
    return await Promise.race([work, guard]);
  } finally {
    clearTimeout(timer);
  }
}

/** `signal` sent to the mock's process: how it exited ('hung': still running, the test's afterEach
 * kills it), and after how many ms (evidence, not a bound). */
async function stopWith(mock: MockProcess, signal: NodeJS.Signals): Promise<{ how: string; ms: number }> {
  const t0 = performance.now();
  const exited = new Promise<string>((resolve) => mock.child.once('exit', (code, by) => resolve(`exit ${code ?? by}`)));
  mock.child.kill(signal);
  return { how: await unlessHung(exited), ms: performance.now() - t0 };
}

/** A connection to `url` (TLS when it is https, trusting the certificate `ca`), once it is open. */
async function connection(url: string, ca?: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = url.startsWith('https') ? connectTls({ host: hostname, port: Number(port), ca }) : connectTcp(Number(port), hostname);
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once(url.startsWith('https') ? 'secureConnect' : 'connect', resolve));
  return socket;
}

/** A request written on `socket`, once the first bytes of its answer have come back. */
async function asked(socket: Socket, url: string, method: string, path: string, headers: Record<string, string> = {}, body = ''): Promise<string> {
  const lines = [`${method} ${path} HTTP/1.1`, `Host: ${new URL(url).host}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  if (body) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`);
  return new Promise((resolve) => socket.once('data', (b: Buffer) => resolve(b.toString('latin1'))));
}

const chatHeaders = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

/** What a client holds open on a mock: a stream it keeps reading, and an idle keep-alive
 * connection after one answer (`idlePath`, answered without the upstream). */
async function holdOpen(url: string, key: string, idlePath: string, ca?: string, streamHeaders: Record<string, string> = {}): Promise<Socket[]> {
  const stream = await connection(url, ca);
  expect(await asked(stream, url, 'POST', '/v1/chat/completions', { ...chatHeaders(key), ...streamHeaders }, STREAM)).toMatch(/^HTTP\/1\.1 200/);
  stream.resume();
  const idle = await connection(url, ca);
  expect(await asked(idle, url, 'GET', idlePath)).toMatch(/^HTTP\/1\.1 \d+/);
  return [stream, idle];
}

describe('the recorder and an upstream that never ends', () => {
  let upstream: EndlessUpstream;
  let recorder: Recorder | undefined;
  let dir: string;
  const sockets: Socket[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'conformance-stopping-'));
  });
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    await recorder?.close();
    recorder = undefined;
    await upstream?.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stops reading the upstream once its client has gone: the upstream request is closed, having written no more than socket buffers hold after', async () => {
    upstream = await startEndlessUpstream();
    const lines: string[] = [];
    recorder = await startRecorder({ dir, mode: 'record', upstream: upstream.url, upstreamKey: 'sk-upstream-key-0000000000000000000001', log: (l) => lines.push(l) });
    const client = new AbortController();
    const res = await fetch(`${recorder.url}/v1/chat/completions`, { method: 'POST', headers: chatHeaders('sk-client-key-000000000001'), body: STREAM, signal: client.signal });
    expect(res.status).toBe(200);
    let read = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      read += chunk.length;
      if (read > 1024 * 1024) break;
    }
    client.abort();
    const atLeaving = upstream.written();
    // Before: the recorder read on for ever (277 MB in 60 s), or hung on a write the client would never drain.
    // The upstream never ends: only the recorder closes its request, and bounds what it writes.
    await until(() => upstream.closed.length === 1 || upstream.written() - atLeaving > BUFFERED_MAX, hangGuard());
    const after = upstream.written() - atLeaving;
    expect(after, `the upstream wrote ${(after / 1e6).toFixed(1)} MB after the client left`).toBeLessThan(BUFFERED_MAX);
    expect(upstream.closed.length, 'the upstream request closed').toBe(1);
    await sleep(200);
    expect(upstream.written() - atLeaving).toBe(after);
    expect(lines).toContain('not recorded: the client left before POST /v1/chat/completions was answered');
  });

  it('closes with a stream under way and an idle connection, waiting on neither: the upstream request is cut, nothing recorded', async () => {
    upstream = await startEndlessUpstream();
    const lines: string[] = [];
    recorder = await startRecorder({ dir, mode: 'record', upstream: upstream.url, log: (l) => lines.push(l) });
    sockets.push(...(await holdOpen(recorder.url, 'sk-client-key-000000000001', '/not-forwarded')));
    expect(upstream.open()).toBe(1);
    // Before: close waited for the exchange under way, which never ends.
    const closed = await unlessHung(recorder.close().then(() => 'closed'));
    recorder = undefined;
    expect(closed).toBe('closed');
    expect(await until(() => upstream.open() === 0, hangGuard()), 'the upstream request closed').toBe(true);
    expect(lines).toContain('not recorded: the recorder closed before POST /v1/chat/completions was answered');
  });
});

describe('one signal ends conformance mock, whatever its clients hold open', () => {
  let certs: Certificates;
  let upstream: EndlessUpstream | undefined;
  let mock: MockProcess | undefined;
  const sockets: Socket[] = [];
  beforeAll(() => {
    certs = makeCertificates();
  });
  afterEach(async () => {
    mock?.stop();
    mock = undefined;
    for (const s of sockets.splice(0)) s.destroy();
    await upstream?.close();
    upstream = undefined;
  });
  afterAll(() => rmSync(certs.dir, { recursive: true, force: true }));

  for (const tls of [false, true])
    it(`serving${tls ? ' over TLS' : ''}, with a stream that never ends held, an idle keep-alive connection${tls ? ' and one that never finished its handshake' : ''}: SIGTERM`, async () => {
      mock = await startMockProcess(tls ? ['--tls-cert', certs.server.cert, '--tls-key', certs.server.key] : []);
      const forever = { 'x-mock-fault': 'hostile-stream-forever' };
      sockets.push(...(await holdOpen(mock.url, KEY, '/models.json', tls ? readFileSync(certs.ca.cert, 'utf8') : undefined, forever)));
      // A TCP connection that never says anything: over TLS, no handshake (before, the mock waited on it for ever).
      const { port } = new URL(mock.url);
      const silent = connectTcp(Number(port), '127.0.0.1');
      silent.on('error', () => {});
      sockets.push(silent);
      await new Promise((resolve) => silent.once('connect', resolve));
      const stopped = await stopWith(mock, 'SIGTERM');
      expect(stopped.how, `after ${stopped.ms.toFixed(0)} ms`).toBe('exit 0');
    });

  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    it(`recording from an upstream that never ends, with a stream held and an idle keep-alive connection: ${signal}`, async () => {
      upstream = await startEndlessUpstream();
      const dir = mkdtempSync(join(tmpdir(), 'conformance-stopping-'));
      try {
        mock = await startMockProcess(['--record', dir, '--upstream', upstream.url], { CONFORMANCE_UPSTREAM_KEY: 'sk-upstream-key-0000000000000000000001' });
        sockets.push(...(await holdOpen(mock.url, 'sk-client-key-000000000001', '/not-forwarded')));
        // Before: the first signal waited for the exchange under way, which never ended.
        const stopped = await stopWith(mock, signal);
        expect(stopped.how, `after ${stopped.ms.toFixed(0)} ms`).toBe('exit 0');
        expect(await until(() => upstream!.open() === 0, hangGuard()), 'the upstream request closed').toBe(true);
        expect(mock.stderr()).toContain('not recorded: the recorder closed before POST /v1/chat/completions was answered');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
});
