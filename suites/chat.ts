// Sections 2.1 to 2.3, 4.1 and 8: the chat completion, its response and the token limit, on both
// paths (one JSON body, or a stream) and on each model under test; the roles of its conversation are
// chat-roles.ts's.
import { enumAt, schemaAt, validator } from '../schemas/index.js';
import { contextLength, describe, generated, isUnixSeconds, is2xx, outputLength, inSuite, type ApiCheck, type CheckDef, type ChatBody, type ApiPath } from './api.js';
import { ask } from './ask.js';
import {
  answerTo,
  BASE,
  BASIC_OWNERS,
  blockedOn,
  cutVerdict,
  heldOnEvery,
  judged,
  needed,
  ownPart,
  partOnEveryAnswer,
  readAnswer,
  unservedVerdict,
  wayOf,
  type Answer,
  type Asked,
  type Part,
  type Way,
} from './answer.js';
import { failIfAny, fail, notTested, pass, type Axis, type Verdict } from '../engine/check.js';
import { parseJson } from '../engine/json.js';
import { bodyJson, sentJson, type Exchange } from '../engine/exchanges.js';
import type { CheckContext } from '../engine/runner.js';
import { MODELS, STREAM, takes } from './paths.js';
import { toolRequest } from './tools.js';
import { eachOwning, eachReading, knownOf, type Known, type Kind } from './each.js';
import { basic, basicBody, ROLE_CHECKS } from './chat-roles.js';

const OBJECT = schemaAt('response#/properties/object').const;
const ASSISTANT = schemaAt('response#/$defs/assistantMessage/properties/role').const;
const FINISH_REASONS = enumAt('response#/$defs/finishReason');

/** The basic request is chat.role.user's (suites/chat-roles.ts), shared by every suite that needs an ordinary answer. */
export { basic, basicBody };

const EACH = { stream: STREAM, model: MODELS };
const JSON_EACH = { model: MODELS };

/** The basic request is chat.role.user's own: a check that reads its answer is blocked when it is not served. */
const BASIC: Asked = { what: 'the basic request', ...BASIC_OWNERS };

/** A rule about the answer to the basic request, judged when the parts it reads are sound; under
 * load, about each answer of `kinds` (every kind, by default). */
const onBasic = (reads: Part[], rule: (a: Answer, known: Known) => Verdict, kinds?: readonly Kind[], way?: Way) => ({
  ...judged<{ answer: Answer }>(
    reads,
    async (ctx, path) => answerTo(ctx, await basic(ctx, path), path, reads, BASIC),
    async (got, ctx, path) => rule(got.answer, await knownOf(ctx, path.model!)),
  ),
  onEach: eachReading(reads, rule, { ...(kinds ? { kinds } : {}), ...(way ? { way } : {}) }),
});

/** The owner of a part of an answer (2.3, must): it fails when that part is broken on the basic
 * answer, or on any other answer the run received on its path, and only then. It runs last, to see them all. */
const owner = (part: Part, { id, title, audit, paths }: Pick<CheckDef, 'id' | 'title' | 'audit' | 'paths'>): CheckDef => ({
  id,
  title,
  section: '2.3',
  level: 'must',
  audit: audit?.replace(/; shown by/, ', and every other answer the run received on the path is held to the same (the first broken one cited); shown by'),
  paths,
  reads: [part],
  last: true,
  // Under load, the part on every answer, on the ways the check's paths take.
  onEach: eachOwning(part, paths === JSON_EACH ? 'json' : undefined),
  async run(ctx, path) {
    const ex = await basic(ctx, path);
    const own = ownPart(readAnswer(ex, !!path.stream), part, BASE[wayOf(path.stream)], BASIC);
    return heldOnEvery(own, await partOnEveryAnswer(ctx, path.model!, !!path.stream, part, [ex], own.outcome !== 'fail'));
  },
});

const show = (v: unknown) => (v === undefined ? 'absent' : JSON.stringify(v));

// --- 2.3: the response -----------------------------------------------------------------------------

