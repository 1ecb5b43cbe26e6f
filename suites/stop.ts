// Sections 2.1 and 8: stop sequences, a string or an array of at most 4, on both paths and each
// model under test. The sequences are picked from the server's own reproducible answer, so the
// rules are judged where the answer is known, not where an obedient model is assumed.
import { catalog, declaredParameters, errorText, is4xx, inSuite, type ApiCheck, type CheckDef, type ChatBody, type ApiPath } from './api.js';
import { ask, askToRefuse, refusalOwner } from './ask.js';
import { answerTo, blockedOn, controlVerdict, cutOf, errorBodyProblem, eventsOwner, judged, needed, readAnswer, refusalOf, type Answer, type Part } from './answer.js';
import { fail, notTested, pass, unjudgedBy, type AxisPoint, type Verdict } from '../engine/check.js';
import type { Exchange } from '../engine/exchanges.js';
import type { CheckContext } from '../engine/runner.js';
import { modelsTaking, STREAM } from './paths.js';
import { eachReading, knownOf } from './each.js';
import { lengthShort } from './chat.js';

/** A prompt whose answer an obedient model knows in advance; any other answer works too, as long as
 * it reproduces. */
const REPEAT_PROMPT = 'Repeat exactly: alpha bravo charlie delta echo foxtrot golf hotel';
const DOCUMENT_LIMIT = 4;
/** Array items that no answer contains: they fill an array without cutting anything. */
const FILLERS = ['~~~1', '~~~2', '~~~3', '~~~4'];

/** Reproducible where the catalog allows: seed and temperature 0 (fit drops what it does not declare). */
const repeatBody = (model: string, extra: ChatBody = {}): ChatBody => ({ model, messages: [{ role: 'user', content: REPEAT_PROMPT }], seed: 7, temperature: 0, max_tokens: 64, ...extra });

/** Of an answer quoted in a message, its start: enough to see where it differs from the other. */
const SHOWN_CHARS = 400;
const show = (v: unknown) =>
  v === undefined ? 'absent' : typeof v === 'string' && v.length > SHOWN_CHARS ? `${JSON.stringify(v.slice(0, SHOWN_CHARS)).slice(0, -1)}…" (${v.length} characters)` : JSON.stringify(v);

/** The unstopped answer on a path, and the stop sequences picked from it. */
interface Reference {
  text: string;
  /** A word from the middle of the answer (not at its start), sent as a string and in an array. */
  word: string;
  /** Two words' edges around a space ("vo ch"): no single token holds the whole sequence. */
  span: string;
}

/** Of a long answer, the start that words are picked from: a word's first occurrence there is its
 * first in the whole answer, and an answer of megabytes is not split into a million words. */
const PICKED_FROM_CHARS = 4096;

/** Words of the answer that can cut it: after its start, so that something comes before them. */
function pick(text: string): Omit<Reference, 'text'> | undefined {
  const words = [...text.slice(0, PICKED_FROM_CHARS).matchAll(/[\p{L}\p{N}]{3,}/gu)].map((m) => ({ w: m[0], at: m.index! }));
  const usable = words.filter(({ w, at }) => at > 0 && text.indexOf(w) === at);
  if (usable.length < 2) return undefined;
  const i = Math.floor(usable.length / 2);
  const word = usable[i].w;
  // The span crosses the gap between two neighbouring words, from the end of one to the start of the next.
  const a = words.findIndex((x) => x.at === usable[i - 1].at);
  const [left, right] = [words[a], words[a + 1]];
  const span = text.slice(left.at + left.w.length - 2, right.at + 2);
  return /\s/.test(span) && text.indexOf(span) > 0 ? { word, span } : undefined;
}

/** The JSON answer sent twice: sequences are picked only from an answer that reproduces. A stream
 * path also needs its own unstopped answer to match, or a cut in it could not be judged. */
