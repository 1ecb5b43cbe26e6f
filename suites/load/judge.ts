// Every answer of a load, judged as it ends: what became of the request (served, refused, failed,
// timed out), the rules of the run held on it (each check's onEach), the rules of the load suite
// (ids, usage, seed, overload, starvation), and its times. A step keeps counts, histograms of its
// times, the first breach of each rule (its message bounded and its evidence made at once) and a
// window of recent ids (a long one as its digest), never the answers: its memory does not follow
// what the server sends, nor how many answers it sends.
import { createHash } from 'node:crypto';
import { pass, type Evidence, type Unjudged, type Verdict } from '../../engine/check.js';
import { BOUNDS, bounded } from '../../engine/bounded.js';
import { evidenceOf, forgetReads, readsOwn, retryAfterMs, type Exchange } from '../../engine/exchanges.js';
import type { Redactor } from '../../engine/redact.js';
import type { TlsFlags } from '../../engine/tls.js';
import type { TimedAnswer } from '../../engine/load.js';
import { Histogram } from '../../engine/histogram.js';
import { describe, errorText, is2xx, type StreamRead } from '../api.js';
import { cutVerdict, readAnswer, type Answer } from '../answer.js';
import { refusesContent } from '../ask.js';
import type { Known, OnEach } from '../each.js';
import type { Item } from './workload.js';

/** One rule's count at one step, with the first answer that broke it and why one could not be judged. */
export interface Tally {
  held: number;
  broken: number;
  unjudged: number;
  /** Of the unjudged, those the server could not serve (a 429 or 503 past the resends): no rule is broken by them. */
  unserved: number;
  first?: { message: string; evidence: Evidence };
  /** Why an answer was not judged (the first reason that is not a refusal to serve, else the first),
   * the owner that blocked it, and whose doing it was where the answers' (the kit's cut). */
  open?: { message: string; blockedBy?: string; unjudged?: Unjudged };
}

/** How long ids are remembered: answers this far apart in a step are not concurrent. */
const IDS_KEPT = 2_000;
/** An id longer than this is remembered by its digest. */
const ID_KEPT_WHOLE = 64;

/** How a step keeps what it quotes of an answer: a text redacted and bounded, an exchange as its
 * evidence (engine/bounded.ts), made when the breach is seen, so the answer goes with its judging. */
export interface Keeper {
  text(s: string): string;
  evidence(ex: Exchange): Evidence;
}

/** The keeper of a run redacted with `redactor`; `tls`, the run's choices, for the replaying commands. */
export function keeperFor(redactor: Redactor, tls?: TlsFlags): Keeper {
  return { text: (text) => bounded(text, BOUNDS.message, redactor), evidence: (ex) => evidenceOf(ex, redactor, tls) };
}

export class Step {
  readonly rules = new Map<string, Tally>();
  readonly ttfb = new Histogram();
  readonly ttft = new Histogram();
  readonly itl = new Histogram();
  readonly e2e = new Histogram();
  requests = 0;
  served = 0;
  refused = 0;
  failed = 0;
  timedOut = 0;
  outputTokens = 0;
  slowest?: { label: string; ms: number };
  /** The ids of the answers last seen (or their digests), with the request that carried each and
   * their place in `order`, the last IDS_KEPT in the order they came: a ring, where a Map's oldest
   * key, deleted once per answer, left holes its next first key was searched past (the judging of
   * a JSON answer grew by 4,000 instructions every 500 answers, counted under callgrind). */
  private readonly ids = new Map<string, number>();
  private readonly order: (string | undefined)[] = new Array(IDS_KEPT);
  /** The request that carried each id of `order`, at its place: no object a remembered id. */
  private readonly labels: (string | undefined)[] = new Array(IDS_KEPT);
  private seen = 0;
  /** The tallies of each list of rules a step was asked for (talliesOf). */
  private readonly byRules = new Map<readonly EachRule[], Tally[]>();

  constructor(
    readonly label: string,
    private readonly keep: Keeper,
  ) {}

  count(id: string, v: Verdict, ex: Exchange): void {
    this.record(this.tally(id), v, ex);
  }

  /** The rule's tally, made at its first verdict. */
  private tally(id: string): Tally {
    let t = this.rules.get(id);
    if (!t) this.rules.set(id, (t = { held: 0, broken: 0, unjudged: 0, unserved: 0 }));
    return t;
  }

