// One run from options to report: start the embedded mock when no base URL is given, probe the
// target once, select and run checks, and build the report. The CLI only parses flags around it.
import { startMockServer, type MockServer } from '../mock/http.js';
import { DEFAULT_CONFIG } from '../mock/config/default.js';
import { createMock } from '../mock/core/handle.js';
import { paceText } from '../mock/core/timing.js';
import { MODEL_ID_MAX, type ApiCheck } from './api.js';
import { HttpClient, limitsFor, type HttpResult, type Limits, type RequestSpec } from '../engine/http.js';
import { exitCodeFor, REPORT_FORMAT_VERSION, summarize, type RawReport, type RunReport } from '../report/report.js';
import { seal } from '../report/boundary.js';
import type { FlowResult } from '../report/clients.js';
import type { Redactor } from '../engine/redact.js';
import type { Progress } from '../engine/check.js';
import { runChecks, selectChecks, type Filters } from '../engine/runner.js';
import { baseUrlWarning, normalizeBaseUrl, withScheme, type Target } from '../engine/target.js';
import type { CheckResult } from '../engine/check.js';
import { loadTls, TlsFileError, type TlsFlags, type TlsSettings } from '../engine/tls.js';
import { closedByTls } from '../engine/tls-diagnosis.js';
import { applyBaseline, applyFlowBaseline, baselineOf, loadBaseline, writeBaseline, type Baseline, type StaleEntry } from '../report/baseline.js';
import { FileError } from '../schemas/file.js';
import { nearest } from '../schemas/nearest.js';
import { existsSync } from 'node:fs';
import { CHECKS } from './index.js';
import { costOf } from './cost.js';
import { notTheApi } from './sanity.js';
import { untilReady } from './ready.js';
import pkg from '../package.json' with { type: 'json' };

export interface SessionOptions extends Filters {
  baseUrl?: string;
  apiKey?: string;
  secondApiKey?: string;
  siteUrl?: string;
  models?: string[];
  /** Every listed model under test, not one of each kind. */
  allModels?: boolean;
  headers?: Record<string, string>;
  /** --ca-cert, --insecure, --client-cert and --client-key: how TLS connections are made. */
  tls?: TlsFlags;
  strict?: boolean;
  requireComplete?: boolean;
  timeoutMs?: number;
  /** The longest silence within a body (--idle-timeout): 30 s by default. The kit's own limit, as
   * --timeout and --max-body are: what it cuts is not-tested, naming it, never failed. */
  idleTimeoutMs?: number;
  concurrency?: number;
  maxBodyBytes?: number;
  /** Longest Retry-After waited for before a 429 leaves its checks not-tested. */
  maxRetryWaitMs?: number;
  /** The whole run's deadline, from the moment the server is ready: what has not finished by then is not-tested. */
  deadlineMs?: number;
  /** The longest wait, before the first check, for a server that answers 503 as it gets ready (its
   * model loading); 0 does not wait. A minute by default (suites/ready.ts). */
  waitMs?: number;
  /** Told that the kit waits for the server and why, and when it is ready: a line for the terminal. */
  onWait?: (line: string) => void;
  /** Stops the run from outside (Ctrl-C), its reason (a string) given to what did not finish. */
  signal?: AbortSignal;
  /** A baseline (JSON or YAML): the failures it lists are expected, its entries that pass are stale. */
  expectedFailures?: string;
  /** The client flows' ids (`openai.stream`), which a baseline may list beside checks: suites/ knows
   * no client (clients/ rests on it), so the command line gives them. */
  flowIds?: readonly string[];
  /** Write the expectedFailures file from this run (created if absent, reasons kept). */
  updateBaseline?: boolean;
  checks?: string[];
  onResult?: (r: CheckResult) => void;
  onStart?: (progress: Progress) => void;
  /** The registry to select from; the whole kit by default. */
  registry?: readonly ApiCheck[];
  /** Suites left out of the selection (--no-fuzz): their baseline entries stay known, and unused. */
  without?: string[];
  /** Work run beside the checks against the same target (the client flows of clients/, `--clients`). */
  beside?: Beside;
}

