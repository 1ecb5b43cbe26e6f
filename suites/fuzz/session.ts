// A fuzz session: requests generated from a seed (breadth first, then at random), sent through the
// run's own exchanges (its concurrency, timeouts, body cap, redaction), each answer judged by every
// property; a property's first broken case is then shrunk with fast-check's shrinker to the smallest
// request that still breaks it. The same seed gives the same requests, and against the same server
// the same smallest request.
import fc from 'fast-check';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { chat, GENERATED_LABEL, sayOk } from '../api.js';
import { ask, locateRefusal } from '../ask.js';
import { OWNERS, PARTS, readAnswer, wayOf, type Answer, type Part } from '../answer.js';
import type { Exchange } from '../../engine/exchanges.js';
import type { CheckContext } from '../../engine/runner.js';
import { wire, type FuzzCase } from './case.js';
import { casesFor, type Cases } from './cases.js';
import { JUDGES, PROPERTY_IDS, SERVER_FAILURES, UNREAD, type PropertyId } from './properties.js';
import { spaceOf, type ModelSpace, type Space } from './space.js';

export interface FuzzSettings {
  seed: number;
  /** Requests generated (the breadth list first). */
  runs: number;
  /** Most requests of the session: the generated ones, shrinking and the re-sends together. Where
   * it leaves less than shrinkReserve on top of `runs`, fewer requests are generated. */
  maxRequests: number;
  /** Most requests one property's shrinking may send. */
  shrinkRequests: number;
  /** Whether a request that timed out is shrunk (each step waits a request timeout); on by default. */
  shrinkTimeouts?: boolean;
  /** Stops the session (Ctrl-C): nothing more is sent, what was answered is judged. */
  stop?: AbortSignal;
  /** When the whole run ends (Date.now() time): no request is sent that could end after it (none
   * within one request timeout of it). */
  deadlineAt?: number;
}

/** One generated request: where it stands in the session and what generated it, so it can shrink. */
export interface Tried {
  index: number;
  arb: fc.Arbitrary<FuzzCase>;
  value: fc.Value<FuzzCase>;
}

export interface Finding {
  /** The first broken case, as generated. */
  first: FuzzCase;
  index: number;
  /** How many answers broke the property. */
  count: number;
  /** The smallest case that still breaks it, and why it does. */
  shrunk: FuzzCase;
  why: string;
  steps: number;
  /** Requests tried while shrinking. */
  attempts: number;
}

export interface PropertyOutcome {
  /** Answers the property judged. */
  judged: number;
  finding?: Finding;
  /** What a property left to other checks (served-shape: the parts broken on the plain request's answer too). */
  unjudged?: string;
  /** Answers to its own requests it could not read, by the property that broke on each (a 5xx is
   * no-5xx's, a hang within-timeout's): what really kept it from judging, and nothing else. */
  unreadFor?: Partial<Record<PropertyId, number>>;
  /** Answers to its own valid requests refused for a field the model owes taking, found by asking
   * again without it (suites/ask.ts), by the check that owns the field. */
  refusedFor?: Record<string, number>;
}

export interface SessionOutcome {
  /** Why no model is known (every request went to a model nobody lists). */
  noModel?: string;
  /** Why a refusal proves nothing here: no request of the session, nor the plain one, was served. */
  noneServed?: string;
  /** Requests generated and answered. */
  answered: number;
  generated: number;
  /** Distinct requests the session sent. */
  sent: number;
  /** Why the session ended before its budget was spent. */
  cut?: string;
  properties: Record<PropertyId, PropertyOutcome>;
  space: Space;
}

/** The request of a case, as the run sends it; `repeat` sends it once more. */
// Only a case a server owes an answer counts in what the run asks to generate: one it owes a refusal
// (or may refuse) asks nothing of a conforming server, whatever max_tokens it carries.
export const sendCase = (ctx: CheckContext, c: FuzzCase, label: string, repeat?: number): Promise<Exchange> => chat(ctx, wire(c), { label, repeat, refused: c.expect !== 'served' });

/** The requests a session keeps for shrinking when told to generate all it may send: one property's
 * shrinking and its re-send, at most half of them; none where it shrinks nothing (a benchmark). */
const shrinkReserve = ({ maxRequests, shrinkRequests }: Pick<FuzzSettings, 'maxRequests' | 'shrinkRequests'>) => (shrinkRequests > 0 ? Math.min(shrinkRequests + 1, Math.floor(maxRequests / 2)) : 0);

