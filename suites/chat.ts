// Sections 2.1 to 2.3, 4.1 and 8: the chat completion, the roles of its conversation, its response
// and the token limit.
import { enumAt, schemaAt, validator } from '../schemas/index.js';
import {
  catalog,
  chat,
  declaredParameters,
  describe,
  is2xx,
  modelIds,
  modelsUnderTest,
  onEachModel,
  readReply,
  type ApiCheck,
  type ChatBody,
} from './api.js';
import { fail, notTested, pass, type Verdict } from './harness/check.js';
import { bodyJson, type Exchange } from './harness/exchanges.js';
import type { CheckContext } from './harness/runner.js';

const validResponse = validator('response');
const validUsage = validator('response#/$defs/usage');
const OBJECT = schemaAt('response#/properties/object').const;
const ASSISTANT = schemaAt('response#/$defs/assistantMessage/properties/role').const;
const FINISH_REASONS = enumAt('response#/$defs/finishReason');

const GREETING = 'Say hello in one short sentence.';
const BASIC_CAP = 64;

/** The one ordinary request: every check about an ordinary answer reads the same reply. */
const basicBody = (model: string): ChatBody => ({ model, messages: [{ role: 'user', content: GREETING }], max_tokens: BASIC_CAP });
const basic = (ctx: CheckContext, model: string) => chat(ctx, basicBody(model), { label: 'basic chat completion' });
const streamFalse = (ctx: CheckContext, model: string) => chat(ctx, { ...basicBody(model), stream: false }, { label: 'chat completion with stream: false' });

const underTest = async (ctx: CheckContext, rule: (model: string) => Promise<Verdict>) => onEachModel(await modelsUnderTest(ctx), rule);

/** A rule about the basic reply's body, which must be there to be judged. */
const onBasicBody = (ctx: CheckContext, rule: (body: Record<string, unknown>) => Verdict) =>
  underTest(ctx, async (model) => {
    const reply = readReply(await basic(ctx, model));
    return reply.body ? rule(reply.body) : fail(`the basic request gave no readable response: ${reply.problem}`);
  });

const choicesOf = (body: Record<string, unknown>) => (Array.isArray(body.choices) ? (body.choices as Record<string, unknown>[]) : []);
const show = (v: unknown) => (v === undefined ? 'absent' : JSON.stringify(v));

// --- 2.1, 2.2: the roles of a conversation --------------------------------------------------------

const TIME_TOOL = {
  type: 'function',
  function: { name: 'get_time', description: 'The current time of day.', parameters: { type: 'object', properties: {} } },
};
const TIME_CALL = { id: 'call_get_time_1', type: 'function', function: { name: 'get_time', arguments: '{}' } };

/** Each role in the smallest conversation where it is valid. */
const CONVERSATIONS: Record<string, (model: string) => ChatBody> = {
  system: (model) => ({ model, messages: [{ role: 'system', content: 'You are a concise assistant.' }, { role: 'user', content: GREETING }], max_tokens: BASIC_CAP }),
  developer: (model) => ({ model, messages: [{ role: 'developer', content: 'Answer concisely.' }, { role: 'user', content: GREETING }], max_tokens: BASIC_CAP }),
  user: basicBody,
  assistant: (model) => ({
    model,
    messages: [{ role: 'user', content: GREETING }, { role: 'assistant', content: 'Hello there!' }, { role: 'user', content: 'Now say goodbye in one short sentence.' }],
    max_tokens: BASIC_CAP,
  }),
  // A tool message only answers an assistant's call, whose function the request offers.
  tool: (model) => ({
    model,
    messages: [
      { role: 'user', content: 'What time is it? Use get_time.' },
      { role: 'assistant', content: null, tool_calls: [TIME_CALL] },
      { role: 'tool', tool_call_id: TIME_CALL.id, content: '{"time":"12:00"}' },
    ],
    tools: [TIME_TOOL],
    max_tokens: BASIC_CAP,
  }),
};

const ROLE_TITLES: Record<string, string> = {
  system: 'A conversation that opens with a system message is accepted',
  developer: 'A conversation that opens with a developer message is accepted',
  user: 'A conversation of one user message is accepted',
  assistant: 'A conversation with an assistant message between two user messages is accepted',
  tool: "A tool message answering the assistant's tool call (tool_call_id matching) is accepted",
};