/** Work that runs beside the checks against the same target (the client flows of clients/, which
 * suites/ does not import): started with them, bounded by the same deadline, its requests counted
 * with theirs, and what it adds to the report made once their results are known. */
export interface Beside {
  start(run: { target: Target; limits: Limits; signal: AbortSignal }): Promise<{
    requestsSent: number;
    requests: RequestSpec[];
    notes: string[];
    report(results: readonly CheckResult[]): Pick<RawReport, 'clients'>;
  }>;
}

export class UsageError extends Error {}

/** The ids nearest to the --check values that name one id (no glob) and match none: a slip of the keyboard. */
function meant(checks: readonly string[] | undefined, registry: readonly ApiCheck[]): string {
  const ids = registry.map((c) => c.id);
  const near = (checks ?? []).filter((g) => !/[*?[\]{}]/.test(g) && !ids.includes(g)).flatMap((g) => nearest(g, ids) ?? []);
  return near.length ? `: did you mean ${near.join(', ')}?` : '';
}

/** Ten minutes: a hosted service's default run takes a fraction of it; a hostile one is cut there. */
export const DEFAULT_DEADLINE_MS = 600_000;

export async function runSession(opts: SessionOptions): Promise<RunReport> {
  const warnings: string[] = [];
  const selected = selectChecks(opts.registry ?? CHECKS, opts).filter((c) => !opts.without?.includes(c.suite));
  if (!selected.length)
    throw new UsageError(
      `no check matches the filters (suites: ${opts.suites?.join(', ') || 'all'}; checks: ${opts.checks?.join(', ') || 'all'})${meant(opts.checks, opts.registry ?? CHECKS)}; see conformance list`,
    );
  const baseline = readBaseline(opts, new Set((opts.registry ?? CHECKS).map((c) => c.id)));
  const opened = await openTarget(opts, warnings);
  try {
    const { target, tls } = opened;
    const limits = limitsFor(opts.timeoutMs ?? 60_000, opts.maxBodyBytes, opts.idleTimeoutMs);
    const started = new Date();
    const t0 = performance.now();
    const { signal, timer } = await begin(target, limits, opts);
    const [{ results, notes, requestsSent, requests, redactor }, beside] = await Promise.all([
      runChecks(selected, {
        target,
        limits,
        concurrency: opts.concurrency ?? 4,
        retry: { maxRetries: 2, maxWaitMs: opts.maxRetryWaitMs ?? 20_000 },
        onResult: opts.onResult,
        onStart: opts.onStart,
        signal,
      }),
      opts.beside?.start({ target, limits, signal }),
    ]).finally(() => clearTimeout(timer));
    return gatedReport(
      results,
      opts,
      { target, tls, started, t0, warnings, baseline, redactor },
      {
        notes: [...notes, ...(beside?.notes ?? [])],
        requestsSent: requestsSent + (beside?.requestsSent ?? 0),
        cost: costOf([...requests, ...(beside?.requests ?? [])]),
        ...(signal.aborted ? { stopped: String(signal.reason) } : {}),
        ...beside?.report(results),
      },
    );
  } finally {
    await opened.close();
  }
}

/** Where every command that judges a server starts (run, clients, fuzz, load, the vitest entry), so
 * that none can forget a step: the wait for a server getting ready (suites/ready.ts, --wait), then the
 * run's deadline, then the probe. The wait is bounded by --wait and the run from then on by
 * --deadline: a server that loads for a minute does not eat the time its checks were given. The
 * caller clears `timer` when it ends. */
