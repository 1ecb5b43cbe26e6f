// The proof that every check can fail. The correct mock passes every check; each fault of the
// catalogue makes exactly the checks it declares fail (no more, no fewer); legal variations fail
// nothing; and every check of the registry is failed by at least one fault. A new check without a
// fault that kills it fails here. A load fault shows only with requests in flight together: it is
// held to its checks by a small load sweep (each request alone, then 1 and 4 in flight), where they
// must fail at the step of 4 and there only.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createMock } from '../mock/core/handle.js';
import { FAULTS } from '../mock/core/faults/index.js';
import { CHECKS } from '../suites/index.js';
import { passing, runAgainstMock } from './support/run.js';
import { loadAgainstMock } from './support/load.js';

const PROVING = FAULTS.filter((f) => !f.hostile && !f.frontend);
const ids = new Set(CHECKS.map((c) => c.id));

describe('the fault catalogue', () => {
  it('names only checks that exist, and each fault once', () => {
    expect(new Set(FAULTS.map((f) => f.name)).size).toBe(FAULTS.length);
    for (const f of FAULTS) for (const id of f.fails) expect(ids, `${f.name} names ${id}`).toContain(id);
  });

  it('kills every check of the registry', () => {
    const killed = new Set(PROVING.flatMap((f) => f.fails));
    const unproven = CHECKS.map((c) => c.id).filter((id) => !killed.has(id));
    expect(unproven, 'checks without a fault that makes them fail').toEqual([]);
  });

  it('README.md states the proof figure as it is', () => {
    const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
    const proven = CHECKS.filter((c) => PROVING.some((f) => f.fails.includes(c.id))).length;
    const figure = `**${CHECKS.length} checks, ${PROVING.filter((f) => f.fails.length).length} faults that prove them, ${proven} of ${CHECKS.length} checks proven to fail.**`;
    expect(readme).toContain(figure);
  });

  it('the correct mock passes every check', async () => {
    const results = await runAgainstMock(CHECKS);
    const off = [...results.values()].filter((r) => !passing(r)).map((r) => `${r.id}: ${r.outcome}: ${r.message}`);
    expect(off).toEqual([]);
  });

  describe.concurrent.each(PROVING.filter((f) => !f.load).map((f) => [f.name, f] as const))('%s', (_name, fault) => {
    it(
      fault.fails.length ? `fails exactly ${fault.fails.join(', ')}` : fault.flakes?.length ? `makes exactly ${fault.flakes.join(', ')} flaky` : 'passes every check (a legal variation)',
      async () => {
        const results = await runAgainstMock(CHECKS, { mock: createMock(undefined, { faults: [fault] }) });
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

  it('the correct mock passes every rule under load', async () => {
    const report = await loadAgainstMock();
    const off = report.results.filter((r) => r.outcome !== 'pass' && !(r.outcome === 'skip' && r.id === 'load.retry-after')).map((r) => `${r.id}: ${r.outcome}: ${r.message}`);
    expect(off).toEqual([]);
  });

  describe.concurrent.each(PROVING.filter((f) => f.load).map((f) => [f.name, f] as const))('%s (under load)', (_name, fault) => {
    it(fault.fails.length ? `fails exactly ${fault.fails.join(', ')}, from the step of 4 in flight` : 'passes every rule under load (a legal variation)', async () => {
      const report = await loadAgainstMock(createMock(undefined, { faults: [fault] }));
      const failed = report.results.filter((r) => r.outcome === 'fail');
      const detail = failed.map((r) => `${r.id}: ${r.message}`).join('\n');
      expect(failed.map((r) => r.id).sort(), detail).toEqual([...fault.fails].sort());
      // It holds alone and one at a time, and breaks where 4 are in flight.
      for (const r of failed)
        expect(r.paths!.map((p) => [p.label, p.outcome === 'fail'])).toEqual([
          ['alone', false],
          ['concurrency 1', false],
          ['concurrency 4', true],
        ]);
    });
  });
});
