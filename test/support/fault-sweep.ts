// The sweep of test/faults.test.ts, one fault at a time: the checks a fault fails are exactly those it
// declares, each blocked check names an owner that failed, a fault on one path fails there only, a
// legal variation fails nothing. Shared by two files, each a half of the catalogue, so that the two
// workers of the suite (vitest.config.ts) share its longest sweep.
import { describe, expect, it } from 'vitest';
import { createMock } from '../../mock/core/handle.js';
import type { Fault } from '../../mock/core/faults/index.js';
import { CHECKS } from '../../suites/index.js';
import { passing, runAgainstMock } from './run.js';
import { within } from './machine.js';

/** The rules whose subject is time itself: the kit's limits, judged as a client's. */
export const ABOUT_TIME: readonly string[] = ['fuzz.within-timeout', 'load.no-starvation'];
/** A fault that fails a rule about time: one whose request never answers within a test. */
export const aboutTime = (fault: Fault) => fault.fails.some((id) => ABOUT_TIME.includes(id));

/** The faults of even place, and of odd: two halves of alike cost. */
export const firstHalf = <T>(all: readonly T[]) => all.filter((_, i) => i % 2 === 0);
export const secondHalf = <T>(all: readonly T[]) => all.filter((_, i) => i % 2 === 1);

export function sweepFaults(faults: readonly Fault[]): void {
  describe.concurrent.each(faults.map((f) => [f.name, f] as const))('%s', (_name, fault) => {
    it(
      fault.fails.length
        ? `fails exactly ${fault.fails.join(', ')}`
        : fault.flakes?.length
          ? `makes exactly ${fault.flakes.join(', ')} flaky`
          : fault.breaksFlowsOnly?.length
            ? 'passes every check (only client flows break: test/clients/sweep.test.ts)'
            : 'passes every check (a legal variation)',
      async () => {
        // A rule about time is proven by a request that never answers, cut at a limit the others,
        // served, stay well inside on this machine as it is now (at the default, 60 s, it waited out).
        const results = await runAgainstMock(CHECKS, { mock: createMock(undefined, { faults: [fault] }), ...(aboutTime(fault) ? { timeoutMs: within(2_000) } : {}) });
        const failed = [...results.values()]
          .filter((r) => r.outcome === 'fail')
          .map((r) => r.id)
          .sort();
        const detail = [...results.values()].filter((r) => r.outcome === 'fail' || fault.fails.includes(r.id)).map((r) => `${r.id}: ${r.outcome}: ${r.message}`);
        expect(failed, detail.join('\n')).toEqual([...fault.fails].sort());
        const flaky = [...results.values()].filter((r) => r.outcome === 'flaky').map((r) => r.id);
        expect(flaky.sort(), detail.join('\n')).toEqual([...(fault.flakes ?? [])].sort());
        // One defect, one failure, at its owner: every check blocked from judging names a check that
        // failed (or saw it and found it flaky), on any fault of the catalogue.
        const blind = [...results.values()].flatMap((r) => (r.blockedBy ?? []).filter((owner) => !['fail', 'flaky'].includes(results.get(owner)?.outcome ?? '')).map((o) => `${r.id} -> ${o}`));
        expect(blind, 'blockedBy naming an owner that did not fail').toEqual([]);
        if (fault.on) {
          // A fault on one path fails its checks on that path only, and the report names the path.
          const elsewhere = [...results.values()].flatMap((r) =>
            r.outcome === 'fail' ? (r.paths ?? []).filter((p) => p.outcome === 'fail' && !p.label.split(', ').includes(fault.on!)).map((p) => `${r.id} [${p.label}]`) : [],
          );
          expect(elsewhere, `failing paths that do not name ${fault.on}`).toEqual([]);
        }
        if (!fault.fails.length) {
          const notPassing = [...results.values()].filter((r) => !passing(r) && !fault.flakes?.includes(r.id)).map((r) => `${r.id}: ${r.outcome}`);
          expect(notPassing).toEqual([]);
        }
      },
    );
  });
}
