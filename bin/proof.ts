// The proof that every check can fail, as figures: which faults of the mock's catalogue make each
// check fail, and how many checks are so proven. `conformance list` and the generated reference
// (docs/reference/) say the same figure from here; test/faults.test.ts holds the faults to it.
import { CHECKS } from '../suites/index.js';
import { OWNERS, PARTS } from '../suites/answer.js';
import { FAULTS, type Fault } from '../mock/core/faults/index.js';

/** What a fault is for: proving checks, a legal variation every check passes, a hostile transport
 * (proves the runner), a failure a frontend must handle, or a deviation only the clients' flows show
 * (no check fails: a rule the kit lacks). */
export type FaultKind = 'proves' | 'legal' | 'hostile' | 'frontend' | 'unruled';

export const kindOf = (f: Fault): FaultKind => (f.hostile ? 'hostile' : f.frontend ? 'frontend' : f.fails.length ? 'proves' : f.breaksFlowsOnly?.length ? 'unruled' : 'legal');

/** The faults that make a check fail (declared in the catalogue, verified by test/faults.test.ts). */
export const provenBy = (id: string): string[] => FAULTS.filter((f) => f.fails.includes(id)).map((f) => f.name);

/** The parts of an answer a check owns, as `way:part`: it is the one check that fails when they break,
 * and so the one a fault that breaks them (`breaks`) fails. */
export const ownsOf = (id: string): string[] => PARTS.flatMap((part) => (['json', 'stream'] as const).filter((way) => OWNERS[part][way] === id).map((way) => `${way}:${part}`));

export interface ProofFigure {
  checks: number;
  /** Faults that make some check fail. */
  proving: number;
  /** Checks some fault makes fail. */
  proven: number;
  /** The catalogue by kind. */
  kinds: Record<FaultKind, number>;
}

export function proofFigure(): ProofFigure {
  const kinds: Record<FaultKind, number> = { proves: 0, legal: 0, hostile: 0, frontend: 0, unruled: 0 };
  for (const f of FAULTS) kinds[kindOf(f)]++;
  return { checks: CHECKS.length, proving: kinds.proves, proven: CHECKS.filter((c) => provenBy(c.id).length).length, kinds };
}

/** The figure in a sentence: `100 checks, 198 faults that prove them, 100 of 100 checks proven to fail.` */
export function proofSentence(f: ProofFigure = proofFigure()): string {
  return `${f.checks} checks, ${f.proving} faults that prove them, ${f.proven} of ${f.checks} checks proven to fail.`;
}

/** What else the catalogue holds, in a sentence. */
export function catalogueSentence(f: ProofFigure = proofFigure()): string {
  const total = Object.values(f.kinds).reduce((a, b) => a + b, 0);
  const unruled = f.kinds.unruled ? `, ${f.kinds.unruled} that break client flows while every check passes (a rule the kit lacks)` : '';
  return `The catalogue holds ${total} faults: those ${f.kinds.proves}, ${f.kinds.legal} legal variations that every check must pass, ${f.kinds.hostile} hostile transports${unruled} and ${f.kinds.frontend} failures for frontends.`;
}
