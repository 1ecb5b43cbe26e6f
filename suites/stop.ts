// Sections 2.1 and 8: stop sequences, a string or an array of at most 4.
import { validator } from '../schemas/index.js';
import { catalog, chat, declaredParameters, describe, is2xx, is4xx, modelsUnderTest, onEachModel, readReply, type ApiCheck, type ChatBody } from './api.js';
import { combine, fail, notTested, pass, type Verdict } from './harness/check.js';
import { bodyJson, bodySse, type Exchange } from './harness/exchanges.js';
import type { CheckContext } from './harness/runner.js';

const validError = validator('error');

/** A prompt whose answer is known in advance, so where a stop sequence cuts it is known too. */
const REPEAT_PROMPT = 'Repeat exactly: alpha bravo charlie delta echo foxtrot';
/** Words of the repeated text, sent as stop sequences; the first of them cuts the answer. */
const STOP_WORDS = ['charlie', 'delta', 'echo', 'foxtrot'];
const FIFTH = 'golf';
/** Straddles two words of the text, so no single token of it holds the whole sequence. */
const SPLIT_STOP = 'vo char';
const DOCUMENT_LIMIT = 4;

/** The reproducible request; temperature 0 is left out only where the catalog declares the model's
 * parameters without it. */
async function repeatBody(ctx: CheckContext, model: string, extra: ChatBody = {}): Promise<ChatBody> {
  const params = declaredParameters((await catalog(ctx)).entries.get(model));
  const temperature = !params || 'temperature' in params ? { temperature: 0 } : {};
  return { model, messages: [{ role: 'user', content: REPEAT_PROMPT }], seed: 7, ...temperature, max_tokens: 128, ...extra };
}

const repeat = async (ctx: CheckContext, model: string, extra: ChatBody, label: string) => chat(ctx, await repeatBody(ctx, model, extra), { label });

const show = (v: unknown) => (v === undefined ? 'absent' : JSON.stringify(v));

const underTest = async (ctx: CheckContext, rule: (model: string) => Promise<Verdict>) => onEachModel(await modelsUnderTest(ctx), rule);

/** Array sizes to send: 1 up to the document's 4, or fewer where the catalog declares fewer. */
async function arraySizes(ctx: CheckContext, model: string): Promise<{ sizes: number[]; declared?: number }> {
  const declared = declaredParameters((await catalog(ctx)).entries.get(model))?.stop?.max_items;
  const n = typeof declared === 'number' && declared >= 1 ? Math.min(DOCUMENT_LIMIT, Math.floor(declared)) : DOCUMENT_LIMIT;
  return { sizes: Array.from({ length: n }, (_, i) => i + 1), declared: typeof declared === 'number' ? declared : undefined };
}

const withString = (ctx: CheckContext, model: string) => repeat(ctx, model, { stop: STOP_WORDS[0] }, 'stop as a string');
const withArray = (ctx: CheckContext, model: string, size: number) => repeat(ctx, model, { stop: STOP_WORDS.slice(0, size) }, `stop as an array of ${size}`);
const withFive = (ctx: CheckContext, model: string) => repeat(ctx, model, { stop: [...STOP_WORDS, FIFTH] }, 'stop as an array of 5');

function errorText(ex: Exchange): string {
  const json = bodyJson(ex);
  const message = json.ok ? (json.value as { error?: { message?: unknown } })?.error?.message : undefined;
  return typeof message === 'string' ? ` (${message})` : '';
}

export const stopString: ApiCheck = {
  id: 'stop.string',
  suite: 'stop',
  title: 'stop is accepted as a string',
  section: '2.1',
  level: 'must',
  run: (ctx) =>
    underTest(ctx, async (model) => {
      const ex = await withString(ctx, model);
      return is2xx(ex) ? pass() : fail(`stop: "${STOP_WORDS[0]}" was refused: ${describe(ex)}${errorText(ex)}`);
    }),
};

