// A check's rule as it is held on each answer of a load: the same function the check's run calls,
// on any answer of the kinds of request it is about, with what the load knows beside it (the model,
// its catalog entry, what a suite worked out alone before the sweep). A check declares it as
// `onEach`; inSuite keeps it apart, by the check's id (ON_EACH), so the check itself stays data.
import type { Verdict } from '../engine/check.js';
import type { CheckContext } from '../engine/runner.js';
import { catalog, ON_EACH, type ChatBody } from './api.js';
import { BASE, BASIC_OWNERS, blockedOn, needed, ownPart, sound, wayOf, type Answer, type Part, type Way } from './answer.js';

/** The kinds of request a load sends, each built by the suite whose rules it proves: the basic
 * question, the essay cut by the smallest max_tokens, a stop sequence, a forced tool call, a
 * json_schema, the reproducible (seeded) request, and the essay of `--max-tokens` (a workload of its own). */
export type Kind = 'basic' | 'capped' | 'stop' | 'tools' | 'json-schema' | 'seeded' | 'long';

export interface Known {
  /** The model the answers are of. */
  model: string;
  /** Its catalog entry, if the catalog describes it. */
  entry?: Record<string, unknown>;
  /** What a suite worked out alone before the sweep, by kind (the stop sequence's unstopped answer). */
  refs: Partial<Record<Kind, unknown>>;
}

export interface OnEach {
  /** The kinds of request whose answers the rule is about; absent: every kind. */
  kinds?: readonly Kind[];
  /** The way it is about; absent: both. */
  way?: Way;
  /** Of those, the requests it is about, by what was sent (the usage rules: streams that asked include_usage). */
  asked?(body: ChatBody): boolean;
  /** Its verdict on one answer (a 2xx; whether it arrived whole is the rules' to say). */
  judge(a: Answer, known: Known): Verdict;
}

export const onEachOf = (id: string): OnEach | undefined => ON_EACH.get(id) as OnEach | undefined;

/** What a check's run knows of its model, as a load knows it. */
export async function knownOf(ctx: CheckContext, model: string): Promise<Known> {
  return { model, entry: (await catalog(ctx)).entries.get(model), refs: {} };
}

/** A rule that reads `reads`, on each answer: judged where they are sound, not-tested (blocked by
 * their owner) where one is broken. */
export function eachReading(reads: readonly Part[], rule: (a: Answer, known: Known) => Verdict, about: Omit<OnEach, 'judge'> = {}): OnEach {
  const json = needed('json', reads);
  const stream = needed('stream', reads);
  return { ...about, judge: (a, known) => (sound(a) ? rule(a, known) : (blockedOn(a, a.stream ? stream : json, BASIC_OWNERS) ?? rule(a, known))) };
}

/** The owner of a part, on each answer: it fails where the part is broken, once the parts every
 * answer needs are sound. */
export const eachOwning = (part: Part, way?: Way): OnEach => ({
  ...(way ? { way } : {}),
  judge: (a) => ownPart(a, part, BASE[wayOf(a.stream)], BASIC_OWNERS),
});