  /** The tallies of `rules`, in their order, made where missing: a load
   * judges the same rules on every answer of an item, and a lookup a rule an answer cost a JSON
   * answer 1,000 instructions (callgrind). */
  talliesOf(rules: readonly EachRule[]): Tally[] {
    let tallies = this.byRules.get(rules);
    if (!tallies) {
      tallies = rules.map(({ id }) => this.tally(id));
      this.byRules.set(rules, tallies);
    }
    return tallies;
  }

  /** One verdict on one answer, counted in its rule's tally. */
  record(t: Tally, v: Verdict, ex: Exchange): void {
    if (v.outcome === 'pass') t.held++;
    else if (v.outcome === 'fail') {
      t.broken++;
      t.first ??= { message: this.keep.text(v.message ?? 'broken'), evidence: this.keep.evidence(ex) };
    } else {
      t.unjudged++;
      if (v.outcome === 'not-served') t.unserved++;
      // A reason that names what kept the rule from judging comes before a refusal to serve.
      if (!t.open || (v.outcome !== 'not-served' && t.unserved === t.unjudged - 1))
        t.open = { message: this.keep.text(v.message ?? v.outcome), ...(v.blockedBy ? { blockedBy: v.blockedBy } : {}), ...(v.unjudged ? { unjudged: v.unjudged } : {}) };
    }
  }

  /** Whether an id was on another answer lately, and which; the id is remembered either way. */
  seenId(id: string, label: string): string | undefined {
    const kept = id.length > ID_KEPT_WHOLE ? `#${createHash('sha256').update(id).digest('base64')}` : id;
    const was = this.ids.get(kept);
    const other = was === undefined ? undefined : this.labels[was];
    const at = this.seen++ % IDS_KEPT;
    // The id this place held leaves, unless it came again since (it is then at a newer place).
    const leaving = this.order[at];
    if (leaving !== undefined && this.ids.get(leaving) === at) this.ids.delete(leaving);
    this.order[at] = kept;
    this.labels[at] = label;
    this.ids.set(kept, at);
    return other;
  }

  /** The step is over: no later answer is concurrent with its answers. */
  end(): void {
    this.ids.clear();
    this.order.fill(undefined);
    this.labels.fill(undefined);
    this.seen = 0;
  }
}

/** What an item got alone, which its answers under load are held to. */
export interface Alone {
  prompt?: number;
}

/** A rule of the run on each answer, by its check's id. */
export interface EachRule {
  id: string;
  onEach: OnEach;
}

const MAX_RESENDS = 3;
/** A refusal without Retry-After is sent again after this long. */
const BACKOFF_MS = 250;
/** A Retry-After longer than this is not waited: the request counts as refused and the step goes on. */
const MAX_WAIT_MS = 10_000;

const fail = (message: string): Verdict => ({ outcome: 'fail', message });
const open = (message: string, blockedBy?: string): Verdict => ({ outcome: 'not-tested', message, ...(blockedBy ? { blockedBy } : {}) });

/** An error event in a stream: a chunk that carries `error` and no choices. */
function errorEvent(read: StreamRead | undefined): string | undefined {
  const hit = read?.chunks.find(({ chunk }) => chunk.error !== undefined && !Array.isArray(chunk.choices));
  return hit && `the stream ended in an error event (event ${hit.at} of ${read!.payloads.length}): ${JSON.stringify(hit.chunk.error).slice(0, 160)}`;
}

/** Whether a chunk carries output for choice 0: content, a refusal or a tool call. */
function carriesOutput(chunk: Record<string, unknown>): boolean {
  const choice = Array.isArray(chunk.choices) ? (chunk.choices[0] as { delta?: Record<string, unknown> } | undefined) : undefined;
  const d = choice?.delta;
  return !!d && ((typeof d.content === 'string' && d.content.length > 0) || (typeof d.refusal === 'string' && d.refusal.length > 0) || (Array.isArray(d.tool_calls) && d.tool_calls.length > 0));
}

/** The answers of a load, judged as they end. */
export class Judge {
  constructor(
    private readonly rules: readonly EachRule[],
    private readonly known: Known,
    private readonly timeoutMs: number,
    private readonly seeded: string | undefined,
  ) {}

  /** What was had alone, by item. */
  readonly alone = new Map<Item, Alone>();
  /** The items refused alone for what they hold: left out of the sweep. */
  readonly refusedAlone = new Set<Item>();

  private readonly rulesOf = new Map<Item, EachRule[]>();

  /** The rules of the run that are about an item (worked out once per item). */
  about(item: Item): EachRule[] {
    let rules = this.rulesOf.get(item);
    if (!rules)
      this.rulesOf.set(
        item,
        (rules = this.rules.filter(({ onEach: o }) => (!o.kinds || o.kinds.includes(item.kind)) && (!o.way || (o.way === 'stream') === item.stream) && (!o.asked || o.asked(item.body)))),
      );
    return rules;
  }