export const responseShape = owner('envelope', {
  id: 'chat.response-shape',
  title: 'A chat completion answers a JSON body with id, created and model, and choices that each hold a message',
  audit:
    'Reads the JSON answer to the basic request (count to ten) part by part: a server whose body lacks id, created as an integer or model, or whose choices hold no message object, fails here and only here; shown by fault chat-created-string.',
  paths: JSON_EACH,
});

export const objectConstant = owner('object', {
  id: 'chat.object',
  title: `The response's object is the constant "${OBJECT}"`,
  audit:
    'Reads object in the JSON answer to the basic request: a server that says anything but "chat.completion" (chat.completions, or the chunk\'s object) fails; shown by fault chat-object-chat-completions.',
  paths: JSON_EACH,
});

export const choiceIndex = owner('index', {
  id: 'chat.choice-index',
  title: "Each choice's index is its position in choices",
  audit: 'Reads the choices of the JSON answer to the basic request: a server whose choice indexes are not their positions (1 then 0, or none) fails; shown by fault chat-choice-index-out-of-order.',
  paths: JSON_EACH,
});

export const finishReason = owner('finish_reason', {
  id: 'chat.finish-reason',
  title: `Each choice's finish_reason is one of ${FINISH_REASONS.join(', ')}`,
  audit:
    "Reads the finish_reason of the basic answer, streamed and not (every finish_reason of choice 0 on a stream): a server that ends with a value outside the four (eos, done) or with none fails on the path it does it, the essay cut by max_tokens with finish_reason null included, and so does the answer served to an unknown model where a refusal was due (the refusal's check says should, this rule must); shown by faults chat-finish-reason-eos, stream-finish-reason-outside-enum, chat-finish-reason-null-when-cut and errors-unknown-model-served-eos.",
  paths: EACH,
});

export const assistantRole = owner('role', {
  id: 'chat.assistant-role',
  title: `Each choice's message has the role "${ASSISTANT}"`,
  audit: 'Reads the message role of the JSON answer to the basic request: a server that answers as "bot" or "model" fails; shown by fault chat-role-bot.',
  paths: JSON_EACH,
});

export const contentString: CheckDef = {
  id: 'chat.content',
  title: "Each choice's message carries its content as a string, also beside tool_calls, on every JSON answer of the run",
  section: '2.2, 2.3',
  level: 'must',
  audit:
    'Reads every JSON answer the run received for the model, a tool call forced with tool_choice "required" and the answer to a tool result included: a server that sends content null beside tool_calls, or content as a list of parts, fails even where the basic answer is text; shown by faults tools-result-empty and engine-content-null-with-tool-calls.',
  paths: JSON_EACH,
  reads: ['content'],
  onEach: eachOwning('content', 'json'),
  // Content is read by many rules on many requests (a tool call's answer, a tool result's): its
  // owner judges every JSON answer the run received, so a part broken on any of them is reported here.
  last: true,
  async run(ctx, path) {
    const ex = await basic(ctx, path);
    if (await takes(ctx, path.model!, 'tools')) await toolRequest(ctx, { model: path.model }, 'required');
    const own = ownPart(readAnswer(ex, false), 'content', ['served'], BASIC);
    return heldOnEvery(own, await partOnEveryAnswer(ctx, path.model!, false, 'content', [ex], own.outcome !== 'fail'));
  },
};

export const usagePresent = owner('usage', {
  id: 'chat.usage',
  title: 'The response carries usage with integer prompt_tokens, completion_tokens and total_tokens',
  audit:
    'Reads usage in the JSON answer to the basic request: a server that leaves it out, or gives a count as a string, fails, and so does one that leaves it out of an answer served where a refusal was due; shown by faults chat-usage-missing, chat-usage-counts-strings and stop-five-accepted-usage-missing.',
  paths: JSON_EACH,
});

export const usageTotal: CheckDef = {
  id: 'chat.usage-total',
  title: 'usage.total_tokens is prompt_tokens + completion_tokens',
  section: '2.3',
  level: 'should',
  audit:
    'Reads usage in the JSON answer to the basic request: a total_tokens other than prompt_tokens + completion_tokens (one off, reasoning counted twice) fails; shown by fault chat-usage-total-off.',
  convention: 'The document lists total_tokens without defining it; the convention is the sum of prompt and completion tokens.',
  paths: JSON_EACH,
  ...onBasic(
    ['usage'],
    (a) => {
      const { prompt_tokens: p, completion_tokens: c, total_tokens: t } = a.usage as Record<string, number>;
      return t === p + c ? pass() : fail(`total_tokens ${t} is not prompt_tokens ${p} + completion_tokens ${c} = ${p + c}`);
    },
    undefined,
    'json',
  ),
};

