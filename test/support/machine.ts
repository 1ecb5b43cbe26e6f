// How much slower this machine runs now than the quiet machine a test's time target was set on:
// the shared 2-core machine of the project, where the work below takes 8 ms with nothing else
// running. A target of 1 s is asserted as 1 s times this (never less than 1 s): the figure stays
// the target, and a machine busy with other jobs does not fail a test for being busy. Measured when
// asked (at most every few seconds), so a test sees the load of its own moment; the test timeout of
// vitest.config.ts is set from the measure at the suite's start. The work is short because it is
// CPU taken from the tests: at 80 ms a run (a third of a second a measure) it was 8% of the client
// sweep's CPU; at 8 ms it still reads a machine kept busy (2 to 3.7 times slower, as the longer work
// read it) and a quiet one within 10%.
const QUIET_MS = 8;
/** A measure is reused this long: tests that ask together share one. */
const FRESH_MS = 5_000;

/** The work: parse and serialize 12,500 empty arrays ten times, the kind of work the mock does
 * with a body; the middle of three runs, after one to warm up. */
function work(): number {
  const t0 = performance.now();
  for (let i = 0; i < 10; i++) JSON.stringify(JSON.parse(DOC));
  return performance.now() - t0;
}

const DOC = `[${Array(12_500).fill('[]').join(',')}]`;

let last: { at: number; factor: number } | undefined;

/** 1 on a machine as fast and as quiet as the reference, or more. */
export function machineSlowdown(): number {
  if (last && performance.now() - last.at < FRESH_MS) return last.factor;
  work();
  const runs = [work(), work(), work()].sort((a, b) => a - b);
  last = { at: performance.now(), factor: Math.max(1, runs[1] / QUIET_MS) };
  return last.factor;
}

/** A time target of the quiet machine, as this one meets it now: `ms` times machineSlowdown(). */
export const within = (ms: number) => Math.round(ms * machineSlowdown());

/** The limit a test gives what it runs (a run's `--timeout`, a flow's or a client's timeout) against
 * a server of its own that answers: the kit's default, which only a hang reaches, however busy the
 * machine. A test that proves a limit does so against a server that never answers, with any limit,
 * and says so where it sets it (`never answers`): test/time-bounds.test.ts reads for both. */
export const ONLY_A_HANG_MS = 60_000;