function reference(ctx: CheckContext, path: ApiPath): Promise<Reference | NoReference> {
  return ctx.memo(`stop-reference:${path.model}:${path.stream ? 'stream' : 'json'}`, async (c) => {
    const once = await ask(c, { model: path.model }, repeatBody(path.model!), 'reproducible answer without stop');
    const again = await c.send({ ...once.request, repeat: 1 }, `${once.label}, sent again`);
    const reads = [once, again].map((ex) => readAnswer(ex, false));
    for (const r of reads) {
      if (r.cut) return { problem: `the reproducible request without stop: ${r.cut.why}`, cut: true };
      if (r.broken.served !== undefined) return { problem: `the reproducible request without stop got no answer: ${r.broken.served}`, blockedBy: refusalOwner(r.ex) };
      const blocked = blockedOn(r, ['content']);
      if (blocked) return { problem: blocked.message!, blockedBy: blocked.blockedBy };
    }
    const [first, second] = reads.map((r) => r.content);
    if (first !== second) return { problem: `the answer does not reproduce (seed 7, temperature 0 where declared): ${show(first)}, then ${show(second)}; the cut of a stop sequence cannot be known` };
    const picked = pick(first);
    if (!picked) return { problem: `the answer is too short to pick stop sequences from: ${show(first)}` };
    if (path.stream) {
      const streamed = readAnswer(await ask(c, path, repeatBody(path.model!), 'reproducible answer without stop'), true);
      if (streamed.broken.served !== undefined && !streamed.cut)
        return { problem: `the reproducible request without stop, streamed, got no answer: ${streamed.broken.served}`, blockedBy: refusalOwner(streamed.ex) };
      const blocked = blockedOn(streamed, needed('stream', ['content']));
      if (blocked) return { problem: blocked.message!, blockedBy: blocked.blockedBy, cut: blocked.unjudged === 'cut' };
      if (streamed.content !== first) return { problem: `streamed, the same request answers ${show(streamed.content)}, not ${show(first)}` };
    }
    return { text: first, ...picked };
  });
}

/** The forms a stop sequence is sent in. */
const FORMS: readonly AxisPoint[] = [
  { value: 'string', label: 'stop string' },
  { value: 'array', label: 'stop array' },
  { value: 'span', label: 'stop across tokens' },
];

const sequenceOf = (ref: Reference, form: string) => (form === 'span' ? ref.span : ref.word);
/** The stop field of a form; the array form is the largest array stop.array sends, so it is shared. */
const stopField = (ref: Reference, form: string, largest: number): string | string[] => (form === 'string' ? ref.word : form === 'span' ? [ref.span] : arrayOf(ref, largest));

/** An array of `size` sequences: fillers the answer never holds, then the word it holds, last, so a
 * server that honours only the first sequence (or the first few) does not cut the answer. Without a
 * reference (the answer does not reproduce) only fillers: whether the array is accepted does not
 * depend on where it cuts. */
const arrayOf = (ref: Reference | undefined, size: number) => (ref ? [...FILLERS.slice(0, size - 1), ref.word] : FILLERS.slice(0, size));

/** The reference, or undefined with a note saying why the acceptance rules were judged on fillers. */
async function referenceOrFillers(ctx: CheckContext, path: ApiPath): Promise<{ ref?: Reference; notes?: string[] }> {
  const ref = await reference(ctx, path);
  return 'problem' in ref ? { notes: [`no sequence could be picked from the answer (${ref.problem}): fillers it never holds were sent, which acceptance needs no more than`] } : { ref };
}

/** Why there is no reference answer: whose failure it is, or that the kit cut it at its own limit. */
interface NoReference {
  problem: string;
  blockedBy?: string;
  cut?: boolean;
}

/** Without a reference answer the cut cannot be known. */
const noReference = (ref: NoReference) => (ref.cut ? unjudgedBy('cut', ref.problem) : notTested(ref.problem, ref.blockedBy));

/** Whose request is the stopped one of a form: the string and the largest array are the acceptance
 * checks' own; the sequence across tokens is stop.ends-generation's. */
const SERVED_BY: Record<string, string> = { string: 'stop.string', array: 'stop.array', span: 'stop.ends-generation' };