/** Requests generated ahead of their answers, at most: the run's concurrency keeps fewer. */
const WINDOW = 64;

/** Each case its own generator, seeded by the session's seed and its place: a longer session
 * begins with the same requests as a shorter one. */
const rngFor = (seed: number, index: number) => new fc.Random(xoroshiro128plus((seed ^ Math.imul(index + 1, 0x9e3779b1)) | 0));
/** As fast-check's own runner: small and edge values more often in early runs. */
const biasFor = (index: number) => 2 + Math.floor(Math.log10(index + 1));

/** The session's case at `index`: the breadth list's, then a random one. */
export function caseAt({ breadth, random }: Cases, seed: number, index: number): Tried {
  const arb = index < breadth.length ? breadth[index] : random;
  return { index, arb, value: arb.generate(rngFor(seed, index), biasFor(index)) };
}

export class FuzzSession {
  private outcome?: Promise<SessionOutcome>;
  /** The session's valid requests refused for a field the model owes taking, by property and owner. */
  private readonly refusals: Partial<Record<PropertyId, Record<string, number>>> = {};
  private readonly sentKeys = new Set<string>();
  private readonly shape: ShapeControl;
  /** When the last request may be sent: a request's timeout before the run's deadline, or half-way
   * to it when the timeout is longer than what is left. */
  private readonly cutoff?: number;

  constructor(
    private readonly sender: CheckContext,
    readonly settings: FuzzSettings,
  ) {
    this.shape = new ShapeControl(sender);
    const at = settings.deadlineAt;
    if (at !== undefined) this.cutoff = at - Math.min(sender.limits.deadlineMs, Math.max(0, at - Date.now()) / 2);
  }

  /** Run once, however many properties await it. */
  result(): Promise<SessionOutcome> {
    return (this.outcome ??= this.run());
  }

  /** Why nothing more may be sent: stopped, or the deadline is too near for one more request. */
  stopped(): string | undefined {
    if (this.settings.stop?.aborted) return typeof this.settings.stop.reason === 'string' ? this.settings.stop.reason : 'the session was stopped';
    return this.cutoff !== undefined && Date.now() >= this.cutoff ? "the run's deadline (--deadline) was near: no request is sent that could outlast it" : undefined;
  }

  /** The case's answer; `label` names it in evidence. */
  private send(c: FuzzCase, label: string): Promise<Exchange> {
    this.sentKeys.add(wire(c));
    return sendCase(this.sender, c, label);
  }