export const usageDetails: CheckDef = {
  id: 'chat.usage-details',
  title: 'usage carries prompt_tokens_details.cached_tokens and completion_tokens_details.reasoning_tokens',
  section: '2.3',
  level: 'must',
  audit:
    'Reads usage in the JSON answer to the basic request: a server that leaves out prompt_tokens_details.cached_tokens or completion_tokens_details.reasoning_tokens (absent, null, a string) fails; shown by faults chat-usage-details-missing and engine-prompt-details-null.',
  paths: JSON_EACH,
  reads: ['usage-details'],
  onEach: { way: 'json', judge: (a: Answer) => usageDetailsOf(a) },
  last: true,
  async run(ctx, path) {
    const ex = await basic(ctx, path);
    const own = usageDetailsOf(readAnswer(ex, false));
    return heldOnEvery(own, await partOnEveryAnswer(ctx, path.model!, false, 'usage-details', [ex], own.outcome !== 'fail'));
  },
};

function usageDetailsOf(a: Answer): Verdict {
  // No usage at all is chat.usage's failure: the details have nothing to be in.
  if (a.broken.served === undefined && a.unserved === undefined && !a.usage)
    return notTested(`needs usage (${a.broken.usage}): see chat.usage`, 'chat.usage', `${a.ex.label}: usage: ${a.broken.usage}`);
  return ownPart(a, 'usage-details', BASE.json, BASIC);
}

/** A stream of no chunk ([DONE] alone) has no field of 2.3 to read: nothing to judge, not a pass. */
const noChunk = notTested('the stream carries no chunk: nothing to read');

export const createdSeconds: CheckDef = {
  id: 'chat.created-seconds',
  title: 'created is a Unix time in seconds, on the response and on every chunk of a stream',
  section: '2.3',
  level: 'should',
  audit:
    'Reads created of the basic answer and of every chunk of its stream: a server that gives milliseconds fails on the path it does it, since no Unix time in seconds reaches 1e11 before the year 5138; shown by faults chat-created-milliseconds and chat-created-milliseconds-streamed.',
  convention: 'The document says "creation time" without a unit; the convention is Unix seconds, as for models.',
  paths: EACH,
  ...onBasic(['envelope'], (a) => {
    if (!a.created.length) return noChunk;
    // Counted in a loop: a stream's every chunk, every answer under load.
    let wrong = 0;
    let first = -1;
    for (let i = 0; i < a.created.length; i++) if (!isUnixSeconds(a.created[i]) && !wrong++) first = i;
    if (!wrong) return pass();
    const where = a.stream ? `${wrong} of ${a.created.length} chunks, the first (chunk ${first})` : 'the response';
    return fail(`${where} gives created ${show(a.created[first])}, not a Unix time in seconds`);
  }),
};

/** `x-2026-01-01`, `x-20260101`, `x@2026-01-01`: a dated id of the model that was asked for. */
const DATED = /^[-@:/.]?v?\d{4}-?\d{2}(-?\d{2})?$/;

export const modelEcho: CheckDef = {
  id: 'chat.model-echo',
  title: 'The response names the model that was asked for (or a dated id of it), on the response and on every chunk',
  section: '2.3',
  level: 'should',
  audit:
    "Reads model of the basic answer and of every chunk of its stream: a server that names another model than the id asked for (its backend's, a default) or a dated id of it fails; shown by fault chat-model-other.",
  convention: '2.3 says model is the "id of the model that served the request"; by convention it is the requested id or a dated snapshot of it (x-2026-01-01 for x).',
  paths: EACH,
  ...onBasic(['envelope'], (a, { model: asked }) => {
    if (!a.models.length) return noChunk;
    const other = a.models.find((m) => m !== asked && !(typeof m === 'string' && m.startsWith(asked) && DATED.test(m.slice(asked.length))));
    return other === undefined ? pass() : fail(`the ${a.stream ? 'stream' : 'response'} names model ${show(other)}, not ${JSON.stringify(asked)} or a dated id of it`);
  }),
};

