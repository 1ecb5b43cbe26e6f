// What explains a failed flow, from the checks of the same run: the checks it rests on that failed,
// and the failed owners that left one of them not tested (blocked by). A flow that failed with none
// of them failing is the finding a report puts first: no rule of the kit explains it. And the other
// way: each failed check with the flows it broke.
import type { CheckResult } from '../engine/check.js';
import type { ClientsReport, FlowResult } from '../report/clients.js';

const broken = (r: CheckResult | undefined) => r?.outcome === 'fail' || r?.outcome === 'flaky';

export function withImpact(flows: readonly FlowResult[], results: readonly CheckResult[]): Pick<ClientsReport, 'results' | 'impact'> {
  const byId = new Map(results.map((r) => [r.id, r]));
  const judged = flows.map((f): FlowResult => {
    if (f.outcome !== 'fail' && f.outcome !== 'flaky') return f;
    const failed = f.restsOn.filter((id) => broken(byId.get(id)));
    const blockers = f.restsOn.flatMap((id) => {
      const r = byId.get(id);
      return r?.outcome === 'not-tested' ? (r.blockedBy ?? []).filter((owner) => broken(byId.get(owner))) : [];
    });
    const brokenBy = [...new Set([...failed, ...blockers])];
    const unjudged = f.restsOn.filter((id) => !byId.has(id));
    // A failure weighs what broke it: a must where a failed must explains it; with none, what the
    // clients expect beyond the document is a convention, a should.
    const failureLevel = brokenBy.some((id) => byId.get(id)?.level === 'must') ? 'must' : 'should';
    return { ...f, failureLevel, ...(brokenBy.length ? { brokenBy } : unjudged.length ? { unjudged } : { unexplained: true }) };
  });
  const impact = results
    .filter(broken)
    .map((r) => ({ check: r.id, flows: judged.filter((f) => f.brokenBy?.includes(r.id)).map((f) => f.id) }))
    .filter((i) => i.flows.length);
  return { results: judged, impact };
}