  private async run(): Promise<SessionOutcome> {
    const properties = Object.fromEntries(PROPERTY_IDS.map((p) => [p, { judged: 0 } as PropertyOutcome])) as Record<PropertyId, PropertyOutcome>;
    const space = await spaceOf(this.sender);
    const outcome: SessionOutcome = { answered: 0, generated: 0, sent: 0, properties, space };
    if (space.noModel) outcome.noModel = space.noModel;
    const models = new Map(space.models.map((m) => [m.id, m]));
    const modelOf = (c: FuzzCase): ModelSpace | undefined => (typeof c.body.model === 'string' ? models.get(c.body.model) : undefined);
    const cases = casesFor(space);
    const { seed, runs, maxRequests } = this.settings;
    // Shrinking comes on top of the generated requests: a session told to generate as many requests
    // as it may send keeps a share of them for it, or a failure would be shown as generated.
    const kept = shrinkReserve(this.settings);
    const planned = Math.min(runs, maxRequests - kept);
    if (planned < runs) outcome.cut = `the last ${kept} of its ${maxRequests} requests (--max-requests) are kept to shrink what breaks`;

    // Every case is generated in order (so the same seed gives the same cases whatever the answers'
    // timing), sent, and judged as its answer comes; the run's exchanges bound the concurrency.
    // Only the first broken case of each property is kept: a case holds its shrinking context, which
    // for a session of thousands would be hundreds of megabytes.
    let answered = 0;
    let served = 0;
    const firsts = new Map<PropertyId, { tried: Tried; why: string; count: number }>();
    const pending = new Set<Promise<void>>();
    /** Wakes the loop when a request of a full window is answered. */
    let freed: (() => void) | undefined;
    let failure: unknown;
    for (let index = 0; index < planned; index++) {
      const why = this.stopped();
      if (why) {
        outcome.cut = why;
        break;
      }
      const tried = caseAt(cases, seed, index);
      outcome.generated++;
      const p = this.send(tried.value.value, `${GENERATED_LABEL}${index + 1}: ${tried.value.value.what}`).then(async (ex) => {
        answered++;
        if (ex.status !== undefined && ex.status >= 200 && ex.status < 300 && tried.value.value.expect !== 'refused') served++;
        const unread: PropertyId[] = [];
        const brokeOn = new Set<PropertyId>();
        for (const id of PROPERTY_IDS) {
          const broken = await this.verdict(id, tried.value.value, ex, modelOf);
          if (broken === null) continue;
          if (broken === UNREAD) {
            unread.push(id);
            continue;
          }
          properties[id].judged++;
          if (broken) brokeOn.add(id);
          if (!broken) continue;
          const f = firsts.get(id);
          if (!f) firsts.set(id, { tried, why: broken, count: 1 });
          else {
            f.count++;
            if (index < f.tried.index) Object.assign(f, { tried, why: broken });
          }
        }
        // An answer a property could not read is the failure of the property that broke on it.
        for (const id of unread)
          for (const by of SERVER_FAILURES)
            if (brokeOn.has(by)) {
              const counts = (properties[id].unreadFor ??= {});
              counts[by] = (counts[by] ?? 0) + 1;
            }
      });
      // A judge that throws is the kit's defect: it ends the session (reported by the runner), not the process.
      const settled: Promise<void> = p
        .catch((e: unknown) => void (failure ??= e))
        .finally(() => {
          pending.delete(settled);
          freed?.();
        });
      pending.add(settled);
      // Enough in flight to keep the run's concurrency busy, and no more: a request waiting in the
      // run's queue would be sent after the deadline's cutoff it was generated before (against a
      // stream that never ends, the session sent until the run's deadline stopped it, and every
      // property it had judged was lost).
      if (pending.size >= Math.min(WINDOW, this.sender.concurrency)) await new Promise<void>((resolve) => (freed = resolve));
      freed = undefined;
    }
    await this.settle([...pending]);
    if (failure !== undefined) throw failure;
    if (!outcome.cut && this.settings.stop?.aborted) outcome.cut = this.stopped();
    outcome.answered = answered;
    // No refusal without a control: a server that refuses everything refuses invalid requests too.
    if (!served) {
      const stop = this.stopped();
      outcome.noneServed = stop ? `no request was served before the session ended (${stop})` : await this.noneServed(space);
    }
    properties['served-shape'].unjudged = this.shape.unjudged();
    for (const id of PROPERTY_IDS) if (this.refusals[id]) properties[id].refusedFor = this.refusals[id];

    // Each broken property shrinks its first broken case, within its share of what is left of the
    // budget (one request of which is kept for the re-send that tells stable from flaky).
    const broken = PROPERTY_IDS.filter((id) => firsts.has(id));
    const left = maxRequests - this.sentKeys.size - broken.length;
    const share = broken.length ? Math.max(0, Math.min(this.settings.shrinkRequests, Math.floor(left / broken.length))) : 0;
    await Promise.all(
      broken.map(async (id) => {
        const f = firsts.get(id)!;
        const budget = id === 'within-timeout' && this.settings.shrinkTimeouts === false ? 0 : share;
        const shrunk = await this.shrink(id, f.tried, f.why, budget, modelOf);
        properties[id].finding = { first: f.tried.value.value, index: f.tried.index, count: f.count, ...shrunk };
      }),
    );
    outcome.sent = this.sentKeys.size;
    return outcome;
  }

  /** null: not the property's to judge (nor, its answer unread, anyone's to name); '': it holds;
   * otherwise why it is broken. */
  async judge(id: PropertyId, c: FuzzCase, ex: Exchange, modelOf: (c: FuzzCase) => ModelSpace | undefined): Promise<string | null> {
    const why = await this.verdict(id, c, ex, modelOf);
    return why === UNREAD ? null : why;
  }

