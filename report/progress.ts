// The live line of a long session on a terminal: for a run, paths done of all and the request
// waiting longest; for a load, within each step, requests answered, in flight and failed. Written
// over itself on standard error; nothing at all when that is not a terminal.
import type { Progress } from '../engine/check.js';
import { safe } from './text.js';

const EVERY_MS = 200;

/** A step of a load as it runs: its counts read when the line is drawn. */
export interface LoadProgress {
  /** `alone`, `concurrency 16`, `rate 10/s`. */
  label: string;
  /** The requests it sends, or how long it lasts, when either is set. */
  requests?: number;
  durationMs?: number;
  elapsedMs(): number;
  /** Answers in, refusals sent again included. */
  done(): number;
  inFlight(): number;
  /** Failed and timed out so far. */
  failed(): number;
}

/** Draws `text()` over itself from `draw`, at once and then every EVERY_MS, until `stop`, which
 * clears it; a second `draw` replaces what is drawn. At once: a step shorter than EVERY_MS (a load
 * step against a quick server) is drawn too, not only its closing line. */
function liveText(out: NodeJS.WriteStream): { draw(text: () => string): void; stop(): void } {
  if (!out.isTTY) return { draw: () => {}, stop: () => {} };
  let timer: NodeJS.Timeout | undefined;
  const clear = () => out.write('\r\x1b[K');
  return {
    draw(text) {
      clearInterval(timer);
      const once = () => {
        const width = Math.max(20, (out.columns ?? 80) - 1);
        const t = text();
        clear();
        out.write(t.length > width ? `${t.slice(0, width - 1)}…` : t);
      };
      once();
      timer = setInterval(once, EVERY_MS);
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

/** Starts drawing once the run knows its paths; the returned function clears the line for good. */
export function liveLine(out: NodeJS.WriteStream): { onStart(p: Progress): void; stop(): void } {
  const line = liveText(out);
  return {
    onStart(p) {
      line.draw(() => {
        const slow = p.slowest();
        return `conformance: ${p.done()}/${p.total()} paths${slow && slow.ms >= 1000 ? `; waiting ${(slow.ms / 1000).toFixed(1)} s on ${safe(slow.label)}` : ''}`;
      });
    },
    stop: line.stop,
  };
}

/** Draws the step that started last; `stop` clears the line (before a step's closing line is
 * written, and at the end). */
export function loadLine(out: NodeJS.WriteStream): { onStep(p: LoadProgress): void; stop(): void } {
  const line = liveText(out);
  return {
    onStep(p) {
      line.draw(() => {
        const of = p.requests !== undefined ? `/${p.requests}` : '';
        const time = p.durationMs !== undefined ? `, ${(p.elapsedMs() / 1000).toFixed(0)} of ${(p.durationMs / 1000).toFixed(0)} s` : '';
        return `conformance: ${safe(p.label)}: ${p.done()}${of} requests answered, ${p.inFlight()} in flight, ${p.failed()} failed${time}`;
      });
    },
    stop: line.stop,
  };
}