/** The stopped answer on a path and form, with the parts a rule reads sound, and what it is judged against. */
async function stopped(ctx: CheckContext, path: ApiPath, reads: readonly Part[], self: string): Promise<{ verdict: Verdict } | { ref: Reference; seq: string; a: Answer; verdict?: undefined }> {
  const ref = await reference(ctx, path);
  if ('problem' in ref) return { verdict: noReference(ref) };
  const form = String(path.form);
  const stop = stopField(ref, form, (await arraySizes(ctx, path.model!)).sizes.at(-1)!);
  const servedBy = SERVED_BY[form] === self ? undefined : SERVED_BY[form];
  const got = await answerTo(ctx, await ask(ctx, path, repeatBody(path.model!, { stop }), `stop ${JSON.stringify(stop)}`), path, reads, { what: `stop ${JSON.stringify(stop)}`, servedBy });
  return got.verdict ? got : { ref, seq: sequenceOf(ref, form), a: got.answer };
}

/** The models under test that may take stop (declared, or not described by the catalog). */
const STOPPING = { stream: STREAM, model: modelsTaking('stop') };
const ON_FORMS = { ...STOPPING, form: FORMS };

/** A rule about a stopped answer, where the sequence's place in the unstopped one is known, and the
 * answer reached it; under load, on each answer to the stop request, against the reference made
 * alone before the sweep. */
const onStopped = (self: string, reads: Part[], rule: (a: Answer, seq: string, ref: Reference) => Verdict) => ({
  ...judged(
    reads,
    (ctx, path) => stopped(ctx, path, reads, self),
    async (got, ctx, path) => endedBefore(got.a, got.seq, got.ref, (await knownOf(ctx, path.model!)).entry) ?? rule(got.a, got.seq, got.ref),
  ),
  onEach: eachReading(
    reads,
    (a, known) => {
      const stop = known.refs.stop as StopUnderLoad | undefined;
      return stop ? (endedBefore(a, stop.seq, stop.ref, known.entry) ?? rule(a, stop.seq, stop.ref)) : notTested('no stop sequence was picked before the sweep');
    },
    { kinds: ['stop'] },
  ),
});

/** The ends of an answer other than its own or a stop sequence's: a limit, a filter, a call. */
const ENDED_ELSEWHERE: unknown[] = ['length', 'content_filter', 'tool_calls'];

/** An answer that something else ended (finish_reason length, content_filter, tool_calls) before the
 * place its sequence occurs in the unstopped answer never reached what the stop rules are about: none
 * of them is judged on it (an answer cut three tokens in is not "stopped at" a word it never got to).
 * A "length" short of every limit the kit knows is chat.length-only-at-cap's breach, on this answer too. */
function endedBefore(a: Answer, seq: string, ref: Reference, entry: Record<string, unknown> | undefined): Verdict | undefined {
  const place = ref.text.indexOf(seq);
  if (a.content.length >= place || !ENDED_ELSEWHERE.includes(a.finishReason)) return undefined;
  const short = lengthShort(a, entry, 'the answer to the stop request');
  return notTested(
    `the answer ended with finish_reason ${show(a.finishReason)} after ${a.content.length} characters, before the place of the stop sequence ${show(seq)} (character ${place} of the unstopped answer): the sequence had nothing to end`,
    short && 'chat.length-only-at-cap',
    short,
  );
}

/** What a load's stop request is judged against: the reference answer, and the word sent as stop. */
interface StopUnderLoad {
  ref: Reference;
  seq: string;
}

/** A load's stop request (a word of the reproducible answer, as a string) and what it is judged
 * against, once the answer reproduced alone, streamed and not; or why there is none. */
export async function stopUnderLoad(ctx: CheckContext, model: string): Promise<{ body: ChatBody; known: StopUnderLoad } | { problem: string }> {
  const ref = await reference(ctx, { model, stream: true });
  if ('problem' in ref) return { problem: ref.problem };
  return { body: repeatBody(model, { stop: ref.word }), known: { ref, seq: ref.word } };
}

/** The reproducible request without stop: the seeded request of a load. */
export const seededBody = (model: string) => repeatBody(model);

