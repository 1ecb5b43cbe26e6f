// Runs the flows of the loaded clients against a target: each flow on each model under test (once, for
// a flow that takes no model), a few at a time, each with a fetch that records its exchanges, bounded
// in time, a throw of the client being the flow's failure. What a flow broke is judged later
// (impact.ts), against the checks of the same run.
import { fail, notTested, worst, type Verdict } from '../engine/check.js';
import type { RequestSpec } from '../engine/http.js';
import { retryAfterMs } from '../engine/exchanges.js';
import type { Redactor } from '../engine/redact.js';
import type { TlsFlags } from '../engine/tls.js';
import type { FlowPath, FlowResult } from '../report/clients.js';
import { FLOWS, SLEEPING, thrownName, type AnyClient, type Flow, type FlowContext } from './flow.js';
import { flowId, levelOf } from './levels.js';
import { hushed } from './console.js';
import { Recorder, type OwnAnswer } from './recorder.js';
import { judgeOwn } from './judge.js';

export interface FlowRunOptions {
  /** The base URL of the API, without /v1. */
  baseUrl: string;
  apiKey: string;
  models: readonly string[];
  /** Each client with its loaded SDK. */
  clients: readonly { client: AnyClient; sdk: unknown }[];
  /** Only these flows (by name), all by default. */
  flows?: readonly string[];
  /** How a request reaches the target: the run's transport, or the mock in-process. */
  fetch: typeof fetch;
  headers?: Record<string, string>;
  timeoutMs: number;
  concurrency: number;
  redactor: Redactor;
  tls?: TlsFlags;
  /** Stops the flows (the run's deadline, Ctrl-C): what has not finished is not tested. */
  signal?: AbortSignal;
  /** The host name the browser client's page is served as. */
  pageHost?: string;
  /** The catalog's entries of the models, by id: what the rules a failed flow is judged by know. */
  entries?: Record<string, Record<string, unknown>>;
}

export interface FlowRun {
  results: FlowResult[];
  requests: RequestSpec[];
  /** What the clients wrote to the console meanwhile (kept out of the command's output). */
  logged: string[];
}

/** One flow on one model: what a worker takes. */
interface Unit {
  client: AnyClient;
  sdk: unknown;
  flow: Flow<unknown>;
  model: string;
  label: string;
}

export async function runFlows(opts: FlowRunOptions): Promise<FlowRun> {
  // A flow whose client sleeps (its backoff before a retry) first, then the rest, taken in turn from
  // each client: the sleeps and a client's slow start (a browser to launch) overlap the others' flows
  // instead of coming after them (the retries last, a run of every client took 7.8 s; first, 4.9 s).
  const byClient = opts.clients.map(({ client, sdk }) =>
    [...client.flows]
      .sort((a, b) => Number(SLEEPING.has(b.name)) - Number(SLEEPING.has(a.name)))
      .filter((flow) => !opts.flows || opts.flows.includes(flow.name))
      .flatMap((flow) => (flow.once ? opts.models.slice(0, 1) : opts.models).map((model): Unit => ({ client, sdk, flow, model, label: flow.once ? 'all' : model }))),
  );
  const units: Unit[] = [];
  for (let i = 0; byClient.some((u) => i < u.length); i++) for (const u of byClient) if (i < u.length) units.push(u[i]);
  const paths = new Map<Unit, FlowPath>();
  const requests: RequestSpec[] = [];
  let next = 0;
  const worker = async () => {
    while (next < units.length) {
      const unit = units[next++];
      const { path, sent } = await runUnit(unit, opts);
      paths.set(unit, path);
      requests.push(...sent);
    }
  };
  const { logged } = await hushed(() => Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency, units.length)) }, worker))).finally(() =>
    Promise.all(opts.clients.map(({ client, sdk }) => client.close?.(sdk).catch(() => {}))),
  );
  const results: FlowResult[] = [];
  for (const { client } of opts.clients)
    for (const flow of client.flows) {
      const mine = units.filter((u) => u.client === client && u.flow === flow);
      if (!mine.length) continue;
      results.push(
        resultOf(
          client,
          flow,
          mine.map((u) => paths.get(u)!),
        ),
      );
    }
  return { results, requests, logged };
}

