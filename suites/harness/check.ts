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
}

export interface Verdict {
  outcome: Outcome;
  /** Why: for a fail, the rule broken and what was seen; for not-tested, what is missing. */
  message?: string;
  /** Legal but noteworthy observations (extra fields, SSE comments); shown at level info. */
  notes?: string[];
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
}

export interface Check<Ctx = unknown> extends CheckMeta {
  run(ctx: Ctx): Promise<Verdict>;
}

export interface CheckResult extends CheckMeta {
  outcome: Outcome;
  message?: string;
  notes?: string[];
  evidence: Evidence[];
  durationMs: number;
}

export const pass = (notes?: string[]): Verdict => ({ outcome: 'pass', notes: notes?.length ? notes : undefined });
export const fail = (message: string, notes?: string[]): Verdict => ({ outcome: 'fail', message, notes });
export const notTested = (message: string): Verdict => ({ outcome: 'not-tested', message });
export const skip = (message: string): Verdict => ({ outcome: 'skip', message });

/** Combines the verdicts of one rule applied to several subjects (models, roles, cases):
 * any fail fails; otherwise any not-tested leaves it not-tested; otherwise pass. */
export function combine(verdicts: Verdict[]): Verdict {
  const notes = verdicts.flatMap((v) => v.notes ?? []);
  const fails = verdicts.filter((v) => v.outcome === 'fail');
  if (fails.length) return fail(fails.map((v) => v.message).join('; '), notes);
  const open = verdicts.filter((v) => v.outcome === 'not-tested');
  if (open.length) return { outcome: 'not-tested', message: open.map((v) => v.message).join('; '), notes };
  if (verdicts.length && verdicts.every((v) => v.outcome === 'skip')) return verdicts[0];
  if (!verdicts.length) return notTested('nothing to test');
  return pass(notes);
}
