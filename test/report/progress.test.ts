// The live line: on a terminal it shows paths done of all and the request waiting longest, written
// over itself and cleared at the end; anywhere else it writes nothing.
import { describe, expect, it } from 'vitest';
import { liveLine } from '../../report/progress.js';

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