export async function begin(
  target: Target,
  limits: Pick<Limits, 'connectTimeoutMs'>,
  opts: Pick<SessionOptions, 'deadlineMs' | 'signal' | 'waitMs' | 'onWait'>,
): Promise<{ signal: AbortSignal; timer: NodeJS.Timeout }> {
  const ms = limits.connectTimeoutMs;
  const http = new HttpClient({ connectTimeoutMs: ms, idleTimeoutMs: ms, deadlineMs: ms, maxBodyBytes: 64 * 1024 }, target.tls);
  try {
    const { list, notReady } = await untilReady(target, http, { waitMs: opts.waitMs, signal: opts.signal, onWait: opts.onWait });
    if (notReady) throw new UsageError(notReady);
    const { signal, timer } = runDeadline(opts);
    try {
      await probe(target, http, ms, signal, list);
    } catch (e) {
      clearTimeout(timer);
      throw e;
    }
    return { signal, timer };
  } finally {
    await http.close();
  }
}

/** The whole run's deadline (--deadline), joined with the caller's own signal (Ctrl-C). */
function runDeadline(opts: Pick<SessionOptions, 'deadlineMs' | 'signal'>): { signal: AbortSignal; timer: NodeJS.Timeout } {
  const deadlineMs = opts.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(`the run's deadline passed (--deadline ${deadlineMs} ms)`), deadlineMs);
  return { signal: opts.signal ? AbortSignal.any([deadline.signal, opts.signal]) : deadline.signal, timer };
}

/** A report's results gated as `opts` says (the baseline applied, and written first with
 * --update-baseline), in the envelope every report carries, with what the command adds (`extra`),
 * sealed by the report boundary with the run's redactor: shared by `run`, `fuzz` and `load`. */
export function gatedReport(
  results: CheckResult[],
  opts: Pick<SessionOptions, 'strict' | 'requireComplete' | 'expectedFailures' | 'updateBaseline'>,
  run: { target: Target; tls?: TlsSettings; started: Date; t0: number; warnings: string[]; baseline?: Baseline; redactor: Redactor },
  extra: Pick<RawReport, 'notes' | 'requestsSent' | 'cost' | 'stopped' | 'load' | 'clients'>,
): RunReport {
  const { target, tls, baseline } = run;
  const options = { strict: !!opts.strict, requireComplete: !!opts.requireComplete, ...(opts.expectedFailures ? { expectedFailures: opts.expectedFailures } : {}) };
  let gated: { results: CheckResult[]; stale: StaleEntry[] } = { results, stale: [] };
  let flows: { flows: FlowResult[]; stale: StaleEntry[] } | undefined;
  if (opts.expectedFailures) {
    const written = opts.updateBaseline ? baselineOf(results, baseline, extra.clients?.results) : undefined;
    if (written) writeBaseline(opts.expectedFailures, written);
    gated = applyBaseline(results, written ?? baseline!);
    if (extra.clients) flows = applyFlowBaseline(extra.clients.results, gated.results, written ?? baseline);
  }
  const clients = extra.clients && { ...extra.clients, results: flows?.flows ?? extra.clients.results };
  const stale = [...gated.stale, ...(flows?.stale ?? [])];
  return seal(
    {
      formatVersion: REPORT_FORMAT_VERSION,
      tool: { name: pkg.name, version: pkg.version },
      target: { baseUrl: target.baseUrl, siteUrl: target.siteUrl, embeddedMock: target.embeddedMock, ...(tls ? { tls: tlsOfReport(tls) } : {}) },
      options,
      startedAt: run.started.toISOString(),
      durationMs: Math.round(performance.now() - run.t0),
      results: gated.results,
      summary: summarize(gated.results),
      exitCode: exitCodeFor(gated.results, options, stale, clients?.results),
      ...(opts.expectedFailures
        ? {
            baseline: {
              file: opts.expectedFailures,
              expected: gated.results.filter((r) => r.expected).length + (clients?.results.filter((f) => f.expected).length ?? 0),
              stale,
              updated: !!opts.updateBaseline,
            },
          }
        : {}),
      warnings: run.warnings,
      ...extra,
      ...(clients ? { clients } : {}),
    },
    run.redactor,
  );
}