export const stopArray: ApiCheck = {
  id: 'stop.array',
  suite: 'stop',
  title: 'stop is accepted as an array of 1 to 4 strings',
  section: '2.1, 8',
  level: 'must',
  run: (ctx) =>
    underTest(ctx, async (model) => {
      const { sizes, declared } = await arraySizes(ctx, model);
      const refused: string[] = [];
      for (const size of sizes) {
        const ex = await withArray(ctx, model, size);
        if (!is2xx(ex)) refused.push(`an array of ${size} was refused: ${describe(ex)}${errorText(ex)}`);
      }
      if (refused.length) return fail(refused.join('; '));
      return pass(declared !== undefined && declared < DOCUMENT_LIMIT ? [`the catalog declares stop.max_items ${declared}, so arrays of up to ${sizes.length} were sent`] : undefined);
    }),
};

export const notInContent: ApiCheck = {
  id: 'stop.not-in-content',
  suite: 'stop',
  title: 'The content never contains a stop sequence that was sent',
  section: '2.1',
  level: 'must',
  run: (ctx) =>
    underTest(ctx, async (model) => {
      const { sizes } = await arraySizes(ctx, model);
      const subjects: { sent: string | string[]; ex: Promise<Exchange> }[] = [
        { sent: STOP_WORDS[0], ex: withString(ctx, model) },
        ...sizes.map((size) => ({ sent: STOP_WORDS.slice(0, size), ex: withArray(ctx, model, size) })),
      ];
      const verdicts: Verdict[] = [];
      for (const { sent, ex } of subjects) {
        const reply = readReply(await ex);
        const stops = [sent].flat();
        const what = `with stop ${JSON.stringify(sent)}`;
        if (!reply.body) verdicts.push(notTested(`the request ${what} gave no readable response: ${reply.problem}`));
        else if (typeof reply.message?.content !== 'string') verdicts.push(notTested(`the answer ${what} has no text content`));
        else {
          const content = reply.message.content;
          const found = stops.filter((s) => content.includes(s));
          verdicts.push(found.length ? fail(`the answer ${what} contains ${found.map((s) => `"${s}"`).join(', ')}: ${JSON.stringify(content)}`) : pass());
        }
      }
      return combine(verdicts);
    }),
};

/** The answer without a stop sequence, when it reproduces: the same under two seeds, so a stopped
 * answer can be compared with it. */
async function reproducible(ctx: CheckContext, model: string, stop: string): Promise<{ content: string } | { verdict: Verdict }> {
  const [a, b] = await Promise.all([repeat(ctx, model, {}, 'reproducible answer (seed 7)'), repeat(ctx, model, { seed: 8 }, 'reproducible answer (seed 8)')]);
  const contents = [readReply(a), readReply(b)].map((r) => r.message?.content);
  if (typeof contents[0] !== 'string' || typeof contents[1] !== 'string') return { verdict: notTested(`the request without stop gave no text content: ${readReply(a).problem ?? readReply(b).problem ?? 'content is not a string'}`) };
  if (contents[0] !== contents[1]) return { verdict: notTested(`output does not reproduce: seed 7 and seed 8 at temperature 0 gave ${JSON.stringify(contents[0])} and ${JSON.stringify(contents[1])}`) };
  if (!contents[0].includes(stop)) return { verdict: notTested(`the answer without stop does not contain "${stop}": ${JSON.stringify(contents[0])}`) };
  return { content: contents[0] };
}

export const exactPrefix: ApiCheck = {
  id: 'stop.exact-prefix',
  suite: 'stop',
  title: 'A stop sequence ends the content exactly before its first occurrence, with finish_reason "stop"',
  section: '2.1, 4.1',
  level: 'should',
  convention: 'The document says generation stops at a stop sequence; that the content is exactly the text before it is the convention.',
  run: (ctx) =>
    underTest(ctx, async (model) => {
      const stop = STOP_WORDS[0];
      const base = await reproducible(ctx, model, stop);
      if ('verdict' in base) return base.verdict;
      const expected = base.content.slice(0, base.content.indexOf(stop));
      const reply = readReply(await withArray(ctx, model, 1));
      if (!reply.body) return notTested(`the request with stop ["${stop}"] gave no readable response: ${reply.problem} (see stop.array)`);
      const wrong: string[] = [];
      if (reply.message?.content !== expected) wrong.push(`content is ${show(reply.message?.content)}, not ${JSON.stringify(expected)} (the unstopped answer up to "${stop}")`);
      if (reply.finishReason !== 'stop') wrong.push(`finish_reason is ${show(reply.finishReason)}, not "stop"`);
      return wrong.length ? fail(wrong.join('; ')) : pass();
    }),
};