/** Where the unstopped answer ends if the sequence stops it: just after its first occurrence. */
const cutEnd = (ref: Reference, seq: string) => ref.text.indexOf(seq) + seq.length;

export const stopString: CheckDef = {
  id: 'stop.string',
  title: 'stop is accepted as a string',
  section: '2.1',
  level: 'must',
  audit:
    'Sends the reproducible request ("Repeat exactly: ...") with a word of its own answer as a string, streamed and not: a server that takes stop only as an array refuses it, where the same request without stop was served; shown by fault stop-string-refused.',
  paths: STOPPING,
  reads: ['served'],
  async run(ctx, path) {
    const { ref, notes } = await referenceOrFillers(ctx, path);
    // Acceptance needs the answer served, not cut where the sequence is (onStopped's rules do).
    if (ref) {
      const got = await stopped(ctx, { ...path, form: 'string' }, [], 'stop.string');
      return got.verdict ?? pass();
    }
    const got = await answerTo(ctx, await ask(ctx, path, repeatBody(path.model!, { stop: FILLERS[0] }), `stop ${JSON.stringify(FILLERS[0])}`), path, [], { what: 'stop as a string' });
    return got.verdict ?? pass(notes);
  },
};

/** Array sizes to send: 1 and 4, both ends of what section 8 allows, or up to what the catalog
 * declares (the sizes between cost a request each and prove what the ends do). */
async function arraySizes(ctx: CheckContext, model: string): Promise<{ sizes: number[]; declared?: number }> {
  const declared = declaredParameters((await catalog(ctx)).entries.get(model))?.stop?.max_items;
  const n = typeof declared === 'number' && declared >= 1 ? Math.min(DOCUMENT_LIMIT, Math.floor(declared)) : DOCUMENT_LIMIT;
  return { sizes: [...new Set([1, n])], declared: typeof declared === 'number' ? declared : undefined };
}

export const stopArray: CheckDef = {
  id: 'stop.array',
  title: 'stop is accepted as an array of 1 to 4 strings',
  section: '2.1, 8',
  level: 'must',
  audit:
    "Sends the reproducible request with arrays of 1 and 4 sequences (fillers the answer never holds, then a word it holds, last), up to the catalog's max_items, streamed and not: a server that refuses arrays, or breaks on them, fails on the size it refuses; shown by faults stop-server-error and stop-empty-200.",
  paths: STOPPING,
  reads: ['served'],
  async run(ctx, path) {
    const { ref, notes = [] } = await referenceOrFillers(ctx, path);
    const { sizes, declared } = await arraySizes(ctx, path.model!);
    const wrong: string[] = [];
    const got = await Promise.all(
      sizes.map(async (size) =>
        answerTo(ctx, await ask(ctx, path, repeatBody(path.model!, { stop: arrayOf(ref, size) }), `stop ${JSON.stringify(arrayOf(ref, size))}`), path, [], { what: `stop as an array of ${size}` }),
      ),
    );
    for (const g of got) if (g.verdict?.outcome === 'fail') wrong.push(g.verdict.message!);
    if (wrong.length) return fail(wrong.join('; '));
    const open = got.find((g) => g.verdict);
    if (open) return open.verdict!;
    return pass([...notes, ...(declared !== undefined && declared < DOCUMENT_LIMIT ? [`the catalog declares stop.max_items ${declared}, so arrays of up to ${sizes.at(-1)} were sent`] : [])]);
  },
};