const roleCheck = (role: string): ApiCheck => ({
  id: `chat.role.${role}`,
  suite: 'chat',
  title: ROLE_TITLES[role],
  section: '2.1, 2.2',
  level: 'must',
  run: (ctx) =>
    underTest(ctx, async (model) => {
      if (role === 'tool') {
        const params = declaredParameters((await catalog(ctx)).entries.get(model));
        if (params && !('tools' in params)) return notTested('the catalog does not declare tools for this model, and a tool message needs a tool call');
      }
      const ex = await chat(ctx, CONVERSATIONS[role](model), { label: `conversation with a ${role} message` });
      return is2xx(ex) ? pass() : fail(`a valid conversation with a ${role} message was refused: ${describe(ex)}${errorText(ex)}`);
    }),
});

function errorText(ex: Exchange): string {
  const json = bodyJson(ex);
  const message = json.ok ? (json.value as { error?: { message?: unknown } })?.error?.message : undefined;
  return typeof message === 'string' ? ` (${message})` : '';
}

// --- 2.1, 8: max_tokens caps the generated tokens, reasoning included ----------------------------

const LONG_PROMPT = 'Write a long, detailed essay about the history of computing.';

/** The models under test, and every reasoning model of the primary key (one that declares
 * reasoning_effort), so the reasoning budget is held to the cap too. */
async function cappedModels(ctx: CheckContext): Promise<{ models: string[]; problem?: string }> {
  const [under, listed, cat] = await Promise.all([modelsUnderTest(ctx), modelIds(ctx, 'primary'), catalog(ctx)]);
  const reasoning = listed.ids.filter((id) => declaredParameters(cat.entries.get(id))?.reasoning_effort !== undefined);
  return { models: [...new Set([...under.models, ...reasoning])], problem: under.problem };
}

/** The smallest cap the model allows: an essay is sure to reach it. */
async function smallestCap(ctx: CheckContext, model: string): Promise<number> {
  const min = declaredParameters((await catalog(ctx)).entries.get(model))?.max_tokens?.min;
  return Math.max(1, typeof min === 'number' && Number.isFinite(min) ? Math.ceil(min) : 1);
}

async function capped(ctx: CheckContext, model: string): Promise<{ ex: Exchange; cap: number }> {
  const cap = await smallestCap(ctx, model);
  const ex = await chat(ctx, { model, messages: [{ role: 'user', content: LONG_PROMPT }], max_tokens: cap }, { label: `long essay with max_tokens ${cap}` });
  return { ex, cap };
}

export const maxTokens: ApiCheck = {
  id: 'chat.max-tokens',
  suite: 'chat',
  title: 'max_tokens caps the generated tokens, reasoning tokens included: an essay cut by it ends with finish_reason "length"',
  section: '2.1, 8',
  level: 'must',
  run: async (ctx) =>
    onEachModel(await cappedModels(ctx), async (model) => {
      const { ex, cap } = await capped(ctx, model);
      const reply = readReply(ex);
      if (!reply.body) return fail(`a long essay with max_tokens ${cap} gave no readable response: ${reply.problem}`);
      const wrong: string[] = [];
      if (reply.finishReason !== 'length') wrong.push(`finish_reason is ${show(reply.finishReason)}, not "length", for a long essay asked with max_tokens ${cap}`);
      const spent = reply.usage?.completion_tokens;
      if (typeof spent !== 'number') {
        // Usage is chat.usage's to fail; without it only finish_reason can be judged here.
        const unverified = `usage.completion_tokens is ${show(spent)}, so the cap cannot be verified (see chat.usage)`;
        return wrong.length ? fail(`${wrong.join('; ')}; ${unverified}`) : notTested(unverified);
      }
      if (spent > cap) {
        const reasoning = (reply.usage?.completion_tokens_details as { reasoning_tokens?: unknown } | undefined)?.reasoning_tokens;
        wrong.push(`usage.completion_tokens ${spent} exceeds max_tokens ${cap}${typeof reasoning === 'number' && reasoning > 0 ? ` (reasoning_tokens ${reasoning}: they count within the cap)` : ''}`);
      }
      return wrong.length ? fail(wrong.join('; ')) : pass();
    }),
};

// --- 2.3: the response -----------------------------------------------------------------------------

export const responseShape: ApiCheck = {
  id: 'chat.response-shape',
  suite: 'chat',
  title: 'A chat completion answers a JSON response with id, object, created, model, choices and usage',
  section: '2.3',
  level: 'must',
  run: (ctx) =>
    underTest(ctx, async (model) => {
      const ex = await basic(ctx, model);
      if (!is2xx(ex)) return fail(`the basic request was refused: ${describe(ex)}${errorText(ex)}`);
      const json = bodyJson(ex);
      if (!json.ok) return fail(json.error);
      const v = validResponse(json.value);
      return v.ok ? pass() : fail(`the response does not match 2.3: ${v.errors.join('; ')}`);
    }),
};