/** What a session runs against: the embedded mock, started when no base URL is given, or the given
 * server, its URLs and TLS files checked (a mistake is a usage error); `close` stops the mock. */
/** The pace of the embedded mock under `conformance load`: a hosted model's shape (a wait for the
 * first token, then tokens at a steady rate, each pause varied), quicker than one so that the
 * default sweep takes seconds. Answering at once, as it does for `run`, it would show an
 * inter-token latency of 0 at every step, which measures nothing. */
const LOAD_TIMING = { ttft_ms: 100, tokens_per_second: 200, jitter: 0.3 } as const;

/** The target: the server of --base-url, or the embedded mock on a free 127.0.0.1 port, at once or,
 * for a load (`paced`), at LOAD_TIMING's pace; `pace` then says that pace in words. */
export async function openTarget(
  opts: Pick<SessionOptions, 'baseUrl' | 'apiKey' | 'secondApiKey' | 'siteUrl' | 'models' | 'allModels' | 'headers' | 'tls'>,
  warnings: string[],
  paced = false,
): Promise<{ target: Target; tls?: TlsSettings; close(): Promise<void>; pace?: string }> {
  const tls = readTls(opts.tls);
  let mock: MockServer | undefined;
  let baseUrl = opts.baseUrl;
  let apiKey = opts.apiKey;
  let secondApiKey = opts.secondApiKey;
  if (!baseUrl) {
    mock = await startMockServer(paced ? { mock: createMock({ ...DEFAULT_CONFIG, timing: LOAD_TIMING }) } : {});
    baseUrl = mock.url;
    apiKey ??= DEFAULT_CONFIG.keys[0].key;
    secondApiKey ??= DEFAULT_CONFIG.keys[1].key;
  }
  const close = async () => {
    await mock?.close();
  };
  try {
    // What is wrong with the URL is said first: it is what a key would be sent to.
    let parsed: URL;
    try {
      parsed = new URL(baseUrl);
      if (!/^https?:$/.test(parsed.protocol)) throw new Error('not http(s)');
    } catch {
      const meant = withScheme(baseUrl);
      throw new UsageError(`--base-url is not an http(s) URL: ${baseUrl}${meant ? `: did you mean ${meant}? (a URL names its scheme)` : ''}`);
    }
    withoutCredentials('--base-url', parsed);
    const long = opts.models?.find((m) => m.length > MODEL_ID_MAX);
    if (long !== undefined) throw new UsageError(`--model names an id of ${long.length} characters; conformance sends ids of at most ${MODEL_ID_MAX}`);
    // Said in the report too; the command line says it before the first request.
    const warning = baseUrlWarning(baseUrl);
    if (warning) warnings.push(warning);
    if (opts.siteUrl) {
      let site: URL;
      try {
        site = new URL(opts.siteUrl);
      } catch {
        const meant = withScheme(opts.siteUrl);
        throw new UsageError(`--site-url is not a URL: ${opts.siteUrl}${meant ? `: did you mean ${meant}? (a URL names its scheme)` : ''}`);
      }
      withoutCredentials('--site-url', site);
    }
    if (!apiKey) throw new UsageError('an API key is needed: --api-key KEY or CONFORMANCE_API_KEY');
    const target: Target = {
      baseUrl: normalizeBaseUrl(baseUrl),
      siteUrl: opts.siteUrl ?? parsed.origin,
      siteUrlExplicit: !!opts.siteUrl,
      apiKey,
      secondApiKey: secondApiKey || undefined,
      models: opts.models ?? [],
      allModels: !!opts.allModels,
      headers: opts.headers ?? {},
      embeddedMock: !!mock,
      ...(tls ? { tls } : {}),
    };
    return { target, tls, close, ...(mock && paced ? { pace: paceText(LOAD_TIMING) } : {}) };
  } catch (e) {
    await close();
    throw e;
  }
}

