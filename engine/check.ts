// The shape of one check and of what it returns. Nothing here knows the API's rules.

/** `must`: the document states it. `should`: the OpenAI-compatible convention where the
 * document says "not shown". `info`: legal but noteworthy (reported, never failing a run). */
export type Level = 'must' | 'should' | 'info';

/** `skip`: not applicable to this target by design (the check says why).
 * `not-tested`: the check applies but a prerequisite is missing (one key only, no catalog,
 * rate limited); never counted as a pass.
 * `not-served`: the server said it could not serve the request the rule reads (429, 503, an error
 * event mid-stream): no breach of the rule, and no verdict on it either.
 * `flaky`: broken, then held when the same requests were sent again: reported, never failing a
 * run by itself (only with --strict). */
export type Outcome = 'pass' | 'fail' | 'flaky' | 'not-served' | 'not-tested' | 'skip';

/** Every outcome, the worst first: the order a check's paths are combined in and reports count in. */
export const OUTCOMES: readonly Outcome[] = ['fail', 'flaky', 'not-tested', 'not-served', 'pass', 'skip'];

/** One HTTP exchange as shown to a reader: every API key already redacted. */
export interface Evidence {
  label?: string;
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  status?: number;
  headers?: Record<string, string>;
  /** The start of the body (or stream), cut to a readable length. */
  excerpt?: string;
  /** Transport outcome when there was no complete answer: timeout, reset, cap reached. */
  error?: string;
  durationMs?: number;
  /** A curl command that replays the request exactly (keys as $CONFORMANCE_API_KEY...). */
  reproduce?: string;
}

/** Why a rule went not-tested where the answers, not the run's choices nor a failed owner, kept it
 * from judging: `busy`, a request it needed was turned away (429 beyond the retries, 503);
 * `unanswered`, a request it needed got no answer (a dropped connection) or a server error;
 * `flaky-owner`, the owner of a part it reads saw the part broken once and sound when asked again;
 * `cut`, the kit cut an answer it needed at a limit of its own (--idle-timeout, --timeout,
 * --max-body), which is never the server's failure, and no more a judgement. Set where the verdict
 * is made (the runner sets `flaky-owner` once the owners are judged); a not-tested verdict without
 * it is the run's own doing (one key, the models chosen, a catalog absent where it was looked for by
 * default) or a failure's, which fails the run by itself. */
export type Unjudged = 'busy' | 'unanswered' | 'flaky-owner' | 'cut';

export interface Verdict {
  outcome: Outcome;
  /** For not-tested: the server kept the rule from being judged (see Unjudged). */
  unjudged?: Unjudged;
  /** Why: for a fail, the rule broken and what was seen; for not-tested, what is missing. */
  message?: string;
  /** Legal but noteworthy observations (extra fields, SSE comments); shown at level info. */
  notes?: string[];
  /** For not-tested: the check whose failure kept this one from judging its rule (the owner of a
   * broken part of the answer it reads), so a report shows one defect once, under its owner. The
   * runner holds the owner to it: an owner that did not fail on that path fails with this check's
   * evidence, whichever request it was seen on. */
  blockedBy?: string;
  /** With blockedBy: what of the owner's rule was seen broken (`finish_reason: absent`), the message
   * the owner fails with when its own requests did not show it. */
  breach?: string;
}

export interface CheckMeta {
  /** Stable, dotted: `<suite>.<rule>`. Never renamed once published. */
  id: string;
  suite: string;
  title: string;
  /** Section of chat-api.md (or catalog-2.4.md, prefixed `catalog `) that the check enforces. */
  section: string;
  level: Level;
  /** For `should`: the convention the document leaves open, one line. */
  convention?: string;
  /** The parts of an answer its rule reads (`finish_reason`, `usage`): it judges the rule whenever
   * they are sound, and is not-tested, blocked by their owner, when one is not. */
  reads?: readonly string[];
  /** Why the check's request proves its rule, in a sentence or two: the request it sends, and what a
   * server that ignores, half-honours or breaks the rule would answer to it, which differs from what
   * a server that keeps the rule answers. A request that a rule-breaking server answers the same way
   * proves nothing; the mock fault that shows the difference is named ("shown by fault X"). */
  audit?: string;
}

/** One value of one path axis: `{ value: true, label: 'stream' }`, `{ value: 'm1', label: 'm1' }`. */
export interface AxisPoint {
  value: PathValue;
  label: string;
}

export type PathValue = string | number | boolean;

/** A point of a check's paths: one value per axis, by axis name. */
export type Path = Readonly<Record<string, PathValue>>;

/** The values an axis takes in this run, or why it takes none (the check is then not-tested). */
export interface AxisValues {
  points: AxisPoint[];
  problem?: string;
  /** The check whose rule the problem breaks, when it is one (the catalog unreadable: catalog.available). */
  blockedBy?: string;
  /** Said once per check, whatever its paths ("tried 3 of 40 listed models"). */
  note?: string;
}

/** Fixed values, or values found in the run (the models a key lists); a later axis may depend on
 * the values of the axes declared before it (the parameters a model declares). */
export type Axis<Ctx> = readonly AxisPoint[] | ((ctx: Ctx, path: Path) => Promise<AxisValues>);