// --- 4.1: the operation ----------------------------------------------------------------------------

export const streamFalseJson: CheckDef = {
  id: 'chat.stream-false',
  title: `With stream: false the answer is one JSON ${OBJECT} body, not a stream`,
  section: '4.1',
  level: 'must',
  audit:
    "Sends the basic request with stream: false written out: a server that reads the field's presence rather than its value answers a stream, not one JSON body; shown by fault chat-stream-false-streamed.",
  paths: JSON_EACH,
  reads: ['served'],
  async run(ctx, path) {
    const ex = await ask(ctx, path, { ...basicBody(path.model!), stream: false }, 'chat completion with stream: false');
    const a = readAnswer(ex, false);
    if (a.unserved !== undefined) return unservedVerdict(a);
    if (!is2xx(ex)) return a.cut ? cutVerdict(a) : fail(`the request with stream: false was not served: ${a.broken.served}`);
    const wrong: string[] = [];
    const type = ex.headers['content-type'] ?? '';
    if (!/^application\/([\w.+-]+\+)?json\b/i.test(type)) wrong.push(`content-type is ${show(type || undefined)}, not JSON`);
    // The body's fields are the response checks' to judge; here only that it is one JSON body, which
    // a body the kit cut does not show (its content-type does).
    if (a.cut && !wrong.length) return cutVerdict(a);
    const json = a.cut ? { ok: true as const } : bodyJson(ex);
    if (!json.ok) wrong.push(json.error);
    return failIfAny(wrong);
  },
};

// --- 2.1, 4.1, 8: the token limit and the finish ---------------------------------------------------

const LONG_PROMPT = 'Write a long, detailed essay about the history of computing.';
/** The cap of the essay; the catalog's declared minimum raises it (fit). */
const ESSAY_CAP = 1;

/** The long essay with a cap of its own: the smallest (the capped request), or `--max-tokens`. */
export const essayBody = (model: string, cap = ESSAY_CAP): ChatBody => ({ model, messages: [{ role: 'user', content: LONG_PROMPT }], max_tokens: cap });

const essay = (ctx: CheckContext, path: ApiPath) => ask(ctx, path, essayBody(path.model!), 'long essay with the smallest max_tokens');

/** The max_tokens a request carried, as sent (after fitting to the catalog). */
function sentCap(ex: Exchange): number | undefined {
  const v = (sentJson(ex.request) as { max_tokens?: unknown } | undefined)?.max_tokens;
  return typeof v === 'number' ? v : undefined;
}

/** The smallest token limit the kit knows for an answer: the max_tokens it sent, the output length
 * the catalog declares (`entry`), and what the context leaves after the prompt. */
function knownLimit(entry: Record<string, unknown> | undefined, a: Answer): { limit?: number; which: string } {
  // The smallest, the first of equals, picked without a list: a load asks this of every answer.
  let limit = sentCap(a.ex);
  let which = 'max_tokens';
  const output = outputLength(entry);
  if (output !== undefined && (limit === undefined || output < limit)) {
    limit = output;
    which = "the catalog's output max_length";
  }
  const context = contextLength(entry);
  const prompt = a.usage?.prompt_tokens;
  if (context !== undefined && typeof prompt === 'number' && (limit === undefined || context - prompt < limit)) {
    limit = context - prompt;
    which = 'the context left after the prompt';
  }
  return { limit, which };
}

/** A known limit as messages name it (`max_tokens 64`), made only for a message. */
const limitText = ({ limit, which }: { limit?: number; which: string }) => (limit !== undefined ? `${which} ${limit}` : 'no limit');

const completionTokens = (a: Answer) => (typeof a.usage?.completion_tokens === 'number' ? (a.usage.completion_tokens as number) : undefined);
const reasoningTokens = (a: Answer) => (a.usage?.completion_tokens_details as { reasoning_tokens?: unknown } | undefined)?.reasoning_tokens;

const MAX_TOKENS_READS: Part[] = ['finish_reason', 'usage'];