/** A URL that carries credentials (`http://user:KEY@host`) would print them in every report
 * heading, and fetch sends none of them: a usage error that says where a key goes. The URL is not
 * repeated, as it holds a secret. */
function withoutCredentials(flag: string, url: URL): void {
  if (url.username || url.password)
    throw new UsageError(`${flag} carries credentials (user:password@host), which are not sent: give the key with --api-key (or CONFORMANCE_API_KEY), or a header with --header 'Name: value'`);
}

/** The baseline named by --expected-failures, read before the first request, its entries naming a
 * check of `known` or a client flow of `opts.flowIds`: a mistake in it is a usage error naming the
 * file and the entry. With --update-baseline a missing file is created. */
export function readBaseline(opts: Pick<SessionOptions, 'expectedFailures' | 'updateBaseline' | 'flowIds'>, known: ReadonlySet<string>): Baseline | undefined {
  if (opts.updateBaseline && !opts.expectedFailures) throw new UsageError('--update-baseline writes the file --expected-failures names: give one');
  if (!opts.expectedFailures) return undefined;
  if (opts.updateBaseline && !existsSync(opts.expectedFailures)) return undefined;
  try {
    return loadBaseline(opts.expectedFailures, known, new Set(opts.flowIds));
  } catch (e) {
    if (e instanceof FileError) throw new UsageError(e.message);
    throw e;
  }
}

/** The TLS files, read before the first request: one that cannot be used is a usage error. */
function readTls(flags: TlsFlags | undefined): TlsSettings | undefined {
  try {
    return flags ? loadTls(flags) : undefined;
  } catch (e) {
    if (e instanceof TlsFileError) throw new UsageError(e.message);
    throw e;
  }
}

/** What the reports say of TLS: the choices, not the key's file (a reader needs the CA and the
 * certificate to judge the run; where the key lies is nobody's business). */
export function tlsOfReport(tls: TlsSettings): NonNullable<RawReport['target']['tls']> {
  const { insecure, caCert, clientCert } = tls.flags;
  return { insecure: !!insecure, ...(caCert ? { caCert } : {}), ...(clientCert ? { clientCert } : {}) };
}

/** A server that cannot be reached at all (refused, unknown, a TLS failure), that refuses the key
 * on every request, or that does not answer as the API (suites/sanity.ts) is a usage problem (exit
 * 2, one line), not fifty failed checks. `list`: its answer to GET /v1/models, once it was ready. */
async function probe(target: Target, http: HttpClient, connectTimeoutMs: number, signal: AbortSignal, list: HttpResult): Promise<void> {
  const auth = { ...target.headers, authorization: `Bearer ${target.apiKey}` };
  const refused = (status?: number) => status === 401 || status === 403;
  if (list.error?.kind === 'connect' || list.error?.kind === 'tls') throw new UsageError(`cannot reach ${target.baseUrl}: ${list.error.message}`);
  if (list.error?.kind === 'reset' && list.status === undefined) {
    const why = await closedByTls(target.baseUrl, target.tls, connectTimeoutMs);
    if (why) throw new UsageError(`cannot reach ${target.baseUrl}: ${why}`);
  }
  if (!refused(list.status)) {
    const elsewhere = target.embeddedMock ? undefined : await notTheApi(target, http, signal, list);
    if (elsewhere) throw new UsageError(elsewhere);
    return;
  }
  // The list may be the only route behind another policy: a chat request must be refused too.
  const model = target.models[0] ?? 'any-model';
  const chat = await http.send(
    {
      method: 'POST',
      url: `${target.baseUrl}/v1/chat/completions`,
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Say OK.' }], max_tokens: 16 }),
    },
    signal,
    true,
  );
  if (refused(chat.status)) throw new UsageError(`the server refused the key on every request (GET /v1/models: ${list.status}, POST /v1/chat/completions: ${chat.status}): check --api-key`);
}
