// Events to bytes: the one place the mock frames server-sent events.
import type { Frame } from './types.js';

export const DONE = '[DONE]';

export function eventBytes(data: string): string {
  return `data: ${data}\n\n`;
}

export function* frames(payloads: Iterable<unknown>, delayMs = 0): Generator<Frame> {
  for (const p of payloads) yield { delayMs, bytes: eventBytes(JSON.stringify(p)) };
  yield { delayMs, bytes: eventBytes(DONE) };
}
