// What explains a failed flow, from its own answers and the checks of the same run: the rules its own
// answers broke (judge.ts, in the clients' process); where its answers cannot show a rule (a refusal,
// a rule that needs the run's own requests: a stop sequence's cut, the cap), the checks it rests on
// that failed on its own model, and the failed owners that left one of them not tested there. Then,
// in that order, a requirement outside the document, a precondition it never reached, and only then
// nothing: no rule of the kit explains it, the finding a report puts first. And the other way: each
// failed check with the flows it broke.
import type { CheckResult } from '../engine/check.js';
import type { ClientsReport, FlowCause, FlowResult } from '../report/clients.js';
import { checkLevel } from './levels.js';

const broken = (outcome: string | undefined) => outcome === 'fail' || outcome === 'flaky';

/** Whether a check failed on one of `models`: on a path of that model where its paths name one, on
 * any where they name none. */
function failedOn(r: CheckResult | undefined, models: ReadonlySet<string>): boolean {
  if (!r || !broken(r.outcome)) return false;
  const paths = r.paths ?? [];
  const byModel = paths.filter((p) => typeof p.path.model === 'string');
  if (!byModel.length) return true;
  return byModel.some((p) => models.has(String(p.path.model)) && broken(p.outcome));
}

export function withImpact(flows: readonly FlowResult[], results: readonly CheckResult[]): Pick<ClientsReport, 'results' | 'impact'> {
  const byId = new Map(results.map((r) => [r.id, r]));
  const judged = flows.map((f): FlowResult => {
    if (!broken(f.outcome)) return f;
    const failing = f.paths.filter((p) => broken(p.outcome));
    const models = new Set(failing.map((p) => p.label));
    const own = failing.flatMap((p) => p.broke ?? []);
    const onPath = f.restsOn.filter((id) => failedOn(byId.get(id), models));
    const blockers = f.restsOn.flatMap((id) => {
      const r = byId.get(id);
      return r?.outcome === 'not-tested' ? (r.blockedBy ?? []).filter((owner) => failedOn(byId.get(owner), models)) : [];
    });
    const brokenBy = [...new Set([...own, ...onPath, ...blockers])];
    const unjudged = f.restsOn.filter((id) => !byId.has(id));
    const outside = failing.find((p) => p.outside)?.outside;
    const precondition = failing.find((p) => p.precondition)?.precondition;
    const cause: FlowCause = brokenBy.length ? { kind: 'rule' } : outside ? { kind: 'outside', why: outside } : precondition ? { kind: 'precondition', why: precondition } : { kind: 'unexplained' };
    // A failure weighs what broke it: a must where a failed must explains it; with none, what the
    // clients expect beyond the document is a convention, a should.
    const failureLevel = brokenBy.some((id) => (byId.get(id)?.level ?? checkLevel(id)) === 'must') ? 'must' : 'should';
    return {
      ...f,
      failureLevel,
      cause,
      ...(brokenBy.length ? { brokenBy } : cause.kind === 'unexplained' && unjudged.length ? { unjudged } : cause.kind === 'unexplained' ? { unexplained: true } : {}),
    };
  });
  const impact = results
    .filter((r) => broken(r.outcome))
    .map((r) => ({ check: r.id, flows: judged.filter((f) => f.brokenBy?.includes(r.id)).map((f) => f.id) }))
    .filter((i) => i.flows.length);
  return { results: judged, impact };
}
