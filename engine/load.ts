// The load driver: sends requests at one step of a sweep, a closed loop of N in flight or an open
// Poisson arrival rate, and hands each answer, timed, to the caller as it ends. It knows HTTP and
// time, no rule of the API: what an answer means, and whether a refusal is sent again, is the
// caller's to say. The hot path is HttpClient.send and a callback: nothing is kept per request.
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { HttpClient, HttpResult, ReadTimes, RequestSpec } from './http.js';

/** One step of a sweep: `concurrency` requests in flight (a closed loop), or `rate` arrivals a second
 * (an open loop, Poisson); it ends after `durationMs` or once `requests` were sent, whichever first. */
export interface LoadStep {
  concurrency?: number;
  rate?: number;
  durationMs?: number;
  requests?: number;
}

/** An answer with when its pieces arrived. */
export interface TimedAnswer extends HttpResult {
  times: ReadTimes;
}

export interface DriveOptions {
  http: HttpClient;
  step: LoadStep;
  /** The request to send next: the caller cycles through its mix. */
  next(): RequestSpec;
  /** Each answer as it ends; a number back sends the same request again after that many ms (a
   * refusal's Retry-After), counted as a request of the step. */
  onAnswer(spec: RequestSpec, answer: TimedAnswer, attempt: number): number | undefined;
  /** Stops the step: nothing more is sent, and what is in flight ends at once (its error of kind
   * `stopped`), with the answers of every other request handed over as they end. */
  signal?: AbortSignal;
  /** Seeds the arrivals of an open loop: the same seed, the same schedule. */
  seed?: number;
  /** Most requests in flight in an open loop, whatever the rate: arrivals past it are counted, not sent. */
  maxInFlight?: number;
}

export interface Driven {
  /** Requests sent, resends included. */
  sent: number;
  /** From the first request to the last answer. */
  elapsedMs: number;
  /** Most requests in flight at once. */
  peakInFlight: number;
  /** Open loop: arrivals not sent because maxInFlight were already in flight (the generator fell behind). */
  skipped: number;
}

const DEFAULT_MAX_IN_FLIGHT = 10_000;

/** Sends one request, timed. */
export async function sendTimed(http: HttpClient, spec: RequestSpec, signal?: AbortSignal): Promise<TimedAnswer> {
  const times: ReadTimes = { sentAt: 0, reads: [] };
  const result = (await http.send(spec, signal, false, times)) as TimedAnswer;
  result.times = times;
  return result;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/** A seeded stream of numbers in [0, 1), for arrivals that repeat with their seed. */
function random(seed: number): () => number {
  const rng = xoroshiro128plus(seed | 0);
  // The first values of a small seed are far from uniform (0.99999998 for seed 1): passed over.
  for (let i = 0; i < 16; i++) uniformFloat64(rng);
  return () => uniformFloat64(rng);
}

/** Runs one step and resolves once its last answer is in. */
export async function drive(opts: DriveOptions): Promise<Driven> {
  const { step, signal } = opts;
  if (!step.concurrency === !step.rate) throw new Error('a load step has a concurrency or a rate, not both');
  const started = performance.now();
  const until = step.durationMs === undefined ? Infinity : started + step.durationMs;
  const budget = step.requests ?? Infinity;
  let sent = 0;
  let inFlight = 0;
  let peak = 0;
  const over = () => sent >= budget || performance.now() >= until || !!signal?.aborted;

  /** One request, sent again as long as the caller asks, while the step lasts. */
  const exchange = async (spec: RequestSpec) => {
    for (let attempt = 0; ; attempt++) {
      sent++;
      inFlight++;
      if (inFlight > peak) peak = inFlight;
      let wait: number | undefined;
      try {
        wait = opts.onAnswer(spec, await sendTimed(opts.http, spec, signal), attempt);
      } finally {
        inFlight--;
      }
      if (wait === undefined || over()) return;
      await sleep(wait, signal);
      if (over()) return;
    }
  };

  let skipped = 0;
  if (step.concurrency) {
    const worker = async () => {
      while (!over()) await exchange(opts.next());
    };
    await Promise.all(Array.from({ length: step.concurrency }, worker));
  } else {
    const draw = random(opts.seed ?? 1);
    const mean = 1000 / step.rate!;
    const max = opts.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    const pending = new Set<Promise<void>>();
    let at = started;
    while (!over()) {
      // Exponential gaps between arrivals: a Poisson process of the given rate.
      at += -Math.log(1 - draw()) * mean;
      const gap = at - performance.now();
      if (gap > 0) await sleep(gap, signal);
      if (over()) break;
      if (inFlight >= max) {
        skipped++;
        continue;
      }
      const p = exchange(opts.next()).finally(() => pending.delete(p));
      pending.add(p);
    }
    await Promise.all(pending);
  }
  return { sent, elapsedMs: performance.now() - started, peakInFlight: peak, skipped };
}