  /** One answer at a step; a number back sends the request again after that many ms (a refusal). */
  answer(step: Step, item: Item, t: TimedAnswer, attempt: number, loaded: boolean): number | undefined {
    // The answer made an exchange in place, a field at a time: Object.assign of a fresh literal cost
    // 1,200 instructions an answer (callgrind), these stores a few dozen.
    const ex = t as TimedAnswer & Exchange;
    ex.label = item.label;
    ex.request = item.spec;
    ex.rateLimited = false;
    ex.retries = attempt;
    // Judged once and done with: what is read of it goes young, whoever still holds the answer.
    readsOwn(ex);
    try {
      return this.judged(step, item, ex, t, attempt, loaded);
    } finally {
      forgetReads(ex);
    }
  }

  private judged(step: Step, item: Item, ex: Exchange, t: TimedAnswer, attempt: number, loaded: boolean): number | undefined {
    // Cut short by the run's end (its deadline, Ctrl-C): what it would have been is unknown.
    if (t.error?.kind === 'stopped') return undefined;
    step.requests++;
    // From its sending to its end, whatever ended it: a request that waited out a timeout is the slowest.
    if (!step.slowest || t.durationMs > step.slowest.ms)
      step.slowest = { label: t.error?.kind === 'deadline' ? `${item.label} (timed out)` : t.error?.kind === 'timeout' ? `${item.label} (stalled)` : item.label, ms: t.durationMs };
    // No first byte, or no end, within --timeout: the request starved; or its body fell silent past
    // the idle limit, which is a limit of its own. The kit's limits are load.no-starvation's rule, a
    // should that names the option a server slow by design is let through by; no other rule judges
    // what they cut.
    if (t.error?.kind === 'deadline' || t.error?.kind === 'timeout') {
      step.timedOut++;
      const why =
        t.error.kind === 'deadline'
          ? `${item.label} got ${t.status === undefined ? 'no first byte' : 'no end'} within --timeout ${this.timeoutMs} ms (a server this slow by design is let through by raising it)`
          : `${item.label} stalled after ${t.bytesRead} bytes: ${t.error.message} (a server that pauses this long by design is let through by raising it)`;
      step.count('load.no-starvation', fail(why), ex);
      // Its headers came: what came is judged as in a run, and what the kit cut is not-tested.
      if (is2xx(ex)) this.judgeRules(step, item, ex, readAnswer(ex, item.stream), loaded);
      else this.unjudged(step, item, ex, loaded, open(`${why}: see load.no-starvation`, 'load.no-starvation'));
      return undefined;
    }
    step.count('load.no-starvation', pass(), ex);
    if (t.status === 429 || t.status === 503) {
      step.refused++;
      const wait = retryAfterMs(t.headers);
      step.count('load.retry-after', wait === undefined ? fail(`${item.label} was refused with ${t.status} and no Retry-After${errorText(ex)}`) : pass(), ex);
      step.count('load.overload-refused', pass(), ex);
      const again = attempt < MAX_RESENDS && (wait ?? 0) <= MAX_WAIT_MS ? (wait ?? BACKOFF_MS) : undefined;
      // Sent again, its next answer is the one its rules read; refused for good, the server could not serve it.
      if (again === undefined) this.unjudged(step, item, ex, loaded, { outcome: 'not-served', message: `${item.label} was refused with ${t.status}${errorText(ex)}, ${attempt} times sent again` });
      return again;
    }
    if (!is2xx(ex)) {
      step.failed++;
      // Refused alone for what it holds (a field the model does not take): not a matter of load. Its
      // rules say so, and the sweep leaves it out; a run says whose the refusal is.
      if (!loaded && refusesContent(ex)) {
        this.refusedAlone.add(item);
        this.unjudged(step, item, ex, loaded, open(`${item.label} was refused alone: ${describe(ex)}${errorText(ex)}; it is left out of the sweep (conformance run says whose the refusal is)`));
        return undefined;
      }
      const why = t.status === undefined ? `${item.label} got no answer: ${describe(ex)}` : `${item.label}, served alone, got ${describe(ex)}${errorText(ex)}`;
      step.count('load.overload-refused', fail(why), ex);
      this.unjudged(step, item, ex, loaded, open(`${why}: see load.overload-refused`, 'load.overload-refused'));
      return undefined;
    }
    const a = readAnswer(ex, item.stream);
    const event = item.stream ? errorEvent(a.read) : undefined;
    if (event) {
      step.failed++;
      step.count('load.overload-refused', fail(`${item.label}: ${event}`), ex);
      this.unjudged(step, item, ex, loaded, open(`${item.label}: ${event}: see load.overload-refused`, 'load.overload-refused'));
      return undefined;
    }
    step.served++;
    step.count('load.overload-refused', pass(), ex);
    this.judgeRules(step, item, ex, a, loaded);
    this.times(step, a, t);
    return undefined;
  }

