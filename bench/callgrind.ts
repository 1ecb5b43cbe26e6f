// One probe process (bench/instructions-probe.ts) under valgrind's callgrind, and the instructions
// of each segment between its marks. Why callgrind, not cachegrind: callgrind can dump its counts at
// a function's entry (`--dump-before`), so one process yields the count of every window of every
// path, and start-up, which is most of a process's instructions under valgrind, is paid once.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plan } from './instructions-probe.js';

/** V8 made to repeat, and to reach its steady state soon:
 * - `--predictable --single-threaded`: no compiler or collector thread, no time-driven heuristics;
 * - `--interrupt-budget=8192` (an eighth of V8's): hot functions are optimized after a few thousand
 *   requests, not tens of thousands; the steady state measured the same with V8's budget (84.4 M
 *   instructions a window of 1,000 distinct requests either way), only reached later;
 * - an old generation of 1 GiB to begin with: no mark-compact in any window (it came every few thousand
 *   requests, 40 M instructions each, landing in one window and not the next); the young
 *   generation fixed at 16 MiB (V8's largest, where a busy server's grows), so that when scavenges
 *   come does not follow how the first requests survived;
 * - `--expose-gc`: the probe empties the young generation at each window's ends. */
export const NODE_FLAGS = ['--predictable', '--single-threaded', '--interrupt-budget=8192', '--initial-old-space-size=1024', '--min-semi-space-size=16', '--max-semi-space-size=16', '--expose-gc'];

/** os.uptime() marks a window's end (the probe's only call of uv_uptime). Optimizing compilation is
 * left out of every count (collection is off inside V8's optimizing compiler): it is a one-time cost,
 * and when V8 compiles a function again is the least repeatable thing of a run. The order matters:
 * --toggle-collect sets --collect-atstart=no, which is set back after it. */
const VALGRIND_FLAGS = ['--tool=callgrind', '--dump-before=uv_uptime', '--toggle-collect=v8::internal::Compiler::CompileOptimized*', '--collect-atstart=yes'];

export interface Segments {
  /** The label of each segment, and its instructions. */
  segments: { label: string; instructions: number }[];
  /** Paths the build does not have. */
  missing: string[];
  /** Mark-compacts that ran anyway (none is expected: the figures are only steady without). */
  majorGcs: number;
  /** Wall time of the process, ms. */
  ms: number;
}

const PROBE = fileURLToPath(new URL('./instructions-probe.js', import.meta.url));

/** Runs `plan` under callgrind; `keep`: a directory to leave the dumps in (for callgrind_annotate). */
export async function underCallgrind(plan: Omit<Plan, 'labels'>, keep?: string): Promise<Segments> {
  const dir = keep ?? mkdtempSync(join(tmpdir(), 'bench-callgrind-'));
  const planFile = join(dir, 'plan.json');
  const labelsFile = join(dir, 'labels.json');
  writeFileSync(planFile, JSON.stringify({ ...plan, labels: labelsFile } satisfies Plan));
  const started = performance.now();
  try {
    const args = [...VALGRIND_FLAGS, `--log-file=${join(dir, 'valgrind.log')}`, `--callgrind-out-file=${join(dir, 'callgrind.out')}`, process.execPath, ...NODE_FLAGS, PROBE, planFile];
    const child = spawn('valgrind', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()).length > 1e5 && (stderr = stderr.slice(-5e4)));
    const code = await new Promise<number | null>((resolve, reject) => child.on('error', reject).on('close', resolve));
    if (code !== 0) throw new Error(`the probe under callgrind exited ${code}:\n${stderr.slice(-4000)}\n${tail(join(dir, 'valgrind.log'))}`);
    const { labels, missing, majorGcs } = JSON.parse(readFileSync(labelsFile, 'utf8')) as { labels: string[]; missing: string[]; majorGcs: number };
    // Dump k (callgrind.out.k) holds what ran from mark k-1 to mark k.
    const dumps = readdirSync(dir).filter((f) => /^callgrind\.out\.\d+$/.test(f)).length;
    if (dumps < labels.length) throw new Error(`${labels.length} marks but ${dumps} dumps: something else called uv_uptime`);
    const segments = labels.map((label, i) => ({ label, instructions: totalOf(readFileSync(join(dir, `callgrind.out.${i + 1}`), 'utf8')) }));
    return { segments, missing, majorGcs, ms: performance.now() - started };
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

function totalOf(dump: string): number {
  const m = /^(?:totals|summary): (\d+)/m.exec(dump);
  if (!m) throw new Error('a callgrind dump without totals');
  return Number(m[1]);
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-30).join('\n');
  } catch {
    return '';
  }
}
