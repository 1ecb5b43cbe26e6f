// The proof of the flows' declarations, as test/faults.test.ts proves the checks': every flow of
// every client runs against every fault of the catalogue (one mock per fault, the flows in this
// process), and what breaks is held to what the flows declare. A flow broken by a fault rests on a
// check that fault fails (or the fault says it breaks the flow where no check fails: the kit lacks
// that rule); every check a flow rests on was seen to break it, by a fault that fails that check.
// A disagreement names the fault and the flow. A fault that leaves every exchange of the flows as
// the correct mock serves it breaks none, which is derived rather than run (./untouched.ts: about
// half the catalogue); a sample of those is run all the same, and holds the derivation.
import { beforeAll, describe, expect, it } from 'vitest';
import { CLIENTS } from '../../clients/index.js';
import type { FlowResult } from '../../report/clients.js';
import { createMock } from '../../mock/core/handle.js';
import { FAULTS, type Fault } from '../../mock/core/faults/index.js';
import { ONLY_A_HANG_MS, within } from '../support/machine.js';
import { flowsAgainst, MODELS, NODE_CLIENTS } from './support.js';
import { recordingMock, untouched } from './untouched.js';

/** Faults under which the kit makes no report at all, so no flow is judged beside a check. */
const NO_REPORT: Record<string, string> = {
  'every-route-404': 'every route answers 404: the kit says the target is not the API (suites/sanity.ts) and writes no report',
};
const SWEPT = FAULTS.filter((f) => !f.hostile && !f.frontend && !f.load && !NO_REPORT[f.name]);
/** What a fault makes fail or flaky: a flow it breaks rests on one of them. */
const checksOf = (f: Fault) => [...f.fails, ...(f.flakes ?? [])];
// The browser client runs the openai SDK's own code: its flows rest on their Node twins' checks
// (a test below holds them equal), and a browser per fault would cost the sweep minutes.
const FLOWS = CLIENTS.filter((c) => NODE_CLIENTS.includes(c.name)).flatMap((c) => c.flows.map((f) => ({ id: `${c.name}.${f.name}`, rests: f.rests })));

/** The model a fault is swept on: the one it names (`on`), else the first of the mock's. Every flow
 * passes on every model of the correct mock (flows.test.ts); a fault breaks a flow on the model it
 * is about, and sweeping both models for each doubled the suite's longest file. */
const modelsFor = (f: Fault) => [MODELS.find((m) => f.on?.split(', ').includes(m)) ?? MODELS[0]];

/** Faults run at once: each mostly waits (a client's backoff, a timeout), so several overlap. */
const AT_ONCE = 12;
/** One derived fault in this many is run all the same: the derivation is held on real runs. */
const SAMPLED = 6;
const broken = new Map<string, FlowResult[]>();
/** The faults whose verdict was derived, and what the sample of them broke when run. */
const derived: string[] = [];
const sampleBroke = new Map<string, FlowResult[]>();
// No fault of the catalogue makes a client wait out its timeout: one only a hang reaches, on this
// machine as it is now, keeps a busy machine's slowness from passing for a break (at 20 s, eight busy
// processes on two cores timed out a tool flow's second request).
const flowsUnder = (fault: Fault) => flowsAgainst(createMock(undefined, { faults: [fault] }), { timeoutMs: within(ONLY_A_HANG_MS), clients: NODE_CLIENTS, models: modelsFor(fault) });

beforeAll(async () => {
  // What the flows exchange with the correct mock, on each model a fault is swept on.
  const recorded = new Map<string, ReturnType<typeof recordingMock>>();
  for (const model of new Set(SWEPT.flatMap(modelsFor))) {
    const rec = recordingMock();
    await flowsAgainst(rec.mock, { clients: NODE_CLIENTS, models: [model] });
    recorded.set(model, rec);
  }
  const toRun: Fault[] = [];
  for (const fault of SWEPT) {
    const rec = recorded.get(modelsFor(fault)[0])!;
    if (!untouched(fault, rec.mock.config, rec.exchanged)) toRun.push(fault);
    else {
      broken.set(fault.name, []);
      if (derived.push(fault.name) % SAMPLED === 1) toRun.push(fault);
    }
  }
  let next = 0;
  const worker = async () => {
    while (next < toRun.length) {
      const fault = toRun[next++];
      const flows = (await flowsUnder(fault)).filter((f) => f.outcome !== 'pass');
      if (derived.includes(fault.name)) sampleBroke.set(fault.name, flows);
      else broken.set(fault.name, flows);
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, worker));
}, 900_000);