const words = (text: string) => text.match(/\S+/g)?.length ?? 0;
/** A floor on the tokens a text took, that no tokenizer in use goes under: a token spans at most a
 * few words (pre-tokenizers split at spaces; the widest multi-word vocabularies join a handful), so
 * a quarter of the words, rounded up. It never overestimates, which is all a breach needs. */
const tokensAtLeast = (text: string) => Math.ceil(words(text) / 4);

/** What max_tokens is tried on: the essay, and on a model that may take tools, a tool call. */
const CUTS: Axis<CheckContext> = async (ctx, path) => ({
  points: [{ value: 'essay', label: 'essay' }, ...((await takes(ctx, String(path.model), 'tools')) ? [{ value: 'tool call', label: 'tool call' }] : [])],
});

export const maxTokens: CheckDef = {
  id: 'chat.max-tokens',
  title: 'max_tokens caps the generated tokens, reasoning tokens included: an answer it cuts, an essay or a tool call, ends with finish_reason "length"',
  section: '2.1, 4.1, 8',
  level: 'must',
  audit:
    'Asks for a long essay with the smallest max_tokens the catalog allows, streamed and not: a server that ignores max_tokens (on either path) writes on past the cap, and one that holds only the visible answer to it reports the reasoning tokens beyond it in completion_tokens, where the cap must end the answer with "length" within it; without a sound usage, the words of the answer give a floor on its tokens (a quarter of them) that judges the cap all the same. And, on a model that may take tools, asks the weather question of tool_choice auto again with max_tokens halfway through the tokens its whole call took (the reasoning before it included), streamed and not, so the call cannot finish: a server that ends the cut call with "tool_calls" as if it were whole fails, judged only on an answer that reached the cap; shown by faults chat-max-tokens-ignored, chat-max-tokens-ignored-streamed, chat-reasoning-beyond-cap, chat-length-reported-as-stop, chat-max-tokens-ignored-no-usage and chat-cut-tool-call-finish-tool-calls.',
  paths: { ...EACH, cut: CUTS },
  reads: MAX_TOKENS_READS,
  onEach: eachReading(MAX_TOKENS_READS, (a) => cutByCap(a), { kinds: ['capped'] }),
  async run(ctx, path) {
    if (path.cut === 'tool call') return cutCall(ctx, path);
    const ex = await essay(ctx, path);
    // What the rule needs is read where it is sound (cutByCap): the request need only be served.
    const got = await answerTo(ctx, ex, path, ['served', 'events'], { what: `a long essay with max_tokens ${sentCap(ex)}` });
    return got.verdict ?? cutByCap(got.answer);
  },
};

/** Whether a call's arguments are whole: JSON text of an object, as every declared function takes. */
const wholeArguments = (text: string) => {
  const json = parseJson(text);
  return json.ok && json.value !== null && typeof json.value === 'object' && !Array.isArray(json.value);
};

/** A tool call cut by max_tokens (4.1 rule 2: "length" when the token limit ends the generation, a
 * call or not). The cap comes from the call itself: the weather question under tool_choice auto,
 * which the tools suite asks with room for the whole call, is asked again with a cap halfway through
 * the tokens that call took after the reasoning, so the same call cannot finish, at the least cost
 * that proves it on any model (a fixed cap would cut a reasoning model in its thinking, before any
 * call). The tokens are counted on the JSON answer, on both paths: a stream that miscounts them is
 * usage.stream-counts' failure, and must not move the cap. */
