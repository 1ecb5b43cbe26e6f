// Events to bytes: the one place the mock frames server-sent events.
import type { Frame } from './types.js';

export const DONE = '[DONE]';

export function eventBytes(data: string): string {
  return `data: ${data}\n\n`;
}

/** Payloads as frames, then the terminator. A string payload is sent as it is (`[DONE]`, or a
 * fault's broken JSON); anything else as JSON. */
export function* frames(payloads: Iterable<unknown>, delayMs = 0, done = true): Generator<Frame> {
  for (const p of payloads) yield { delayMs, bytes: eventBytes(typeof p === 'string' ? p : JSON.stringify(p)) };
  if (done) yield { delayMs, bytes: eventBytes(DONE) };
}
