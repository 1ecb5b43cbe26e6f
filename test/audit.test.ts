// Every request proves its rule. Each check carries its audit line (what a server that ignores,
// half-honours or breaks the rule answers to the check's request), ending with the mock faults that
// show it; each fault named exists and declares the check among those it fails; the faults named
// for a check that runs streamed and not fail it on both paths; and the command line shows the line.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createMock } from '../mock/core/handle.js';
import { faultNamed, FAULTS } from '../mock/core/faults/index.js';
import { CHECKS, type ApiCheck } from '../suites/index.js';
import { runAgainstMock } from './support/run.js';
import { within } from './support/machine.js';

const SHOWN_BY = /; shown by faults? (.+)\.$/;

/** The fault names an audit line ends with: "shown by fault a" or "shown by faults a, b and c". */
function faultsOf(audit: string | undefined): string[] {
  const m = SHOWN_BY.exec(audit ?? '');
  return m ? m[1].split(/, | and /) : [];
}

/** Checks whose stream axis holds both the JSON and the streamed path. */
const bothWays = (c: ApiCheck) => {
  const axis = c.paths?.stream;
  return Array.isArray(axis) && axis.some((p) => p.value === false) && axis.some((p) => p.value === true);
};

const bin = fileURLToPath(new URL('../dist/bin/conformance.js', import.meta.url));
const list = (args: string[]) =>
  new Promise<string>((resolve, reject) => execFile(process.execPath, [bin, 'list', ...args], { timeout: 60_000, maxBuffer: 16 << 20 }, (err, stdout) => (err ? reject(err) : resolve(stdout))));

describe('the audit of every request', () => {
  it('every check carries an audit line that names the faults showing it', () => {
    for (const c of CHECKS) {
      expect(typeof c.audit === 'string' && c.audit.trim().length > 0, `${c.id} has an audit line`).toBe(true);
      expect(faultsOf(c.audit).length, `${c.id}'s audit line ends with "; shown by fault ...": ${c.audit}`).toBeGreaterThan(0);
    }
  });

  it('every fault an audit line names exists and declares that check among those it fails', () => {
    const names = new Set(FAULTS.map((f) => f.name));
    for (const c of CHECKS)
      for (const name of faultsOf(c.audit)) {
        expect(names.has(name), `${c.id} names fault ${name}, which is not in the catalogue`).toBe(true);
        expect(faultNamed(name).fails, `${c.id} names fault ${name}`).toContain(c.id);
      }
  });

  it('the faults named for a check tried streamed and not fail it on both paths', { timeout: within(120_000) }, async () => {
    const checks = CHECKS.filter(bothWays);
    // Each fault once, against the checks that name it: the requests of those checks alone.
    const byFault = new Map<string, ApiCheck[]>();
    for (const c of checks) for (const name of faultsOf(c.audit)) byFault.set(name, [...(byFault.get(name) ?? []), c]);
    const failedOn = new Map<string, Set<string>>(checks.map((c) => [c.id, new Set()]));
    const runs = [...byFault].map(([name, named]) => async () => {
      const results = await runAgainstMock(named, { mock: createMock(undefined, { faults: [faultNamed(name)] }) });
      for (const c of named) for (const p of results.get(c.id)?.paths ?? []) if (p.outcome === 'fail') failedOn.get(c.id)!.add(p.path.stream ? 'stream' : 'json');
    });
    // A few at a time: the machine running the tests has two cores.
    for (let i = 0; i < runs.length; i += 4) await Promise.all(runs.slice(i, i + 4).map((run) => run()));
    const short = checks.filter((c) => failedOn.get(c.id)!.size < 2).map((c) => `${c.id} fails only ${[...failedOn.get(c.id)!].join(', ') || 'nowhere'} under ${faultsOf(c.audit).join(', ')}`);
    expect(short).toEqual([]);
  });

  it(
    'conformance list --json carries the audit line of every check, and the text list prints it',
    async () => {
      const json = JSON.parse(await list(['--json'])) as { checks: { id: string; audit?: string }[] };
      const audits = new Map(json.checks.map((c) => [c.id, c.audit]));
      for (const c of CHECKS) expect(audits.get(c.id), c.id).toBe(c.audit);
      const text = await list([]);
      expect(text.match(/^ +audit: /gm)?.length).toBe(CHECKS.length);
      expect(text).toContain(`audit: ${CHECKS[0].audit}`);
    },
    within(60_000),
  );
});