async function cutCall(ctx: CheckContext, path: ApiPath): Promise<Verdict> {
  const what = 'the weather question under tool_choice auto';
  const json = { model: path.model, stream: false };
  const first = await answerTo(ctx, await toolRequest(ctx, json, 'auto'), json, MAX_TOKENS_READS, { what, servedBy: 'tools.finish-reason', feature: 'tools' });
  if (first.verdict) return first.verdict;
  const whole = first.answer;
  if (!whole.toolCalls.length || whole.finishReason === 'length')
    return notTested(`${what} got no whole tool call to cut (${whole.toolCalls.length} call(s), finish_reason ${show(whole.finishReason)})`);
  const spent = completionTokens(whole)!;
  const reasoning = reasoningTokens(whole);
  const thought = typeof reasoning === 'number' && reasoning >= 0 && reasoning < spent ? reasoning : 0;
  const cap = thought + Math.ceil((spent - thought) / 2);
  if (cap >= spent) return notTested(`${what} took ${spent - thought} token(s) after its reasoning: too few to cut`);
  // The request as the tools suite sent it, but its cap (ask streams it on the stream path).
  const ex = await ask(ctx, path, { ...(sentJson(whole.ex.request) as ChatBody), max_tokens: cap }, `the weather question with max_tokens ${cap}, inside its tool call`);
  const got = await answerTo(ctx, ex, path, ['served', 'events'], { what: `${what} with max_tokens ${sentCap(ex)}`, feature: 'tools' });
  return got.verdict ?? callCutByCap(got.answer);
}

/** The cut call ends with "length" where it reached the cap, and never goes past it. An answer that
 * ended short of the cap (the model made a shorter call this time) cut nothing and proves nothing;
 * a whole call that ends exactly at the cap may say "tool_calls". */
function callCutByCap(a: Answer): Verdict {
  const blocked = blockedOn(a, needed(wayOf(a.stream), MAX_TOKENS_READS), {});
  if (blocked) return blocked;
  const cap = sentCap(a.ex)!;
  const spent = completionTokens(a)!;
  if (spent > cap) return fail(`usage.completion_tokens ${spent} exceeds max_tokens ${cap}, for a tool call asked with it`);
  // Short of the cap, nothing was cut ("length" there is chat.length-only-at-cap's rule, judged on its own requests).
  if (spent < cap) return notTested(`the answer ended after ${spent} of max_tokens ${cap} tokens (finish_reason ${show(a.finishReason)}): nothing was cut`);
  if (a.finishReason === 'length') return pass();
  const whole = a.toolCalls.length > 0 && a.toolCalls.every((c) => wholeArguments(c.arguments));
  if (whole && a.finishReason === 'tool_calls') return notTested(`the call ended whole exactly at max_tokens ${cap}: nothing was cut`);
  const cut = a.toolCalls.find((c) => !wholeArguments(c.arguments));
  return fail(
    `the answer reached max_tokens ${cap} (completion_tokens ${spent})${cut ? ` inside a call of ${show(cut.name)}, its arguments cut at ${show(cut.arguments)},` : ''} yet finish_reason is ${show(a.finishReason)}, not "length" (4.1 rule 2: "length" when generation ends because of the token limit)`,
  );
}

/** The essay's answer ends with "length" within the cap it was sent. */
/** The cap judged on an answer served: what the rule needs is read where it is sound, and a breach
 * that the sound parts show is judged without the others (eleven words to max_tokens 1 break it,
 * whatever the usage says); with nothing shown and a part it reads broken, blocked by its owner. */
function cutByCap(a: Answer): Verdict {
  const cap = sentCap(a.ex);
  const way = wayOf(a.stream);
  const sound = (part: Part) => needed(way, [part]).every((p) => a.broken[p] === undefined);
  const wrong: string[] = [];
  if (sound('finish_reason') && a.finishReason !== 'length') wrong.push(`finish_reason is ${show(a.finishReason)}, not "length", for a long essay asked with max_tokens ${cap}`);
  if (sound('usage')) {
    const spent = completionTokens(a)!;
    if (cap !== undefined && spent > cap) {
      const reasoning = reasoningTokens(a);
      wrong.push(`usage.completion_tokens ${spent} exceeds max_tokens ${cap}${typeof reasoning === 'number' && reasoning > 0 ? ` (reasoning_tokens ${reasoning}: they count within the cap)` : ''}`);
    }
  } else if (cap !== undefined && tokensAtLeast(a.content) > cap) {
    wrong.push(`the content, ${words(a.content)} words, is at least ${tokensAtLeast(a.content)} tokens (counted from the text, the usage being unsound), past max_tokens ${cap}`);
  }
  if (wrong.length) return fail(wrong.join('; '));
  return blockedOn(a, needed(way, MAX_TOKENS_READS), {}) ?? pass();
}