export const objectConstant: ApiCheck = {
  id: 'chat.object',
  suite: 'chat',
  title: `The response's object is the constant "${OBJECT}"`,
  section: '2.3',
  level: 'must',
  run: (ctx) => onBasicBody(ctx, (body) => (body.object === OBJECT ? pass() : fail(`object is ${show(body.object)}, not "${OBJECT}"`))),
};

export const choiceIndex: ApiCheck = {
  id: 'chat.choice-index',
  suite: 'chat',
  title: "Each choice's index is its position in choices",
  section: '2.3',
  level: 'must',
  run: (ctx) =>
    onBasicBody(ctx, (body) => {
      const choices = choicesOf(body);
      if (!choices.length) return fail('the response has no choices');
      const wrong = choices.flatMap((c, i) => (c?.index === i ? [] : [`choices[${i}].index is ${show(c?.index)}`]));
      return wrong.length ? fail(wrong.join('; ')) : pass();
    }),
};

export const finishReason: ApiCheck = {
  id: 'chat.finish-reason',
  suite: 'chat',
  title: `Each choice's finish_reason is one of ${FINISH_REASONS.join(', ')}`,
  section: '2.3',
  level: 'must',
  run: (ctx) =>
    onBasicBody(ctx, (body) => {
      const choices = choicesOf(body);
      if (!choices.length) return fail('the response has no choices');
      const wrong = choices.flatMap((c, i) => (FINISH_REASONS.includes(c?.finish_reason) ? [] : [`choices[${i}].finish_reason is ${show(c?.finish_reason)}`]));
      return wrong.length ? fail(`${wrong.join('; ')}; 2.3 allows ${FINISH_REASONS.join(', ')}`) : pass();
    }),
};

export const assistantRole: ApiCheck = {
  id: 'chat.assistant-role',
  suite: 'chat',
  title: `Each choice's message has the role "${ASSISTANT}"`,
  section: '2.3',
  level: 'must',
  run: (ctx) =>
    onBasicBody(ctx, (body) => {
      const choices = choicesOf(body);
      if (!choices.length) return fail('the response has no choices');
      const wrong = choices.flatMap((c, i) => {
        const role = (c?.message as { role?: unknown } | undefined)?.role;
        return role === ASSISTANT ? [] : [`choices[${i}].message.role is ${show(role)}`];
      });
      return wrong.length ? fail(wrong.join('; ')) : pass();
    }),
};

export const usagePresent: ApiCheck = {
  id: 'chat.usage',
  suite: 'chat',
  title: 'The response carries usage with integer prompt_tokens, completion_tokens and total_tokens',
  section: '2.3',
  level: 'must',
  run: (ctx) =>
    onBasicBody(ctx, (body) => {
      if (body.usage === undefined || body.usage === null) return fail('the response has no usage');
      const v = validUsage(body.usage);
      return v.ok ? pass() : fail(`usage does not match 2.3: ${v.errors.join('; ')}`);
    }),
};

/** The three counts as numbers, or why the sum cannot be judged. */
const counts = (body: Record<string, unknown>) => {
  const u = (body.usage ?? undefined) as Record<string, unknown> | undefined;
  const [p, c, t] = [u?.prompt_tokens, u?.completion_tokens, u?.total_tokens];
  return typeof p === 'number' && typeof c === 'number' && typeof t === 'number' ? { p, c, t } : undefined;
};

export const usageTotal: ApiCheck = {
  id: 'chat.usage-total',
  suite: 'chat',
  title: 'usage.total_tokens is prompt_tokens + completion_tokens',
  section: '2.3',
  level: 'should',
  convention: 'The document lists total_tokens without defining it; the convention is the sum of prompt and completion tokens.',
  run: (ctx) =>
    onBasicBody(ctx, (body) => {
      const n = counts(body);
      if (!n) return notTested('usage has no numeric prompt_tokens, completion_tokens and total_tokens (see chat.usage)');
      return n.t === n.p + n.c ? pass() : fail(`total_tokens ${n.t} is not prompt_tokens ${n.p} + completion_tokens ${n.c} = ${n.p + n.c}`);
    }),
};

