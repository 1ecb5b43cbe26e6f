// The client libraries run in a process of their own: the command line itself, as the hidden command
// `conformance __client`, with a heap limit. Whatever a library does (loops on an answer, holds a
// timer for a day, a browser that handles signals its own way), the run ends it: at the run's end
// (its deadline, the first Ctrl-C) the process is told to stop, and a moment later it is killed. What
// it ran comes back as the flows' results, their evidence already redacted, sealed again by the run.
// One process for every client: each process of Node holds some 60 MB before it loads anything, and
// the libraries are loaded there only (some 115 MB), never in the run's own process.
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Limits, RequestSpec } from '../engine/http.js';
import type { TlsSettings } from '../engine/tls.js';
import { redactorFor } from '../engine/runner.js';
import type { ClientInfo, FlowResult } from '../report/clients.js';
import { CLIENTS } from './index.js';
import { loadClients } from './load.js';
import { runFlows, unrunFlows } from './run.js';
import { transportFor } from './transport.js';

/** What the clients' process is asked to run. */
export interface ClientJob {
  clients: readonly string[];
  flows?: readonly string[];
  baseUrl: string;
  apiKey: string;
  models: readonly string[];
  headers: Record<string, string>;
  limits: Limits;
  tls?: TlsSettings;
  concurrency: number;
  pageHost?: string;
  /** No model to run the flows on, and why: the clients are loaded, and their flows not tested. */
  noModel?: string;
  /** The catalog's entries of the models, by id, for the rules a failed flow is judged by. */
  entries?: Record<string, Record<string, unknown>>;
}

export interface ClientDone {
  results: FlowResult[];
  requests: RequestSpec[];
  logged: string[];
  /** The clients as loaded (versions, what is missing), and the npm command that adds the missing. */
  info: ClientInfo[];
  install?: string;
}

/** The clients' heap: libraries that need more (an answer held whole, many times over) are ended, and
 * their flows not tested, said so. What reaches them is within --max-body a request already. */
export const CLIENT_HEAP_MB = 512;
/** From the run's end to the kill of a client's process that has not stopped by itself. */
const GRACE_MS = 1_000;
/** Of what a client's process wrote to its standard error, the end kept to say why it died. */
const KEPT_STDERR = 2_000;

/** The command line's entry: beside this module where built (dist/clients, dist/bin), or the build's
 * where this is the source (the tests). */
function entry(): string {
  for (const path of ['../bin/conformance.js', '../dist/bin/conformance.js']) {
    const file = fileURLToPath(new URL(path, import.meta.url));
    if (existsSync(file)) return file;
  }
  throw new Error('the command line is not built: npm run build');
}

/** The clients' flows in a process of their own, ended with the run: the results, or why there are none. */
export function runInProcess(job: ClientJob, signal?: AbortSignal): Promise<ClientDone | { failed: string }> {
  return new Promise((resolve) => {
    const child = fork(entry(), ['__client'], {
      execArgv: [`--max-old-space-size=${CLIENT_HEAP_MB}`],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let stderr = '';
    child.stderr?.on('data', (b: Buffer) => (stderr = `${stderr}${b}`.slice(-KEPT_STDERR)));
    let done: ClientDone | undefined;
    let killer: NodeJS.Timeout | undefined;
    const stop = () => {
      if (child.connected) child.send({ stop: String(signal?.reason ?? 'the run was stopped') }, () => {});
      killer = setTimeout(() => child.kill('SIGKILL'), GRACE_MS);
    };
    if (signal?.aborted) stop();
    else signal?.addEventListener('abort', stop, { once: true });
    child.on('message', (m: ClientDone) => (done = m));
    child.on('error', () => {});
    child.once('exit', (code, killed) => {
      clearTimeout(killer);
      signal?.removeEventListener('abort', stop);
      if (done) return resolve(done);
      const heap = /heap limit|out of memory/i.test(stderr);
      resolve({
        failed: heap
          ? `the clients' process ran out of its ${CLIENT_HEAP_MB} MB heap`
          : killed === 'SIGKILL' && signal?.aborted
            ? `the clients were ended with the run (${String(signal.reason ?? 'stopped')})`
            : `the clients' process ended without its results (${killed ?? `exit ${code}`})${stderr ? `: ${stderr.trim().split('\n').slice(-3).join(' | ')}` : ''}`,
      });
    });
    child.send(job);
  });
}

/** `conformance __client`: the process side. It takes one job, runs it, sends back what it found,
 * and ends; a stop from the run ends its flows, and a signal of the terminal is the run's to act on. */
export function clientProcess(): void {
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => process.exit(143));
  const stopped = new AbortController();
  process.on('message', (m: { stop?: string }) => m.stop !== undefined && stopped.abort(m.stop));
  process.once('message', async (job: ClientJob) => {
    const transport = transportFor(job.tls, job.limits);
    try {
      const { loaded, info, install } = await loadClients(CLIENTS.filter((c) => job.clients.includes(c.name)));
      const run = job.noModel
        ? {
            results: unrunFlows(
              loaded.map((l) => l.client),
              job.flows,
              job.noModel,
            ),
            requests: [],
            logged: [],
          }
        : await runFlows({
            baseUrl: job.baseUrl,
            apiKey: job.apiKey,
            models: job.models,
            clients: loaded,
            flows: job.flows,
            fetch: transport.fetch,
            headers: job.headers,
            timeoutMs: job.limits.deadlineMs,
            concurrency: job.concurrency,
            redactor: redactorFor({ apiKey: job.apiKey, headers: job.headers }),
            tls: job.tls?.flags,
            signal: stopped.signal,
            ...(job.pageHost ? { pageHost: job.pageHost } : {}),
            ...(job.entries ? { entries: job.entries } : {}),
          });
      const done: ClientDone = { results: run.results, requests: run.requests, logged: run.logged, info, ...(install ? { install } : {}) };
      await new Promise<void>((r) => process.send!(done, () => r()));
    } finally {
      await transport.close().catch(() => {});
      process.disconnect?.();
      // Whatever the library left open: the results are sent, the process is done.
      setTimeout(() => process.exit(0), 100).unref();
    }
  });
}