export const streamSplit: ApiCheck = {
  id: 'stop.stream-split',
  suite: 'stop',
  title: 'Streamed, a stop sequence spanning two tokens still ends the content before it',
  section: '2.1, 6',
  level: 'should',
  convention: 'Stop sequences match the generated text, not single tokens, in a stream as in one response.',
  run: (ctx) =>
    underTest(ctx, async (model) => {
      const base = await reproducible(ctx, model, SPLIT_STOP);
      if ('verdict' in base) return base.verdict;
      const expected = base.content.slice(0, base.content.indexOf(SPLIT_STOP));
      const ex = await repeat(ctx, model, { stop: [SPLIT_STOP], stream: true }, 'streamed, with a stop sequence across two tokens');
      if (!is2xx(ex)) return notTested(`the streamed request with stop ["${SPLIT_STOP}"] was refused: ${describe(ex)}${errorText(ex)}`);
      const content = streamedContent(ex);
      if (content === undefined) return fail('the stream holds no JSON chunk');
      if (content.includes(SPLIT_STOP)) return fail(`the streamed content contains the stop sequence "${SPLIT_STOP}": ${JSON.stringify(content)}`);
      return content === expected ? pass() : fail(`the streamed content is ${JSON.stringify(content)}, not ${JSON.stringify(expected)} (the unstopped answer up to "${SPLIT_STOP}")`);
    }),
};

/** choices[0].delta.content of every JSON chunk, joined; undefined when no chunk is JSON. */
function streamedContent(ex: Exchange): string | undefined {
  let content: string | undefined;
  for (const event of bodySse(ex).events) {
    let chunk: unknown;
    try {
      chunk = JSON.parse(event.data);
    } catch {
      continue; // [DONE], or a framing fault the stream suite reports
    }
    const piece = (chunk as { choices?: { delta?: { content?: unknown } }[] })?.choices?.[0]?.delta?.content;
    content = (content ?? '') + (typeof piece === 'string' ? piece : '');
  }
  return content;
}

export const fiveRefused: ApiCheck = {
  id: 'stop.five-refused',
  suite: 'stop',
  title: 'Five stop sequences are refused (at most 4)',
  section: '8',
  level: 'must',
  run: (ctx) =>
    underTest(ctx, async (model) => {
      const ex = await withFive(ctx, model);
      if (ex.status === undefined) return fail(`five stop sequences got no answer: ${describe(ex)}`);
      return is2xx(ex) ? fail(`five stop sequences were accepted (${describe(ex)}); section 8 allows at most ${DOCUMENT_LIMIT}`) : pass();
    }),
};

export const five4xx: ApiCheck = {
  id: 'stop.five-4xx',
  suite: 'stop',
  title: 'Five stop sequences are refused with a 4xx and a JSON error body',
  section: '8, 7',
  level: 'should',
  convention: 'The document leaves error statuses and bodies unshown (7); the convention is a 4xx with {"error": {"message": ...}}.',
  run: (ctx) =>
    underTest(ctx, async (model) => {
      const ex = await withFive(ctx, model);
      if (!is4xx(ex)) return fail(`five stop sequences got ${describe(ex)}, not a 4xx`);
      const json = bodyJson(ex);
      if (!json.ok) return fail(`the error body: ${json.error}`);
      const v = validError(json.value);
      return v.ok ? pass() : fail(`the error body does not match the convention: ${v.errors.join('; ')}`);
    }),
};

export const STOP: ApiCheck[] = [stopString, stopArray, notInContent, exactPrefix, streamSplit, fiveRefused, five4xx];