export interface Check<Ctx = unknown, P = Path> extends CheckMeta {
  /** The paths the rule applies to, axis by axis; the runner expands their product and runs the
   * rule once per path. Absent: one path, the empty one. */
  paths?: Readonly<Record<string, Axis<Ctx>>>;
  /** Runs once every other check has finished, to judge what the whole run received. */
  last?: boolean;
  /** Judged once: a failure is not run again to tell flaky from stable (a fuzz session, which sends
   * its failing case again itself). */
  once?: boolean;
  /** How long one path may take, for a check that sends many requests in turn (a fuzz session);
   * by default a few request deadlines. */
  timeLimitMs?(limits: { deadlineMs: number }): number;
  run(ctx: Ctx, path: P): Promise<Verdict>;
}

/** The verdict of one check on one path. */
export interface PathResult {
  path: Path;
  /** `stream, mock-reason-1`: the points' labels, in the order the axes are declared. */
  label: string;
  outcome: Outcome;
  message?: string;
  notes?: string[];
  blockedBy?: string;
  /** Not tested: the server's doing, not the run's options' (see Unjudged). */
  unjudged?: Unjudged;
  evidence: Evidence[];
  durationMs: number;
}

export interface CheckResult extends CheckMeta {
  /** The sections of `section`, one per item (`2.1, 2.2` gives `2.1` and `2.2`). */
  sections: string[];
  /** The worst of the paths' outcomes (fail, then not-tested, then pass, then skip). */
  outcome: Outcome;
  /** The messages of the paths that gave the outcome, each after its path's label. */
  message?: string;
  notes?: string[];
  /** Not-tested: the checks whose failures kept its paths from being judged, one each. */
  blockedBy?: string[];
  /** Not-tested: the server's doing on some path that gave the outcome (see Unjudged). */
  unjudged?: Unjudged;
  /** The evidence of the paths that gave the outcome. */
  evidence: Evidence[];
  durationMs: number;
  /** The axes the check declares, by name. */
  axes?: string[];
  /** One verdict per path, for a check that declares paths. */
  paths?: PathResult[];
  /** A failure the run's baseline (--expected-failures) lists: reported, not failing the run. */
  expected?: { reason: string };
}

/** A pass with nothing to note: one object (a load passes thousands of answers a second). */
const PASSED: Verdict = Object.freeze({ outcome: 'pass' });
export const pass = (notes?: string[]): Verdict => (notes?.length ? { outcome: 'pass', notes } : PASSED);
export const fail = (message: string, notes?: string[]): Verdict => ({ outcome: 'fail', message, notes });
export const notTested = (message: string, blockedBy?: string, breach?: string): Verdict => ({ outcome: 'not-tested', message, ...(blockedBy ? { blockedBy, ...(breach ? { breach } : {}) } : {}) });
/** Not tested because the server turned away, or did not answer, a request the rule needed. */
export const unjudgedBy = (unjudged: Exclude<Unjudged, 'flaky-owner'>, message: string): Verdict => ({ outcome: 'not-tested', message, unjudged });
export const skip = (message: string): Verdict => ({ outcome: 'skip', message });
export const unserved = (message: string): Verdict => ({ outcome: 'not-served', message });

/** Pass when nothing is wrong; otherwise fail, saying everything that is. */
export const failIfAny = (wrong: string[]): Verdict => (wrong.length ? fail(wrong.join('; ')) : pass());

/** Combines the verdicts of one rule applied to several subjects (models, roles, cases):
 * any fail fails; otherwise any not-tested leaves it not-tested; otherwise pass. */
export function combine(verdicts: Verdict[]): Verdict {
  if (!verdicts.length) return notTested('nothing to test');
  const notes = verdicts.flatMap((v) => v.notes ?? []);
  const outcome = worst(verdicts.map((v) => v.outcome));
  if (outcome === 'pass') return pass(notes);
  if (outcome === 'skip') return verdicts[0];
  const deciding = verdicts.filter((v) => v.outcome === outcome);
  const blocked = deciding.find((v) => v.blockedBy);
  return {
    outcome,
    message: deciding.map((v) => v.message).join('; '),
    notes: notes.length ? notes : undefined,
    ...(outcome === 'not-tested' && blocked ? { blockedBy: blocked.blockedBy, ...(blocked.breach ? { breach: blocked.breach } : {}) } : {}),
  };
}

/** The outcome that decides a check of several paths: any fail fails it, then any flaky, then any
 * not-tested, then any not served. */
export const worst = (outcomes: Outcome[]): Outcome => OUTCOMES.find((o) => outcomes.includes(o)) ?? 'skip';

/** A live view of a run, for a progress line. */
export interface Progress {
  /** Paths run so far, of all. */
  done(): number;
  total(): number;
  /** The request on the wire the longest. */
  slowest(): { label: string; ms: number } | undefined;
}

/** Latency samples of a load step, as a report carries them (engine/histogram.ts fills them):
 * `buckets[i]` counts the samples v, in ms, with round(ln(1 + v) / ln(base)) = i. */
export interface LatencyHistogram {
  base: number;
  buckets: Record<string, number>;
  count: number;
  max: number;
}
