// One run from options to report: start the embedded mock when no base URL is given, probe the
// target once, select and run checks, and build the report. The CLI only parses flags around it.
import { startMockServer, type MockServer } from '../mock/http.js';
import { DEFAULT_CONFIG } from '../mock/config/default.js';
import type { ApiCheck } from './api.js';
import { HttpClient, limitsFor } from './harness/http.js';
import { exitCodeFor, REPORT_FORMAT_VERSION, summarize, type RunReport } from './harness/report/report.js';
import { runChecks, selectChecks, type Filters } from './harness/runner.js';
import { baseUrlWarning, normalizeBaseUrl, type Target } from './harness/target.js';
import type { CheckResult } from './harness/check.js';
import { CHECKS } from './index.js';
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
  strict?: boolean;
  requireComplete?: boolean;
  timeoutMs?: number;
  concurrency?: number;
  maxBodyBytes?: number;
  /** Longest Retry-After waited for before a 429 leaves its checks not-tested. */
  maxRetryWaitMs?: number;
  checks?: string[];
  onResult?: (r: CheckResult) => void;
  /** The registry to select from; the whole kit by default. */
  registry?: readonly ApiCheck[];
}

export class UsageError extends Error {}



export async function runSession(opts: SessionOptions): Promise<RunReport> {
  const warnings: string[] = [];
  const selected = selectChecks(opts.registry ?? CHECKS, opts);
  if (!selected.length) throw new UsageError(`no check matches the filters (suites: ${opts.suites?.join(', ') || 'all'}; checks: ${opts.checks?.join(', ') || 'all'}); see conformance list`);

  let mock: MockServer | undefined;
  let baseUrl = opts.baseUrl;
  let apiKey = opts.apiKey;
  let secondApiKey = opts.secondApiKey;
  if (!baseUrl) {
    mock = await startMockServer();
    baseUrl = mock.url;
    apiKey ??= DEFAULT_CONFIG.keys[0].key;
    secondApiKey ??= DEFAULT_CONFIG.keys[1].key;
  }
  try {
    if (!apiKey) throw new UsageError('an API key is needed: --api-key KEY or CONFORMANCE_API_KEY');
    let parsed: URL;
    try {
      parsed = new URL(baseUrl);
      if (!/^https?:$/.test(parsed.protocol)) throw new Error('not http(s)');
    } catch {
      throw new UsageError(`--base-url is not an http(s) URL: ${baseUrl}`);
    }
    const warning = baseUrlWarning(baseUrl);
    if (warning) warnings.push(warning);
    if (opts.siteUrl) {
      try {
        new URL(opts.siteUrl);
      } catch {
        throw new UsageError(`--site-url is not a URL: ${opts.siteUrl}`);
      }
    }
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
    };
    const limits = limitsFor(opts.timeoutMs ?? 60_000, opts.maxBodyBytes);
    await probe(target, limits.connectTimeoutMs);

    const started = new Date();
    const t0 = performance.now();
    const { results, notes, requestsSent } = await runChecks(selected, {
      target,
      limits,
      concurrency: opts.concurrency ?? 4,
      retry: { maxRetries: 2, maxWaitMs: opts.maxRetryWaitMs ?? 20_000 },
      onResult: opts.onResult,
    });
    const options = { strict: !!opts.strict, requireComplete: !!opts.requireComplete };
    return {
      formatVersion: REPORT_FORMAT_VERSION,
      tool: { name: pkg.name, version: pkg.version },
      target: { baseUrl: target.baseUrl, siteUrl: target.siteUrl, embeddedMock: target.embeddedMock },
      options,
      startedAt: started.toISOString(),
      durationMs: Math.round(performance.now() - t0),
      results,
      summary: summarize(results),
      exitCode: exitCodeFor(results, options),
      warnings,
      notes,
      requestsSent,
    };
  } finally {
    await mock?.close();
  }
}

/** A server that cannot be reached at all is a usage problem (exit 2), not fifty failed checks. */
async function probe(target: Target, connectTimeoutMs: number): Promise<void> {
  const http = new HttpClient({ connectTimeoutMs, idleTimeoutMs: connectTimeoutMs, deadlineMs: connectTimeoutMs, maxBodyBytes: 1024 });
  try {
    const r = await http.send({ method: 'GET', url: `${target.baseUrl}/v1/models`, headers: { ...target.headers } });
    if (r.error?.kind === 'connect') throw new UsageError(`cannot reach ${target.baseUrl}: ${r.error.message}`);
  } finally {
    await http.close();
  }
}