/** A flow's deadline: its few requests, each within the timeout, and an abort's grace. */
const deadlineOf = (timeoutMs: number) => Math.max(4 * timeoutMs, 10_000);

async function runUnit(unit: Unit, opts: FlowRunOptions): Promise<{ path: FlowPath; sent: RequestSpec[] }> {
  const limit = deadlineOf(opts.timeoutMs);
  const started = performance.now();
  // Everything the flow opened is closed when it ends, for whatever reason: a stream its client still
  // reads, a request still waiting.
  const flowEnd = new AbortController();
  let askedToWait: ((v: Verdict) => void) | undefined;
  const waited = new Promise<Verdict>((resolve) => (askedToWait = resolve));
  const scoped: typeof fetch = async (input, init) => {
    const res = await opts.fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, flowEnd.signal]) : flowEnd.signal });
    // A wait longer than the flow has is not slept: a client told to retry after a day would hold
    // the process that long, whatever the run's deadline.
    const wait =
      res.status === 429 || res.status === 503 ? retryAfterMs({ 'retry-after': res.headers.get('retry-after') ?? '', 'retry-after-ms': res.headers.get('retry-after-ms') ?? '' }) : undefined;
    const left = limit - (performance.now() - started);
    if (wait !== undefined && wait > left) {
      await res.body?.cancel().catch(() => {});
      askedToWait?.(
        notTested(
          `the server answered ${res.status} and asked to wait ${Math.ceil(wait / 1000)} s (Retry-After), more than the ${Math.max(0, Math.round(left / 1000))} s left of the flow: not waited`,
        ),
      );
      throw new DOMException('the server asked to wait longer than the flow has', 'AbortError');
    }
    return res;
  };
  const recorder = new Recorder(scoped, Object.keys(opts.headers ?? {}));
  const ctx: FlowContext = {
    baseURL: `${opts.baseUrl}/v1`,
    apiKey: opts.apiKey,
    model: unit.model,
    headers: opts.headers ?? {},
    fetch: recorder.fetch,
    timeoutMs: opts.timeoutMs,
    busyOnce: (ms) => recorder.busyOnce(ms),
    chatRequests: () => recorder.chatRequests(),
    record: (e) => recorder.record(e),
    ...(opts.pageHost ? { pageHost: opts.pageHost } : {}),
  };
  let verdict: Verdict;
  if (opts.signal?.aborted) verdict = notTested(String(opts.signal.reason ?? 'the run was stopped'));
  else {
    let timer: NodeJS.Timeout | undefined;
    let stop: (() => void) | undefined;
    try {
      verdict = await Promise.race([
        unit.flow.run(unit.sdk, ctx),
        waited,
        new Promise<Verdict>((resolve) => (timer = setTimeout(() => resolve(fail(`the flow did not end within ${limit} ms`)), limit))),
        new Promise<Verdict>((resolve) => {
          stop = () => resolve(notTested(String(opts.signal?.reason ?? 'the run was stopped')));
          opts.signal?.addEventListener('abort', stop, { once: true });
        }),
      ]);
    } catch (e) {
      verdict = fail(`${unit.client.title} threw ${thrownName(e)}`);
    } finally {
      clearTimeout(timer);
      if (stop) opts.signal?.removeEventListener('abort', stop);
      flowEnd.abort('the flow ended');
    }
  }
  // A flow the kit cut an answer of, at its own limit, is not judged on it: the client got what the
  // kit let through, and a server may be slower or answer more than that.
  const cut = verdict.outcome === 'fail' ? recorder.cut() : undefined;
  if (cut) verdict = notTested(`${cut}; the flow's failure (${verdict.message}) is not judged on it`);
  const evidence = verdict.outcome === 'pass' ? [] : recorder.evidence(opts.redactor, opts.tls);
  // A failure is judged on the flow's own answers: what rule they broke, or what else it was.
  const failed = verdict.outcome === 'fail' || verdict.outcome === 'flaky';
  const own = failed ? judgeOwn(recorder.answers(), { model: unit.model, entry: opts.entries?.[unit.model], refs: {} }) : undefined;
  recorder.forget();
  const outside = own?.outside ?? (failed && unit.client.name === 'openai-browser' ? await corsProblem(recorder.answers(), opts.fetch) : undefined);
  return {
    path: {
      label: unit.label,
      outcome: verdict.outcome,
      ...(verdict.message !== undefined ? { message: verdict.message } : {}),
      ...(verdict.notes?.length ? { notes: verdict.notes } : {}),
      ...(own?.broke.length ? { broke: own.broke.map((b) => b.id), brokeWhy: own.broke.map((b) => `${b.id}: ${b.why}`) } : {}),
      ...(outside ? { outside } : {}),
      ...(own?.precondition ? { precondition: own.precondition } : {}),
      evidence,
      durationMs: Math.round(performance.now() - started),
    },
    sent: recorder.requests(),
  };
}