export const endsGeneration: CheckDef = {
  id: 'stop.ends-generation',
  title: 'Generation stops at a stop sequence: nothing follows its first occurrence',
  section: '2.1',
  level: 'must',
  audit:
    'Sends a word picked from the reproducible answer (sent twice first, to see that it reproduces) as a string, the same word last of the largest array after three fillers, and a sequence across two tokens, streamed and not, and compares with the unstopped answer: a server that ignores stop in one form, honours only the first sequences of an array, ignores it when streaming or matches whole tokens only lets text through past the sequence; shown by faults stop-string-ignored, stop-first-only, stop-span-ignored, stop-ignored-when-streaming and stop-continues-after.',
  paths: ON_FORMS,
  ...onStopped('stop.ends-generation', ['content'], (a, seq, ref) => {
    const end = cutEnd(ref, seq);
    const at = a.content.indexOf(seq);
    if (at >= 0 && at + seq.length < a.content.length) return fail(`the content goes on after the stop sequence ${show(seq)}: ${show(a.content)}`);
    if (a.content.length > end) return fail(`the content runs past where the stop sequence ${show(seq)} occurs in the unstopped answer ${show(ref.text)}: ${show(a.content)}`);
    return pass();
  }),
};

export const stopFinishReason: CheckDef = {
  id: 'stop.finish-reason',
  title: 'An answer ended by a stop sequence has finish_reason "stop"',
  section: '4.1',
  level: 'must',
  audit:
    'In each form, where the sequence cut the reproducible answer short of its unstopped end, streamed and not: a server that reports the cut as "length" (or anything but "stop") fails; shown by fault stop-finish-length.',
  paths: ON_FORMS,
  ...onStopped('stop.finish-reason', ['content', 'finish_reason'], (a, seq, ref) => {
    // Ended by the sequence: the answer stopped at or before it, where the unstopped one went on.
    if (cutEnd(ref, seq) >= ref.text.length) return notTested(`the stop sequence ${show(seq)} is past the end of the unstopped answer: nothing to end`);
    if (a.content.length > cutEnd(ref, seq)) return notTested(`the stop sequence ${show(seq)} did not end the answer (stop.ends-generation judges that)`, 'stop.ends-generation');
    return a.finishReason === 'stop' ? pass() : fail(`the answer stopped at ${show(seq)} with finish_reason ${show(a.finishReason)}, not "stop" (4.1 rule 2)`);
  }),
};

export const notInContent: CheckDef = {
  id: 'stop.not-in-content',
  title: 'The content does not contain the stop sequence that ended it',
  section: '2.1',
  level: 'should',
  audit:
    'In each form, streamed and not, against the unstopped answer: a server that leaves the sequence that ended the answer at its end fails; shown by faults stop-left-in-content and stop-continues-after.',
  convention: 'The document says generation stops at a stop sequence; that the sequence itself is left out of the content is the convention.',
  paths: ON_FORMS,
  ...onStopped('stop.not-in-content', ['content'], (a, seq) => (a.content.includes(seq) ? fail(`the content contains the stop sequence ${show(seq)}: ${show(a.content)}`) : pass())),
};

export const exactPrefix: CheckDef = {
  id: 'stop.exact-prefix',
  title: 'A stop sequence ends the content exactly before its first occurrence',
  section: '2.1',
  level: 'should',
  audit:
    'In each form, streamed and not, the content is held to the unstopped answer up to the sequence: a server that cuts a little early, or keeps the sequence, fails; shown by faults stop-cut-early and stop-left-in-content.',
  convention: 'The document says generation stops at a stop sequence; that the content is exactly the text before it is the convention.',
  paths: ON_FORMS,
  ...onStopped('stop.exact-prefix', ['content'], (a, seq, ref) => {
    const expected = ref.text.slice(0, ref.text.indexOf(seq));
    return a.content === expected ? pass() : fail(`content is ${show(a.content)}, not ${show(expected)} (the unstopped answer up to ${show(seq)})`);
  }),
};

/** Five sequences: one more than section 8 allows. */
const fiveBody = (ref: Reference | undefined, model: string) => repeatBody(model, { stop: [...arrayOf(ref, DOCUMENT_LIMIT), '~~~5'] });

/** The answer to five sequences, once four were accepted on the same path: without that control a
 * refusal proves nothing. */
