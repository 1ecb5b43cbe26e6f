// The live line of a long run on a terminal: paths done of all, and the request waiting longest.
// Written over itself on standard error; nothing at all when that is not a terminal.
import type { Progress } from '../engine/check.js';
import { safe } from './text.js';

const EVERY_MS = 200;

/** Starts drawing once the run knows its paths; the returned function clears the line for good. */
export function liveLine(out: NodeJS.WriteStream): { onStart(p: Progress): void; stop(): void } {
  if (!out.isTTY) return { onStart: () => {}, stop: () => {} };
  let timer: NodeJS.Timeout | undefined;
  const clear = () => out.write('\r\x1b[K');
  return {
    onStart(p) {
      timer = setInterval(() => {
        const slow = p.slowest();
        const width = Math.max(20, (out.columns ?? 80) - 1);
        const text = `conformance: ${p.done()}/${p.total()} paths${slow && slow.ms >= 1000 ? `; waiting ${(slow.ms / 1000).toFixed(1)} s on ${safe(slow.label)}` : ''}`;
        clear();
        out.write(text.length > width ? `${text.slice(0, width - 1)}…` : text);
      }, EVERY_MS);
      timer.unref();
    },
    stop() {
      if (timer) {
        clearInterval(timer);
        clear();
      }
      timer = undefined;
    },
  };
}