export const lengthOnlyAtLimit: CheckDef = {
  id: 'chat.length-only-at-cap',
  title: 'finish_reason is "length" only when a token limit ended the generation',
  section: '4.1',
  level: 'must',
  audit:
    'Reads the finish of the basic answer, which ends by itself well within its 64-token cap, and of the essay, streamed and not: a server that says "length" for a natural end, or short of every limit it was given, fails, and so does one that cuts the stop request short of its sequence and of its max_tokens (the stop rules, which that answer never reached, are left to this one); shown by faults chat-length-when-not-cut, chat-natural-end-length-streamed, chat-length-before-cap and stop-cut-short-length.',
  paths: EACH,
  reads: MAX_TOKENS_READS,
  // Under load, every answer: none may say "length" short of its limits. One that ends otherwise is
  // not what the rule is about.
  onEach: eachReading(MAX_TOKENS_READS, (a, { entry }) => {
    if (a.finishReason !== 'length') return noLength(a.finishReason);
    const wrong = lengthShort(a, entry, 'the answer');
    return wrong ? fail(wrong) : pass();
  }),
  async run(ctx, path) {
    const wrong: string[] = [];
    let judged = 0;
    let essayEnd: Answer | undefined;
    const { entry } = await knownOf(ctx, path.model!);
    for (const [what, ex, owners] of [
      ['the essay', await essay(ctx, path), { servedBy: 'chat.max-tokens' }],
      ['the basic answer', await basic(ctx, path), BASIC],
    ] as const) {
      const got = await answerTo(ctx, ex, path, MAX_TOKENS_READS, { what, ...owners });
      if (got.verdict) return got.verdict;
      const a = got.answer;
      essayEnd ??= a;
      if (a.finishReason !== 'length' || completionTokens(a) === undefined) continue;
      judged++;
      const short = lengthShort(a, entry, what);
      if (short) wrong.push(short);
    }
    if (wrong.length) return fail(wrong.join('; '));
    if (judged) return pass();
    // Nothing ended with "length": the essay, cut by its max_tokens, should have (chat.max-tokens fails where it did not).
    const why = `the essay asked with max_tokens ${sentCap(essayEnd!.ex)} ended with finish_reason ${show(essayEnd!.finishReason)}`;
    return notTested(`no answer ended with "length": nothing to judge (${why}; see chat.max-tokens)`, 'chat.max-tokens', `${essayEnd!.ex.label}: ${why}, not "length"`);
  },
};

/** The verdict on an answer that did not end with "length", made once for each finish_reason of the
 * document: a load has it for nearly every answer, and its message quotes the value. */
const NO_LENGTH = new Map(FINISH_REASONS.map((r) => [r, notTested(`the answer ended with finish_reason ${show(r)}: no "length" to judge`)]));
const noLength = (reason: unknown) => NO_LENGTH.get(reason) ?? notTested(`the answer ended with finish_reason ${show(reason)}: no "length" to judge`);

/** What is wrong with an answer that says "length" short of every limit the kit knows of, or nothing.
 * Only such an answer is flagged: a server-side cap the kit does not know of may have ended it otherwise. */
export function lengthShort(a: Answer, entry: Record<string, unknown> | undefined, what: string): string | undefined {
  const spent = completionTokens(a);
  if (a.finishReason !== 'length' || spent === undefined) return undefined;
  const known = knownLimit(entry, a);
  return known.limit !== undefined && spent < known.limit ? `${what} ended with "length" after ${spent} completion tokens, short of ${limitText(known)}` : undefined;
}

export const naturalStop: CheckDef = {
  id: 'chat.natural-stop',
  title: 'An answer that ends by itself, short of every token limit, has finish_reason "stop"',
  section: '4.1',
  level: 'must',
  audit:
    'Reads the finish of the basic answer, which ends by itself within its cap, streamed and not: a server that ends it with anything but "stop" (length, content_filter) fails on the path it does it; shown by faults chat-natural-end-content-filter and chat-length-when-not-cut.',
  paths: EACH,
  ...onBasic(
    ['finish_reason', 'usage', 'tool-calls'],
    (a, { entry }) => {
      const spent = completionTokens(a)!;
      if (a.toolCalls.length) return notTested('the basic answer called a tool');
      const known = knownLimit(entry, a);
      if (known.limit !== undefined && spent >= known.limit) return notTested(`the answer reached ${limitText(known)}, so it did not end by itself`);
      return a.finishReason === 'stop'
        ? pass()
        : fail(`an answer of ${spent} completion tokens, short of ${limitText(known)}, ended with finish_reason ${show(a.finishReason)}, not "stop" (4.1 rule 2: "stop" for a natural end)`);
    },
    ['basic'],
  ),
};

