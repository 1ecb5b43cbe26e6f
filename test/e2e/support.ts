// Shared by the end-to-end tests with the real clients: the two ways of running the mock (a
// loopback HTTP server, and the in-process interceptor with no port), the journal read back over
// the mock's own route, and a watch on every host the test process tries to reach.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, expect } from 'vitest';
import { z } from 'zod';
import { createMock, DEFAULT_CONFIG, DEFAULT_INTERCEPT_URL, interceptMock, startMockServer, type Mock } from '../../mock/index.js';
import type { JournalEntry } from '../../mock/core/journal.js';
import { ONLY_A_HANG_MS } from '../support/machine.js';

export const ALPHA = DEFAULT_CONFIG.keys[0];
export const BETA = DEFAULT_CONFIG.keys[1];
/** Listed for both keys. */
export const MODEL = 'mock-chat-1';
/** Listed for beta only. */
export const BETA_ONLY_MODEL = BETA.models.find((m) => !ALPHA.models.includes(m))!;

export const RATE_LIMITED = 'rate-limited; retry_after_ms=50; times=1';
export const STREAM_ERROR = 'stream-error; chunks=2';
/** What the stream-error fault's error event says. */
export const STREAM_ERROR_MESSAGE = 'The model stopped with an internal error.';

/** The clients' own timeout against the mock: one only a hang reaches (a hung request fails the test
 * at the test's own limit first). */
export const TIMEOUT_MS = ONLY_A_HANG_MS;
export const MAX_RETRIES = 1;

export interface Transport {
  name: string;
  /** The base URL an OpenAI-compatible client is given: ends in /v1. */
  baseURL: string;
  mock: Mock;
  /** Chat requests the mock received after `since` (a seq), read over GET /__mock/requests. */
  chatRequests(since?: number): Promise<JournalEntry[]>;
  /** The last journal seq, to read what a test sent from there on. */
  mark(): Promise<number>;
  close(): Promise<void>;
}

function journalReader(origin: string) {
  const all = async (): Promise<JournalEntry[]> => {
    const res = await fetch(`${origin}/__mock/requests`);
    if (!res.ok) throw new Error(`journal: ${res.status}`);
    return ((await res.json()) as { data: JournalEntry[] }).data;
  };
  return {
    chatRequests: async (since = 0) => (await all()).filter((e) => e.seq > since && e.path.split('?')[0] === '/v1/chat/completions'),
    mark: async () => (await all()).at(-1)?.seq ?? 0,
  };
}

/** Each e2e file runs its scenarios once per entry: over loopback HTTP, then in-process. Each
 * start gets a fresh mock, so fault counters (`times=`) and the journal start empty. */
export const TRANSPORTS: { name: string; start(): Promise<Transport> }[] = [
  {
    name: 'http',
    start: async () => {
      const server = await startMockServer({ mock: createMock() });
      return { name: 'http', baseURL: `${server.url}/v1`, mock: server.mock, ...journalReader(server.url), close: server.close };
    },
  },
  {
    name: 'in-process',
    // The interceptor is applied here, before any SDK client of the suite is created.
    start: async () => {
      const m = interceptMock({ mock: createMock() });
      return { name: 'in-process', baseURL: `${m.baseUrl}/v1`, mock: m.mock, ...journalReader(m.baseUrl), close: async () => m.dispose() };
    },
  },
];

const ALLOWED_HOSTS = new Set(['127.0.0.1', new URL(DEFAULT_INTERCEPT_URL).hostname]);

/** Records every host the process looks up, connects to or sends a fetch/http request to, from
 * now until stop(): the tests prove they reached nothing but the loopback server and the
 * interceptor's fake host. */
export function watchNetwork(): { hosts(): string[]; outside(): string[]; connections(): number; stop(): void } {
  const seen = new Set<string>();
  let connections = 0;
  const add = (host: unknown) => {
    if (typeof host === 'string' && host) seen.add(host.replace(/^\[|\]$/g, '').replace(/^::ffff:/, ''));
  };
  const onSocket = (msg: unknown) => {
    const socket = (msg as { socket?: Socket }).socket;
    socket?.once('lookup', (_err: unknown, _address: unknown, _family: unknown, host: unknown) => add(host));
    socket?.once('connect', () => {
      connections++;
      add(socket.remoteAddress);
    });
  };
  const onUndici = (msg: unknown) => {
    const origin = (msg as { request?: { origin?: unknown } }).request?.origin;
    if (origin) add(new URL(String(origin)).hostname);
  };
  const onHttp = (msg: unknown) => add((msg as { request?: { host?: unknown } }).request?.host);
  const channels: [string, (msg: unknown) => void][] = [
    ['net.client.socket', onSocket],
    ['undici:request:create', onUndici],
    ['http.client.request.start', onHttp],
  ];
  for (const [name, fn] of channels) subscribe(name, fn);
  return {
    hosts: () => [...seen],
    /** TCP connections made so far: none while only the in-process mock is used. */
    connections: () => connections,
    outside: () => [...seen].filter((h) => !ALLOWED_HOSTS.has(h)),
    stop: () => {
      for (const [name, fn] of channels) unsubscribe(name, fn);
    },
  };
}

/** Runs `fn` and returns what it threw (failing when it did not). */
export async function thrown(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected an error, none was thrown');
}

/** Every e2e file: at its end, the HTTP runs reached the loopback server and nothing else was reached. */
export function guardNetwork(): ReturnType<typeof watchNetwork> {
  const network = watchNetwork();
  afterAll(() => {
    network.stop();
    expect(network.hosts(), 'the HTTP runs reached the loopback server').toContain('127.0.0.1');
    expect(network.outside(), 'hosts other than the mock').toEqual([]);
  });
  return network;
}

/** The shapes the SDKs are asked for: a tool's arguments and a structured output. */
export const Weather = z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']), days: z.number().int().min(1).max(7) });
export const Person = z.object({ name: z.string(), age: z.number().int().min(0).max(150), tags: z.array(z.string()), active: z.boolean() });

/** Starts a transport for a describe block and stops it after, checking that in-process means no
 * port (not one TCP connection) and HTTP means a real one. */
export function useTransport(transport: (typeof TRANSPORTS)[number], network: ReturnType<typeof watchNetwork>, onStart: (t: Transport) => void): void {
  let t: Transport | undefined;
  let connectionsBefore = 0;
  beforeAll(async () => {
    connectionsBefore = network.connections();
    t = await transport.start();
    onStart(t);
  });
  afterAll(async () => {
    await t?.close();
    if (transport.name === 'in-process') expect(network.connections() - connectionsBefore).toBe(0);
    else expect(network.connections() - connectionsBefore).toBeGreaterThan(0);
  });
}
