// Pacing: a stream's events as frames with pauses (time to first token, tokens per second, seeded
// jitter, keep-alive comments while the first token is awaited). With no timing, no pauses.
import type { Timing } from '../config/types.js';
import type { StreamEvent } from './chunks.js';
import { prng } from './random.js';
import { DONE, eventBytes } from './sse.js';
import type { Frame } from './types.js';

const KEEPALIVE = ': keep-alive\n\n';

/** `stamp` turns each prepared payload into the one this request sends (its id and created). */
export function* pacedFrames(events: Iterable<StreamEvent>, timing: Timing | undefined, seed: number, stamp: (payload: string) => string = (p) => p): Generator<Frame> {
  const ttft = timing?.ttft_ms ?? 0;
  const tps = timing?.tokens_per_second ?? 0;
  const jitter = Math.min(1, Math.max(0, timing?.jitter ?? 0));
  const rand = prng(seed);
  const vary = (ms: number) => (jitter ? ms * (1 + jitter * (rand() * 2 - 1)) : ms);
  let first = true;
  for (const [payload, tokens] of events) {
    let delayMs = 0;
    if (first) {
      first = false;
      let wait = vary(ttft);
      const every = timing?.keepalive_ms ?? 0;
      if (every > 0) {
        for (; wait > every; wait -= every) yield { delayMs: every, bytes: KEEPALIVE };
      }
      delayMs = wait;
    } else if (tps > 0 && tokens > 0) delayMs = vary((tokens / tps) * 1000);
    yield { delayMs: Math.round(delayMs), bytes: eventBytes(stamp(payload)) };
  }
  yield { delayMs: 0, bytes: eventBytes(DONE) };
}

/** How long a non-streamed reply takes when it is paced: the first token, then the rest, each
 * varied by the jitter as the stream's pauses are (seeded by the request: the same every time). */
export function bodyDelay(timing: Timing | undefined, tokens: number, seed = 0): number {
  if (!timing) return 0;
  const tps = timing.tokens_per_second ?? 0;
  const jitter = Math.min(1, Math.max(0, timing.jitter ?? 0));
  const rand = prng(seed);
  const vary = (ms: number) => (jitter ? ms * (1 + jitter * (rand() * 2 - 1)) : ms);
  return Math.round(vary(timing.ttft_ms ?? 0) + (tps > 0 ? vary((tokens / tps) * 1000) : 0));
}