export const usageDetails: ApiCheck = {
  id: 'chat.usage-details',
  suite: 'chat',
  title: 'usage carries prompt_tokens_details.cached_tokens and completion_tokens_details.reasoning_tokens',
  section: '2.3',
  level: 'should',
  convention: 'The document lists the two details objects without saying whether they may be left out; OpenAI-compatible services always send them.',
  run: (ctx) =>
    onBasicBody(ctx, (body) => {
      const u = body.usage as Record<string, Record<string, unknown> | null | undefined> | undefined;
      if (!u || typeof u !== 'object') return notTested('the response has no usage (see chat.usage)');
      const wrong: string[] = [];
      const cached = u.prompt_tokens_details?.cached_tokens;
      const reasoning = u.completion_tokens_details?.reasoning_tokens;
      if (!Number.isInteger(cached)) wrong.push(`prompt_tokens_details.cached_tokens is ${show(cached)}, not an integer`);
      if (!Number.isInteger(reasoning)) wrong.push(`completion_tokens_details.reasoning_tokens is ${show(reasoning)}, not an integer`);
      return wrong.length ? fail(wrong.join('; ')) : pass();
    }),
};

// --- 4.1: the operation ----------------------------------------------------------------------------

export const streamFalseJson: ApiCheck = {
  id: 'chat.stream-false',
  suite: 'chat',
  title: `With stream: false the answer is one JSON ${OBJECT} body, not a stream`,
  section: '4.1',
  level: 'must',
  run: (ctx) =>
    underTest(ctx, async (model) => {
      const ex = await streamFalse(ctx, model);
      if (!is2xx(ex)) return fail(`the request with stream: false was refused: ${describe(ex)}${errorText(ex)}`);
      const wrong: string[] = [];
      const type = ex.headers['content-type'] ?? '';
      if (!/^application\/([\w.+-]+\+)?json\b/i.test(type)) wrong.push(`content-type is ${show(type || undefined)}, not JSON`);
      const json = bodyJson(ex);
      if (!json.ok) wrong.push(json.error);
      else if ((json.value as { object?: unknown })?.object !== OBJECT) wrong.push(`object is ${show((json.value as { object?: unknown })?.object)}, not "${OBJECT}"`);
      return wrong.length ? fail(wrong.join('; ')) : pass();
    }),
};

export const lengthOnlyAtCap: ApiCheck = {
  id: 'chat.length-only-at-cap',
  suite: 'chat',
  title: 'finish_reason is "length" only when the token limit was reached',
  section: '4.1',
  level: 'should',
  convention: 'Rule 2 ties "length" to the token limit; a context window can also end generation, which a short prompt never reaches.',
  run: async (ctx) => {
    const under = new Set((await modelsUnderTest(ctx)).models);
    return onEachModel(await cappedModels(ctx), async (model) => {
      const answers: { what: string; ex: Exchange; cap: number; short?: boolean }[] = [];
      const essay = await capped(ctx, model);
      answers.push({ what: `the essay with max_tokens ${essay.cap}`, ex: essay.ex, cap: essay.cap });
      if (under.has(model)) {
        answers.push({ what: `the short answer with max_tokens ${BASIC_CAP}`, ex: await basic(ctx, model), cap: BASIC_CAP, short: true });
        answers.push({ what: `the short answer with stream: false`, ex: await streamFalse(ctx, model), cap: BASIC_CAP, short: true });
      }
      const wrong: string[] = [];
      const notes: string[] = [];
      for (const { what, ex, cap, short } of answers) {
        const reply = readReply(ex);
        if (reply.finishReason !== 'length') continue;
        const spent = reply.usage?.completion_tokens;
        if (typeof spent === 'number' && spent < cap) wrong.push(`${what} ended with "length" after ${spent} completion tokens`);
        else if (short) {
          // A reasoning model may think its whole budget away before a one-line answer.
          const reasoning = (reply.usage?.completion_tokens_details as { reasoning_tokens?: unknown } | undefined)?.reasoning_tokens;
          if (typeof reasoning === 'number' && reasoning > 0) notes.push(`${what} used its budget, ${reasoning} tokens of it reasoning`);
          else wrong.push(`${what} (one sentence asked) ended with "length"`);
        }
      }
      return wrong.length ? fail(wrong.join('; ')) : pass(notes);
    });
  },
};

export const CHAT: ApiCheck[] = [
  ...['system', 'developer', 'user', 'assistant', 'tool'].map(roleCheck),
  maxTokens,
  responseShape,
  objectConstant,
  choiceIndex,
  finishReason,
  assistantRole,
  usagePresent,
  usageTotal,
  usageDetails,
  streamFalseJson,
  lengthOnlyAtCap,
];