const validRequest = validator('request');

/** A chat request the document says must be served, as the run sent it: a body valid against 2.1
 * and a key of the run as Bearer (5.1); with whether it asked for a stream. Undefined for the
 * kit's deliberately invalid requests (errors, refusals, auth), whatever their answer. */
function validChat(ctx: CheckContext, ex: Exchange): { stream: boolean } | undefined {
  if (ex.request.method !== 'POST' || !ex.request.url.includes('/v1/chat/completions') || generated(ex)) return undefined;
  const keys = [ctx.target.apiKey, ctx.target.secondApiKey].filter(Boolean).map((k) => `Bearer ${k}`);
  if (!keys.includes(String(ex.request.headers.authorization ?? ''))) return undefined;
  const body = sentJson(ex.request);
  return body !== undefined && validRequest(body).ok ? { stream: (body as { stream?: unknown }).stream === true } : undefined;
}

/** How a run's answers came back, each status once with how many: `status 404 (73)`. */
function describeAll(answers: readonly Exchange[]): string {
  const counts = new Map<string, number>();
  for (const ex of answers) counts.set(describe(ex), (counts.get(describe(ex)) ?? 0) + 1);
  return [...counts].map(([what, n]) => `${what} (${n})`).join(', ');
}

export const servedWhenValid: CheckDef = {
  id: 'chat.served-when-valid',
  title: 'The chat requests of the run are served: none is turned away as busy (429 beyond its Retry-After, 503) or ended by an error event mid-stream',
  section: '4.1, 8',
  level: 'should',
  audit:
    'Reads every chat answer the run received: a request the server could not serve (a 429 still there after the retries, a 503, a stream that ends in an error event) breaks no rule of the check that sent it, which is not served, and is counted here once; shown by faults busy-basic-503 and busy-essay-stream-error.',
  convention: "Rate limits and quotas are not shown (8); a service open to a client is expected to serve its requests at the kit's concurrency (4), one request in flight per check.",
  reads: ['served'],
  last: true,
  async run(ctx) {
    const chats = (await ctx.received()).flatMap((ex) => {
      const valid = validChat(ctx, ex);
      return valid ? [{ ex, ...valid }] : [];
    });
    const turnedAway = chats.map(({ ex, stream }) => ({ ex, why: readAnswer(ex, stream).unserved })).filter((x): x is { ex: Exchange; why: string } => x.why !== undefined);
    if (!chats.length) return notTested('the run sent no valid chat request (with no model listed, name one with --model)');
    if (!turnedAway.length) {
      // Nothing served and nothing turned away (a 404 to every route): the rule held on no answer.
      if (!chats.some(({ ex }) => is2xx(ex)))
        return notTested(`none of the ${chats.length} valid chat requests of the run was served, nor turned away as busy (${describeAll(chats.map(({ ex }) => ex))}): nothing to count`);
      return pass();
    }
    ctx.cite(turnedAway[0].ex);
    const named = turnedAway.slice(0, 3).map(({ ex, why }) => `${ex.label}: ${why}`);
    return fail(
      `${turnedAway.length} of ${chats.length} chat requests were not served${turnedAway.length > 3 ? ` (the first three: ${named.join('; ')})` : `: ${named.join('; ')}`}; the checks that read them are not served, not failed`,
    );
  },
};

export const CHAT: ApiCheck[] = inSuite('chat', [
  ...ROLE_CHECKS,
  responseShape,
  objectConstant,
  choiceIndex,
  finishReason,
  assistantRole,
  contentString,
  usagePresent,
  usageTotal,
  usageDetails,
  createdSeconds,
  modelEcho,
  streamFalseJson,
  maxTokens,
  lengthOnlyAtLimit,
  naturalStop,
  servedWhenValid,
]);