  /** As judge, and UNREAD where the request is the property's but its answer none it reads. */
  private async verdict(id: PropertyId, c: FuzzCase, ex: Exchange, modelOf: (c: FuzzCase) => ModelSpace | undefined): Promise<string | null | typeof UNREAD> {
    // A valid request refused for one field, found by asking again without it (ask.ts), is that
    // field's owner's failure (or no one's, where the model need not take it), not this property's,
    // nor one a rule of served answers can read.
    if ((id === 'valid-served' || id === 'served-shape') && c.expect === 'served') {
      const owner = (await locateRefusal(this.sender, ex))?.fields.find((f) => f.owed)?.owner;
      if (owner) {
        const counts = (this.refusals[id] ??= {});
        counts[owner] = (counts[owner] ?? 0) + 1;
        return null;
      }
    }
    let why = JUDGES[id](c, ex, modelOf(c));
    // A part of the wrong shape counts against this rule only where the plain request's answer on
    // the same path has it right: otherwise every answer is broken there, which the chat and stream
    // checks own. The answer is judged on its other parts.
    if (id === 'served-shape' && typeof why === 'string') {
      const plain = await this.shape.broken(c);
      if (plain.length) why = JUDGES[id](c, ex, modelOf(c), plain);
    }
    return why === null || why === UNREAD ? why : (why ?? '');
  }

  /** Why no request was served, unless the plain one is: undefined when it is. */
  private async noneServed(space: Space): Promise<string | undefined> {
    if (space.noModel) return `no request could be served, for no model is known: ${space.noModel}`;
    const model = space.models[0].id;
    // A control asks only to be served: a defect of its shape is its owner's, not a reason to doubt refusals.
    const problem = readAnswer(await ask(this.sender, { model }, sayOk(model), 'plain chat with the primary key'), false).broken.served;
    return problem === undefined ? undefined : `no generated request was served, nor the plain one to ${model} (${problem})`;
  }

  /** Waits for what is in flight, or only until the session is stopped: an answer that never comes
   * must not hold back the report of what was found. */
  private async settle(pending: Promise<void>[]): Promise<void> {
    const stop = this.settings.stop;
    if (!stop) return void (await Promise.all(pending));
    if (stop.aborted) return;
    await Promise.race([Promise.all(pending), new Promise<void>((resolve) => stop.addEventListener('abort', () => resolve(), { once: true }))]);
  }

  /** fast-check's shrinking, one request per candidate: the first candidate that still breaks the
   * property becomes the case, until none does or the budget is spent. */
  private async shrink(id: PropertyId, start: Tried, why: string, budget: number, modelOf: (c: FuzzCase) => ModelSpace | undefined): Promise<Pick<Finding, 'shrunk' | 'why' | 'steps' | 'attempts'>> {
    let current = start.value;
    let reason = why;
    let steps = 0;
    let attempts = 0;
    descend: while (attempts < budget && !this.stopped()) {
      for (const candidate of start.arb.shrink(current.value, current.context)) {
        if (attempts >= budget || this.stopped()) break descend;
        attempts++;
        const ex = await this.send(candidate.value, `${GENERATED_LABEL}${start.index + 1}, shrunk for fuzz.${id} (try ${attempts}): ${candidate.value.what}`);
        const broken = await this.judge(id, candidate.value, ex, modelOf);
        if (broken) {
          current = candidate;
          reason = broken;
          steps++;
          continue descend;
        }
      }
      break;
    }
    return { shrunk: current.value, why: reason, steps, attempts };
  }
}

/** The parts broken on the plain request's answer on a path (model, streamed or not), asked once per
 * path: a defect of every answer, which its owner reports, so served-shape judges the other parts. */
class ShapeControl {
  private readonly paths = new Map<string, Promise<Answer>>();
  private readonly skipped = new Set<string>();

  constructor(private readonly ctx: CheckContext) {}

  async broken(c: FuzzCase): Promise<Part[]> {
    const model = c.body.model as string;
    const stream = c.body.stream === true;
    const key = `${model}\u0000${stream}`;
    let p = this.paths.get(key);
    if (!p) {
      p = ask(this.ctx, { model, stream }, sayOk(model), 'plain chat with the primary key').then((ex) => readAnswer(ex, stream));
      this.paths.set(key, p);
    }
    const plain = await p;
    const parts = PARTS.filter((part) => plain.broken[part] !== undefined);
    for (const part of parts)
      this.skipped.add(
        plain.cut?.parts.includes(part)
          ? `${part} (${model}${stream ? ', streamed' : ''}: ${plain.cut.why})`
          : `${part} (${model}${stream ? ', streamed' : ''}: ${plain.broken[part]}): see ${OWNERS[part][wayOf(stream)] ?? 'chat.role.user'}`,
      );
    return parts;
  }

  unjudged(): string | undefined {
    return this.skipped.size ? `judged on the parts that the plain request's answer has sound; broken on every answer, and reported by their owners: ${[...this.skipped].join('; ')}` : undefined;
  }
}