/** Whether a page's requests met the browsers' requirement the document does not state (CORS): an
 * answer without an Access-Control-Allow-Origin for the page's origin, or a preflight the API does not
 * allow, asked again of the API by the kit as the browser asked it. */
async function corsProblem(answers: readonly OwnAnswer[], fetch: typeof globalThis.fetch): Promise<string | undefined> {
  const fromPage = answers.filter((a) => a.origin);
  const origin = fromPage[0]?.origin;
  if (!origin) return undefined;
  const allows = (headers: Record<string, string>) => {
    const allowed = headers['access-control-allow-origin'];
    return allowed === '*' || allowed === origin;
  };
  const bare = fromPage.find((a) => a.status !== undefined && !allows(a.headers));
  if (bare) return `the API answered the page (origin ${origin}) with no Access-Control-Allow-Origin for it: a browser's requirement (CORS), outside the document`;
  const sent = fromPage.find((a) => a.request.method === 'POST') ?? fromPage[0];
  try {
    const res = await fetch(sent.request.url, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': sent.request.method, 'access-control-request-headers': 'authorization,content-type' },
    });
    await res.body?.cancel();
    const headers = Object.fromEntries(res.headers);
    if (res.status >= 200 && res.status < 300 && allows(headers)) return undefined;
    return `the API answered the page's preflight (OPTIONS from origin ${origin}) with status ${res.status}${allows(headers) ? '' : ' and no Access-Control-Allow-Origin for it'}: a browser's requirement (CORS), outside the document`;
  } catch {
    return undefined;
  }
}

function resultOf(client: AnyClient, flow: Flow<unknown>, paths: FlowPath[]): FlowResult {
  const outcome = worst(paths.map((p) => p.outcome));
  const deciding = paths.filter((p) => p.outcome === outcome && p.message);
  const notes = [...new Set(paths.flatMap((p) => (p.notes ?? []).map((n) => (paths.length > 1 ? `[${p.label}] ${n}` : n))))];
  return {
    id: flowId(client.name, flow.name),
    client: client.name,
    flow: flow.name,
    title: FLOWS.find((f) => f.name === flow.name)!.title,
    does: flow.does,
    level: levelOf(flow.rests),
    restsOn: [...flow.rests],
    outcome,
    ...(deciding.length ? { message: deciding.map((p) => (paths.length > 1 ? `[${p.label}] ${p.message}` : p.message)).join('; ') } : {}),
    ...(notes.length ? { notes } : {}),
    paths,
    durationMs: paths.reduce((n, p) => n + p.durationMs, 0),
  };
}

/** Every chosen flow of these clients, not tested for `why` (no model to run them on, their process
 * ended before it said). */
export function unrunFlows(clients: readonly AnyClient[], flows: readonly string[] | undefined, why: string): FlowResult[] {
  return clients.flatMap((c) =>
    c.flows
      .filter((f) => !flows?.length || flows.includes(f.name))
      .map((f) => ({
        id: flowId(c.name, f.name),
        client: c.name,
        flow: f.name,
        title: FLOWS.find((x) => x.name === f.name)!.title,
        does: f.does,
        level: levelOf(f.rests),
        restsOn: [...f.rests],
        outcome: 'not-tested' as const,
        message: why,
        paths: [],
        durationMs: 0,
      })),
  );
}