async function five(ctx: CheckContext, path: ApiPath): Promise<{ ex: Exchange; verdict?: undefined } | { ex?: undefined; verdict: Verdict }> {
  // Whether five are refused does not depend on where a sequence cuts: without a reference, fillers.
  const { ref } = await referenceOrFillers(ctx, path);
  const { declared } = await arraySizes(ctx, path.model!);
  if (declared !== undefined && declared < DOCUMENT_LIMIT) return { verdict: notTested(`the catalog declares stop.max_items ${declared}: four are not accepted either`) };
  // The control asks only that four be served: a broken field of its answer is its owner's to report.
  const four = await ask(ctx, path, repeatBody(path.model!, { stop: arrayOf(ref, DOCUMENT_LIMIT) }), `stop ${JSON.stringify(arrayOf(ref, DOCUMENT_LIMIT))}`);
  const owner = (await eventsOwner(ctx, path, readAnswer(four, !!path.stream))) ?? 'stop.array';
  const control = controlVerdict(four, !!path.stream, (why) => `the control failed: stop as an array of 4 was not served (${why}): see ${owner}`, owner);
  if (control) return { verdict: control };
  const ex = await askToRefuse(ctx, path, fiveBody(ref, path.model!), 'stop as an array of 5');
  ctx.cite(ex);
  return { ex };
}

/** A rule about the answer to five sequences, on both paths and each model. */
const onFive = (rule: (ex: Exchange) => Verdict) => async (ctx: CheckContext, path: ApiPath) => {
  const got = await five(ctx, path);
  return got.ex ? rule(got.ex) : got.verdict;
};

export const fiveRefused: CheckDef = {
  id: 'stop.five-refused',
  title: 'Five stop sequences are refused (at most 4)',
  section: '8',
  level: 'must',
  audit:
    'Sends the array of four, then the same array with a fifth filler, streamed and not: a server that drops the fifth or ignores the limit serves the five where it must refuse them, and a 404, or a 5xx whose body gives no error that says why, is no refusal (a 5xx that says why refuses them, its status judged by stop.five-4xx); where the answer does not reproduce, the arrays are fillers alone, for a refusal does not depend on where a sequence cuts; shown by faults stop-five-accepted, stop-five-404, stop-five-500 and stop-five-accepted-answer-varies.',
  paths: STOPPING,
  // A refusal: it reads no part of an answer (its control, four sequences, asks only to be served).
  reads: [],
  run: onFive((ex) => {
    // Over the limit of section 8 by the document itself: a 5xx whose error says why refuses it too,
    // its status stop.five-4xx's to judge.
    const r = refusalOf(ex, { unservable: true });
    if (r.kind === 'cut') return cutOf(ex)!;
    if (r.kind === 'refused') return pass(r.toldBy ? [`five stop sequences were refused with ${r.toldBy}: its status is stop.five-4xx's to judge`] : undefined);
    return fail(`five stop sequences were not refused: ${r.why}; section 8 allows at most ${DOCUMENT_LIMIT}`);
  }),
};

export const five4xx: CheckDef = {
  id: 'stop.five-4xx',
  title: 'Five stop sequences are refused with a 4xx and a JSON error body',
  section: '8, 7',
  level: 'should',
  audit:
    'Reads the answer to the five sequences, streamed and not, once the four were served: a refusal with a 5xx (even one whose error says why, which holds stop.five-refused) or a plain-text body fails; shown by faults stop-five-500, stop-five-text-body and errors-incomplete-500-with-error.',
  convention: 'The document leaves error statuses and bodies unshown (7); the convention is a 4xx with {"error": {"message": ...}}.',
  paths: STOPPING,
  // A refusal: it reads no part of an answer (its control, four sequences, asks only to be served).
  reads: [],
  run: onFive((ex) => {
    // Whether it is a 4xx tells from its status; its body, from all of it.
    if ((ex.status === undefined || is4xx(ex)) && cutOf(ex)) return cutOf(ex)!;
    if (!is4xx(ex)) return fail(`five stop sequences got status ${ex.status ?? 'none'}, not a 4xx${errorText(ex)}`);
    const problem = errorBodyProblem(ex);
    return problem ? fail(problem) : pass();
  }),
};

export const STOP: ApiCheck[] = inSuite('stop', [stopString, stopArray, endsGeneration, stopFinishReason, notInContent, exactPrefix, fiveRefused, five4xx]);
