// The live lines: on a terminal, a run's shows paths done of all and the request waiting longest,
// a load's the step under way (requests answered of its total, in flight, failed), written over
// itself and cleared at the end; anywhere else they write nothing.
import { describe, expect, it } from 'vitest';
import { liveLine, loadLine, type LoadProgress } from '../../report/progress.js';

const stream = (isTTY: boolean) => {
  const written: string[] = [];
  return { written, out: { isTTY, columns: 200, write: (s: string) => written.push(s) > 0 } as unknown as NodeJS.WriteStream };
};
const progress = { done: () => 3, total: () => 10, slowest: () => ({ label: 'long essay, streamed', ms: 1500 }) };

describe('the live progress line', () => {
  it('draws paths done and the slowest request on a terminal, then clears itself', async () => {
    const { written, out } = stream(true);
    const line = liveLine(out);
    line.onStart(progress);
    await new Promise((r) => setTimeout(r, 450));
    line.stop();
    expect(written).toContain('conformance: 3/10 paths; waiting 1.5 s on long essay, streamed');
    expect(written.at(-1)).toBe('\r\x1b[K');
  });

  it('writes nothing when not a terminal', async () => {
    const { written, out } = stream(false);
    const line = liveLine(out);
    line.onStart(progress);
    await new Promise((r) => setTimeout(r, 300));
    line.stop();
    expect(written).toEqual([]);
  });
});

describe("the load's live line", () => {
  /** A step whose counts move as a sweep's do. */
  const step = (label: string, counts: { done: number; inFlight: number; failed: number }, planned: Partial<LoadProgress> = { requests: 64 }): LoadProgress => ({
    label,
    ...planned,
    elapsedMs: () => 12_000,
    done: () => counts.done,
    inFlight: () => counts.inFlight,
    failed: () => counts.failed,
  });
  const tick = () => new Promise((r) => setTimeout(r, 450));

  it('draws the step under way as its counts grow, then the next step, and clears itself', async () => {
    const { written, out } = stream(true);
    const line = loadLine(out);
    const counts = { done: 3, inFlight: 16, failed: 0 };
    line.onStep(step('concurrency 16', counts));
    await tick();
    expect(written).toContain('conformance: concurrency 16: 3/64 requests answered, 16 in flight, 0 failed');
    Object.assign(counts, { done: 40, failed: 2 });
    await tick();
    expect(written).toContain('conformance: concurrency 16: 40/64 requests answered, 16 in flight, 2 failed');
    // A step's closing line is written on a clear line, and the next step drawn after it.
    line.stop();
    expect(written.at(-1)).toBe('\r\x1b[K');
    line.onStep(step('concurrency 64', { done: 5, inFlight: 64, failed: 0 }, { durationMs: 30_000 }));
    await tick();
    line.stop();
    expect(written).toContain('conformance: concurrency 64: 5 requests answered, 64 in flight, 0 failed, 12 of 30 s');
    expect(written.at(-1)).toBe('\r\x1b[K');
  });

  it('draws a step as it starts: one that ends at once is drawn too, before its closing line', () => {
    const { written, out } = stream(true);
    const line = loadLine(out);
    line.onStep(step('concurrency 4', { done: 0, inFlight: 0, failed: 0 }, { requests: 20 }));
    line.stop();
    expect(written).toEqual(['\r\x1b[K', 'conformance: concurrency 4: 0/20 requests answered, 0 in flight, 0 failed', '\r\x1b[K']);
  });

  it('writes nothing when not a terminal', async () => {
    const { written, out } = stream(false);
    const line = loadLine(out);
    line.onStep(step('alone', { done: 1, inFlight: 1, failed: 0 }));
    await tick();
    line.stop();
    expect(written).toEqual([]);
  });
});
