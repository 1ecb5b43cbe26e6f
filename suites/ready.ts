// Ready before judged. An engine that loads its model (llama.cpp and its kin) answers 503 "Loading
// model" for its first seconds, often with Retry-After; a pipeline starts the server and the kit at
// once. Judged then, the server got a report of rules it never had the chance to keep. So before the
// first check the kit asks GET /v1/models (the probe's own request) until it is not a 503, within a
// bound of its own (--wait) that nothing the server says can stretch: a Retry-After is honoured up
// to what is left of the bound, never past it. A page (a proxy's 503) is not a server getting ready
// but not the API at all (suites/sanity.ts); anything else ends the wait, and the probe reads it.
import { setTimeout as sleep } from 'node:timers/promises';
import type { HttpClient, HttpResult } from '../engine/http.js';
import type { Target } from '../engine/target.js';
import { retryAfterMs } from '../engine/exchanges.js';
import { answerWords, isPage } from './sanity.js';

/** A minute: a small model loads within it on a CI runner; a larger one is given --wait. */
export const DEFAULT_WAIT_MS = 60_000;
/** How often a 503 without Retry-After is asked again: a loading engine answers it at once, and a
 * second is nothing against the seconds it loads for. */
const POLL_MS = 1_000;
/** The least time between two asks, whatever Retry-After says: a server that says "now" every time
 * is not asked in a loop. */
const LEAST_MS = 250;
/** The longest one timer takes (setTimeout's): a longer --wait is waited in several. */
const TIMER_MS = 2 ** 31 - 1;

export interface Readiness {
  /** The longest wait for a server answering 503; 0 asks once and never waits. */
  waitMs?: number;
  /** Stops the wait (Ctrl-C): the run then goes on, stopped, as every command does when interrupted. */
  signal?: AbortSignal;
  /** A line for the terminal: that the kit waits and why, what changed, that the server is ready. */
  onWait?: (line: string) => void;
}

/** A server getting ready: a 503 that is not a page. */
const loading = (r: HttpResult) => r.status === 503 && !isPage(r);

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/** GET /v1/models, asked again while the server answers 503, within `waitMs`: the last answer, which
 * the probe reads, and `notReady`, a line that says what it answered and the flag to wait longer,
 * when the bound passed with the server still not ready. */
export async function untilReady(target: Target, http: HttpClient, opts: Readiness): Promise<{ list: HttpResult; notReady?: string }> {
  const waitMs = opts.waitMs ?? DEFAULT_WAIT_MS;
  const started = performance.now();
  const endsAt = started + waitMs;
  // The first ask is the probe's, bounded by its own limits; one asked again while waiting is given
  // up when the bound passes, as the wait is.
  const ask = (bounded: boolean) =>
    http.send(
      { method: 'GET', url: `${target.baseUrl}/v1/models`, headers: { ...target.headers, authorization: `Bearer ${target.apiKey}` } },
      AbortSignal.any([...(opts.signal ? [opts.signal] : []), ...(bounded ? [AbortSignal.timeout(Math.min(TIMER_MS, Math.max(1, Math.ceil(endsAt - performance.now()))))] : [])]),
    );
  let list = await ask(false);
  if (!loading(list) || waitMs === 0) return { list };
  let said = answerWords(list);
  opts.onWait?.(`${target.baseUrl} is not ready: GET /v1/models answered ${said}; waiting up to ${seconds(waitMs)} (--wait)`);
  for (;;) {
    const left = endsAt - performance.now();
    if (opts.signal?.aborted) return { list };
    if (left <= 0)
      return {
        list,
        notReady: `${target.baseUrl} is not ready after ${seconds(waitMs)}: GET /v1/models answered ${said}; give it longer with --wait (${seconds(waitMs)} now), e.g. --wait ${Math.max(2, Math.ceil((2 * waitMs) / 60_000))}m`,
      };
    const asked = retryAfterMs(list.headers);
    await sleep(Math.min(left, TIMER_MS, Math.max(LEAST_MS, asked ?? POLL_MS)), undefined, { signal: opts.signal }).catch(() => {});
    if (opts.signal?.aborted) return { list };
    const next = await ask(true);
    // Given up at the bound (no answer within it): the last answer the server gave is what it said.
    if (next.status === undefined && performance.now() >= endsAt) continue;
    list = next;
    if (!loading(list)) {
      // No answer at all (the server went away while it loaded) is the probe's to say.
      if (list.status !== undefined) opts.onWait?.(`${target.baseUrl} is ready after ${seconds(performance.now() - started)}`);
      return { list };
    }
    const now = answerWords(list);
    if (now !== said) opts.onWait?.(`${target.baseUrl} is still not ready after ${seconds(performance.now() - started)}: GET /v1/models answered ${now}`);
    said = now;
  }
}