  /** The rules of the run on an answer, and the load's own; of one the kit cut at its own limit, the
   * load's own read what they need of the whole (the usage, the seeded content) and are not-tested. */
  private judgeRules(step: Step, item: Item, ex: Exchange, a: Answer, loaded: boolean): void {
    const rules = this.about(item);
    const tallies = step.talliesOf(rules);
    for (let i = 0; i < rules.length; i++) step.record(tallies[i], rules[i].onEach.judge(a, this.known), ex);
    if (!a.cut) {
      this.answersApart(step, item, a, ex, loaded);
      return;
    }
    const cut = cutVerdict(a);
    step.count('load.ids-unique', cut, ex);
    if (loaded) step.count('load.usage-independent', cut, ex);
    if (item.kind === 'seeded') step.count('load.seed-reproducible', cut, ex);
  }

  /** An answer that was no answer to judge (a timeout, a failure, a refusal for good): every rule that
   * would have read it counts it unjudged, with why, so a rule none of whose requests was served says
   * so (not-tested, or not served) rather than skip as if none of its kind was sent. */
  private unjudged(step: Step, item: Item, ex: Exchange, loaded: boolean, why: Verdict): void {
    for (const rule of this.about(item)) step.count(rule.id, why, ex);
    step.count('load.ids-unique', why, ex);
    if (loaded) step.count('load.usage-independent', why, ex);
    if (item.kind === 'seeded') step.count('load.seed-reproducible', why, ex);
  }

  /** The rules of answers that must not depend on what else is in flight. */
  private answersApart(step: Step, item: Item, a: Answer, ex: Exchange, loaded: boolean): void {
    const id = a.body?.id ?? a.read?.chunks[0]?.chunk.id;
    if (typeof id === 'string' && id) {
      const other = step.seenId(id, item.label);
      step.count('load.ids-unique', other === undefined ? pass() : fail(`${item.label} carries the id ${JSON.stringify(id)} of another answer (${other})`), ex);
    }
    const prompt = a.usage?.prompt_tokens;
    const alone = this.alone.get(item);
    if (!loaded) {
      if (typeof prompt === 'number') this.alone.set(item, { prompt });
    } else if (typeof prompt === 'number' && alone?.prompt !== undefined)
      step.count('load.usage-independent', prompt === alone.prompt ? pass() : fail(`${item.label} has usage.prompt_tokens ${prompt}, where alone it had ${alone.prompt}`), ex);
    if (item.kind === 'seeded')
      step.count(
        'load.seed-reproducible',
        this.seeded === undefined
          ? open('the seeded request does not reproduce alone')
          : a.content === this.seeded
            ? pass()
            : fail(`${item.label} answers ${show(a.content)}, where alone it answered ${show(this.seeded)}`),
        ex,
      );
  }

  /** The answer's times: first byte, first content token and the gaps between tokens (a stream), end; and its output tokens. */
  private times(step: Step, a: Answer, t: TimedAnswer): void {
    const { sentAt, headersAt, reads } = t.times;
    if (headersAt !== undefined) step.ttfb.add(headersAt - sentAt);
    if (reads.length) step.e2e.add(reads[reads.length - 1] - sentAt);
    const completion = a.usage?.completion_tokens;
    let events = 0;
    if (a.read) {
      let last: number | undefined;
      // When an event ended: the time of the read that brought its last byte. The events end further
      // on, one after another, so the search goes on from the read the last one ended in (a stream of
      // a read per event was searched from its start for each event: quadratic).
      let read = 0;
      for (const { at, chunk } of a.read.chunks) {
        if (!carriesOutput(chunk)) continue;
        events++;
        const end = a.read.sse.events[at].end;
        while (read < reads.length && reads[read] < end) read += 2;
        if (read >= reads.length) continue;
        const when = reads[read + 1];
        if (last === undefined) step.ttft.add(when - sentAt);
        else step.itl.add(when - last);
        last = when;
      }
    }
    step.outputTokens += typeof completion === 'number' ? completion : events;
  }
}

const show = (s: string) => JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}…` : s);