describe('the client sweep: every flow of every client against every fault', () => {
  it.each(SWEPT.map((f) => [f.name, f] as const))('%s breaks only flows that rest on a check it fails', (name, fault) => {
    const failing = new Set(checksOf(fault));
    const unruled = new Set(fault.breaksFlowsOnly ?? []);
    const flows = broken.get(name)!;
    const unexplained = flows
      .filter((f) => !f.restsOn.some((id) => failing.has(id)) && !unruled.has(f.id))
      .map((f) => `${f.id} broke (${f.message}), resting on none of ${[...failing].join(', ') || 'no check'}`);
    expect(unexplained, `fault ${name}`).toEqual([]);
    // A fault that says it breaks flows no check holds does break them.
    expect(
      [...unruled].filter((id) => !flows.some((f) => f.id === id)),
      `fault ${name}: flows it says it breaks`,
    ).toEqual([]);
  });

  // Blame from a flow's own answers (clients/judge.ts): a rule its own answers broke is a rule the fault
  // fails (no flow is blamed on a rule that held), and one the flow declares it rests on.
  it.each(SWEPT.map((f) => [f.name, f] as const))('%s: what a broken flow is blamed on, its own answers broke, and it rests on', (name, fault) => {
    const failing = new Set(checksOf(fault));
    const wrong = broken
      .get(name)!
      .flatMap((f) =>
        f.paths.flatMap((p) =>
          (p.broke ?? []).flatMap((id, i) =>
            failing.has(id) && f.restsOn.includes(id)
              ? []
              : [`${f.id} [${p.label}]: ${p.brokeWhy?.[i] ?? id}${failing.has(id) ? ', a rule it does not declare it rests on' : ', a rule the fault does not fail'}`],
          ),
        ),
      );
    expect(wrong, `fault ${name}`).toEqual([]);
  });

  it.each(FLOWS.map((f) => [f.id, f] as const))('%s: every check it rests on was seen to break it', (id, flow) => {
    const unseen = flow.rests.filter((check) => !SWEPT.some((fault) => checksOf(fault).includes(check) && broken.get(fault.name)!.some((f) => f.id === id)));
    expect(unseen, `${id} rests on checks no fault that fails them broke it through`).toEqual([]);
  });

  it("the browser client's flows rest on the checks of the openai client's flows of the same name", () => {
    const node = CLIENTS.find((c) => c.name === 'openai')!;
    for (const f of CLIENTS.find((c) => c.name === 'openai-browser')!.flows) expect(f.rests, f.name).toEqual(node.flows.find((n) => n.name === f.name)!.rests);
  });

  it('a fault whose verdict was derived breaks no flow when run: a sample of them, one in six', () => {
    expect(sampleBroke.size).toBeGreaterThan(10);
    const against = [...sampleBroke].filter(([, flows]) => flows.length).map(([name, flows]) => `${name}: ${flows.map((f) => `${f.id} (${f.message})`).join(', ')}`);
    expect(against, 'derived as untouched, yet a flow broke').toEqual([]);
  });

  it('a fault that rewrites what the flows exchange is run, not derived', () => {
    // One that cuts every stream's end, one that compresses every body, one whose answers depend on the model.
    for (const name of ['stream-no-done', 'legal-gzip', 'chat-model-other']) expect(derived, name).not.toContain(name);
    expect(derived.length).toBeLessThan(SWEPT.length);
  });

  it('the fault no check holds is told apart: only the flows it names break, every check passes (test/faults.test.ts)', () => {
    const unruled = SWEPT.filter((f) => f.breaksFlowsOnly?.length);
    expect(unruled.map((f) => f.name)).toContain('errors-422');
    for (const f of unruled) expect(f.fails, f.name).toEqual([]);
  });
});
