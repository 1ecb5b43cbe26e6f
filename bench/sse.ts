// The kit's SSE parser on inputs shaped to defeat a naive scanner, at one and four times their size:
// the CPU time of each (the least of three parses, after a warm-up) and the ratio of the two.
// Target: < 8 x (linear is 4 x; a scanner that goes back over what it read is 16 x). The test
// (test/engine/sse.test.ts) holds the same shapes to a count of the characters the parser touches,
// which a busy machine cannot change; this is the time that count stands for.
//   node dist/bench/sse.js        (or npm run bench; BENCH_ONLY=sse for this part alone)
import { pathToFileURL } from 'node:url';
import { parseSse } from '../engine/sse.js';

const GROWTH_TARGET = 8;
const utf8 = (s: string) => new TextEncoder().encode(s);

/** Each defeats a naive scanner: no CR at all, no colon at all, a single giant line, lone CRs only. */
export const SSE_SHAPES: readonly [string, (n: number) => Uint8Array | string][] = [
  ['typical LF stream', (n) => utf8('event: delta\ndata: {"choices":[{"delta":{"content":"héllo"}}]}\n\n'.repeat(10_000 * n))],
  ['CRLF stream as string', (n) => 'id: 1\r\ndata: {"x":1}\r\n\r\n'.repeat(25_000 * n)],
  ['lines without colons', (n) => utf8('data\nid\n\n'.repeat(50_000 * n))],
  ['one 8 MB line', (n) => utf8(`data: ${'x'.repeat(1_000_000 * n)}\n\n`)],
  ['lone CRs', (n) => utf8('\r'.repeat(500_000 * n))],
  ['comments only', (n) => ': ping\n\n'.repeat(50_000 * n)],
];

/** The least CPU time of three parses of `input`, in milliseconds. */
function cpuMs(input: Uint8Array | string): number {
  let least = Infinity;
  for (let i = 0; i < 3; i++) {
    const t0 = process.cpuUsage();
    parseSse(input);
    const t = process.cpuUsage(t0);
    least = Math.min(least, (t.user + t.system) / 1000);
  }
  return least;
}

export async function sseBench(): Promise<void> {
  console.log(`the SSE parser's growth: CPU time at 4 x the input against 1 x; Node ${process.version}\n`);
  const rows: string[][] = [['shape', '1 x', '4 x', 'ratio', `< ${GROWTH_TARGET} x`]];
  const missed: string[] = [];
  for (const [name, make] of SSE_SHAPES) {
    // The first parses of a shape are the JIT's, not the parser's.
    cpuMs(make(1));
    const one = cpuMs(make(1));
    const four = cpuMs(make(4));
    const ratio = four / one;
    if (!(ratio < GROWTH_TARGET)) missed.push(name);
    rows.push([name, `${one.toFixed(1)} ms`, `${four.toFixed(1)} ms`, `${ratio.toFixed(1)} x`, ratio < GROWTH_TARGET ? 'yes' : 'MISSED']);
  }
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  for (const r of rows) console.log(r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  '));
  console.log(missed.length ? `\nMISSED: ${missed.join(', ')}\n` : '\nevery shape within its target\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await sseBench();
