// The shape of one check and of what it returns. Nothing here knows the API's rules.

/** `must`: the document states it. `should`: the OpenAI-compatible convention where the
 * document says "not shown". `info`: legal but noteworthy (reported, never failing a run). */
export type Level = 'must' | 'should' | 'info';

/** `skip`: not applicable to this target by design (the check says why).
 * `not-tested`: the check applies but a prerequisite is missing (one key only, no catalog,
 * rate limited); never counted as a pass. */
export type Outcome = 'pass' | 'fail' | 'skip' | 'not-tested';

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

export interface Verdict {
  outcome: Outcome;
  /** Why: for a fail, the rule broken and what was seen; for not-tested, what is missing. */
  message?: string;
  /** Legal but noteworthy observations (extra fields, SSE comments); shown at level info. */
  notes?: string[];
  /** For not-tested: the check whose failure kept this one from judging its rule (the owner of a
   * broken part of the answer it reads), so a report shows one defect once, under its owner. */
  blockedBy?: string;
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
export const notTested = (message: string, blockedBy?: string): Verdict => ({ outcome: 'not-tested', message, ...(blockedBy ? { blockedBy } : {}) });
export const skip = (message: string): Verdict => ({ outcome: 'skip', message });

/** Pass when nothing is wrong; otherwise fail, saying everything that is. */
export const failIfAny = (wrong: string[]): Verdict => (wrong.length ? fail(wrong.join('; ')) : pass());

/** Combines the verdicts of one rule applied to several subjects (models, roles, cases):
 * any fail fails; otherwise any not-tested leaves it not-tested; otherwise pass. */
export function combine(verdicts: Verdict[]): Verdict {
  const notes = verdicts.flatMap((v) => v.notes ?? []);
  const fails = verdicts.filter((v) => v.outcome === 'fail');
  if (fails.length) return fail(fails.map((v) => v.message).join('; '), notes);
  const open = verdicts.filter((v) => v.outcome === 'not-tested');
  const blockedBy = open.find((v) => v.blockedBy)?.blockedBy;
  if (open.length) return { outcome: 'not-tested', message: open.map((v) => v.message).join('; '), notes, ...(blockedBy ? { blockedBy } : {}) };
  if (verdicts.length && verdicts.every((v) => v.outcome === 'skip')) return verdicts[0];
  if (!verdicts.length) return notTested('nothing to test');
  return pass(notes);
}

const SEVERITY: Record<Outcome, number> = { fail: 3, 'not-tested': 2, pass: 1, skip: 0 };

/** The outcome that decides a check of several paths: any fail fails it, then any not-tested. */
export const worst = (outcomes: Outcome[]): Outcome => outcomes.reduce<Outcome>((w, o) => (SEVERITY[o] > SEVERITY[w] ? o : w), 'skip');

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
