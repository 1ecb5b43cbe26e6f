// Pacing: a stream's events as frames with pauses (time to first token, tokens per second, seeded
// jitter, keep-alive comments while the first token is awaited). With no timing, no pauses.
import type { MockConfig, Timing } from '../config/types.js';
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

/** The paces `conformance mock --pace` names. `human` types as a hosted model does, so a page built
 * against the mock shows its typing effect: a few hundred ms to the first token, then tens of tokens
 * a second, each pause varied. `instant` sends everything at once, as the kit's own runs, the
 * in-process mock and createMock() always do. */
export const PACES = {
  human: { ttft_ms: 400, tokens_per_second: 40, jitter: 0.3 },
  instant: {},
} as const satisfies Record<string, Timing>;

export type PaceName = keyof typeof PACES;

/** The configuration at a named pace: given none, `human` where the configuration sets no `timing`
 * of its own (a file's pace is kept); given one, in place of the configuration's. Models and
 * scenarios keep their own timing over it. */
export function withPace(config: MockConfig, pace: PaceName | undefined): MockConfig {
  if (pace === undefined) return config.timing ? config : { ...config, timing: { ...PACES.human } };
  const { timing: _replaced, ...rest } = config;
  return pace === 'instant' ? rest : { ...rest, timing: { ...PACES[pace] } };
}

/** A pace in words: `first token after 400 ms, then 40 tokens/s, ±30%`, or `at once`. */
export function paceText(t: Timing | undefined): string {
  const parts = [t?.ttft_ms ? `first token after ${t.ttft_ms} ms` : '', t?.tokens_per_second ? `${t.ttft_ms ? 'then ' : ''}${t.tokens_per_second} tokens/s` : ''].filter(Boolean);
  if (!parts.length) return 'at once';
  return `${parts.join(', ')}${t?.jitter ? `, each pause ±${Math.round(t.jitter * 100)}%` : ''}`;
}
