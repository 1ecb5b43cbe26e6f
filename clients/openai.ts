// The official `openai` Node SDK, as its README and the platform's guides write each flow: the
// client made with a baseURL, chat.completions.create, the stream helper with finalChatCompletion,
// the manual tool loop, parse with zodResponseFormat, and its error classes.
import { fail, failIfAny, pass } from '../engine/check.js';
import { CAPS, FIVE_STOPS, PROMPTS, personSchema, STOP_WORD, WEATHER_DESCRIPTION, WEATHER_PARAMETERS, WEATHER_RESULT, withRoom } from './asks.js';
import { expectations, isCount, shown, thrownName, type Client, type FlowContext } from './flow.js';
import { ABORT_GRACE_MS, abortGrace, RETRY_AFTER_MS, retried, thrown, WRONG_KEY } from './common.js';

type Sdk = {
  OpenAI: typeof import('openai').default;
  errors: typeof import('openai/error');
  zodResponseFormat: typeof import('openai/helpers/zod').zodResponseFormat;
  z: typeof import('zod').z;
};
type OpenAI = InstanceType<Sdk['OpenAI']>;
type Completion = import('openai').OpenAI.Chat.Completions.ChatCompletion;
type Message = import('openai').OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** A client as the README makes one for an OpenAI-compatible server; no retries but in the retry
 * flow; its log off (what it would log, a chunk it cannot parse, it also throws: the flow says it). */
const clientOf = (sdk: Sdk, ctx: FlowContext, opts: { apiKey?: string; maxRetries?: number } = {}): OpenAI =>
  new sdk.OpenAI({ apiKey: opts.apiKey ?? ctx.apiKey, baseURL: ctx.baseURL, fetch: ctx.fetch, timeout: ctx.timeoutMs, maxRetries: opts.maxRetries ?? 0, defaultHeaders: ctx.headers, logLevel: 'off' });

/** Cut by the cap, with the reasoning the answer counted: whether to ask again with room. */
const cutOf = (r: Pick<Completion, 'choices' | 'usage'>) => ({ cut: r.choices?.[0]?.finish_reason === 'length', reasoning: r.usage?.completion_tokens_details?.reasoning_tokens });

/** The usage as the SDK gives it: three counts, the total their sum. */
function usageWrong(u: Completion['usage'] | undefined | null, want: (ok: boolean, wrong: string) => void): void {
  if (!u) {
    want(false, `usage is ${shown(u)}`);
    return;
  }
  want(isCount(u.prompt_tokens) && isCount(u.completion_tokens) && isCount(u.total_tokens), `usage is not three token counts: ${shown(u)}`);
  want(u.total_tokens === u.prompt_tokens + u.completion_tokens, `usage.total_tokens ${u.total_tokens} is not prompt_tokens + completion_tokens (${u.prompt_tokens} + ${u.completion_tokens})`);
}

/** A finished answer as the SDK gives it: text, finish_reason "stop", usage. */
function answered(r: Completion, what: string): string[] {
  const { want, wrong } = expectations();
  const choice = r.choices?.[0];
  if (!choice) return [`${what}: choices[0] is ${shown(choice)}`];
  const content = choice.message?.content;
  want(typeof content === 'string' && content.length > 0, `${what}: message.content is ${shown(content)}, not text`);
  want(choice.finish_reason === 'stop', `${what}: finish_reason is ${shown(choice.finish_reason)}, not "stop"`);
  usageWrong(r.usage, (ok, w) => want(ok, `${what}: ${w}`));
  return wrong;
}

const user = (content: string): Message[] => [{ role: 'user', content }];

export const OPENAI: Client<Sdk> = {
  name: 'openai',
  title: 'openai (Node SDK)',
  packages: ['openai', 'zod'],
  load: async () => {
    const [openai, errors, helpers, zod] = await Promise.all([import('openai'), import('openai/error'), import('openai/helpers/zod'), import('zod')]);
    return { OpenAI: openai.default, errors, zodResponseFormat: helpers.zodResponseFormat, z: zod.z };
  },
  absent: {},
  flows: [
    {
      name: 'models',
      does: 'for await (const m of client.models.list()): each id, owned_by and created',
      once: true,
      rests: ['models.list-shape'],
      async run(sdk, ctx) {
        const models: Record<string, unknown>[] = [];
        for await (const m of clientOf(sdk, ctx).models.list()) models.push(m as unknown as Record<string, unknown>);
        const { want, wrong } = expectations();
        want(models.length > 0, 'models.list() gave no model');
        // What the SDK's Model type promises, and a model picker reads: id, owned_by, created.
        const off = models.find((m) => typeof m?.id !== 'string' || !m.id || typeof m.owned_by !== 'string' || !Number.isFinite(m.created));
        want(!off, `a model is not the SDK's Model (id, owned_by as text, created as a number): ${shown(off)}`);
        return failIfAny(wrong);
      },
    },
    {
      name: 'completion',
      does: 'chat.completions.create(): choices[0].message.content, finish_reason, usage',
      rests: ['chat.max-tokens', 'chat.role.user', 'chat.served-when-valid', 'chat.finish-reason', 'chat.natural-stop', 'chat.usage', 'chat.usage-total', 'chat.length-only-at-cap'],
      async run(sdk, ctx) {
        const c = clientOf(sdk, ctx);
        const r = await withRoom(CAPS.completion, (max_tokens) => c.chat.completions.create({ model: ctx.model, messages: user(PROMPTS.count), max_tokens }), cutOf);
        return failIfAny(answered(r, 'the answer'));
      },
    },
    {
      name: 'stream',
      does: "chat.completions.stream() with include_usage, its 'content' events, finalChatCompletion()",
      rests: [
        'chat.max-tokens',
        'chat.role.user',
        'stream.content-type',
        'stream.events',
        'stream.complete',
        'stream.chunk-json',
        'stream.first-delta-role',
        'chat.finish-reason',
        'chat.natural-stop',
        'usage.stream-present',
        'usage.stream-position',
        'usage.stream-total',
        'chat.length-only-at-cap',
      ],
      async run(sdk, ctx) {
        const c = clientOf(sdk, ctx);
        let deltas: string[] = [];
        const final = await withRoom(
          CAPS.stream,
          (max_tokens) => {
            deltas = [];
            const s = c.chat.completions.stream({ model: ctx.model, messages: user(PROMPTS.count), max_tokens, stream_options: { include_usage: true } });
            s.on('content', (d) => deltas.push(d));
            return s.finalChatCompletion();
          },
          cutOf,
        );
        const wrong = answered(final, 'the joined stream');
        const content = final.choices?.[0]?.message?.content;
        if (typeof content === 'string' && deltas.join('') !== content) wrong.push(`the 'content' events joined (${shown(deltas.join(''))}) are not the final message's content (${shown(content)})`);
        return failIfAny(wrong);
      },
    },
    {
      name: 'tools',
      does: 'chat.completions.create() with tools, message.tool_calls, the tool message sent back, the answer',
      rests: [
        'chat.max-tokens',
        'tools.call-valid',
        'tools.result-answered',
        'chat.role.tool',
        'chat.assistant-role',
        'chat.content',
        'chat.finish-reason',
        'chat.natural-stop',
        'chat.usage',
        'chat.usage-total',
        'chat.length-only-at-cap',
      ],
      async run(sdk, ctx) {
        const c = clientOf(sdk, ctx);
        const tools = [{ type: 'function' as const, function: { name: 'get_weather', description: WEATHER_DESCRIPTION, parameters: WEATHER_PARAMETERS as unknown as Record<string, unknown> } }];
        const messages = user(PROMPTS.weather);
        const first = await withRoom(CAPS.tools, (max_tokens) => c.chat.completions.create({ model: ctx.model, messages, tools, max_tokens }), cutOf);
        const message = first.choices?.[0]?.message;
        const call = message?.tool_calls?.[0];
        // As the guide's loop reads it: the message's tool_calls, each a function call (the SDK's type
        // is a union on `type`), whatever the finish_reason says.
        if (call?.type !== 'function' || call.function.name !== 'get_weather')
          return fail(
            `the weather question was answered with tool_calls ${shown(message?.tool_calls)} (finish_reason ${shown(first.choices?.[0]?.finish_reason)}), not a function call of get_weather`,
          );
        let args: unknown;
        try {
          args = JSON.parse(call.function.arguments);
        } catch {
          return fail(`get_weather's arguments are not JSON: ${shown(call.function.arguments)}`);
        }
        if (!args || typeof args !== 'object' || Array.isArray(args)) return fail(`get_weather's arguments are not an object: ${shown(args)}`);
        messages.push(message!, { role: 'tool', tool_call_id: call.id, content: WEATHER_RESULT });
        const second = await withRoom(CAPS.toolResult, (max_tokens) => c.chat.completions.create({ model: ctx.model, messages, tools, max_tokens }), cutOf);
        return failIfAny(answered(second, 'the answer to the tool result'));
      },
    },
    {
      name: 'structured',
      does: 'chat.completions.parse() with zodResponseFormat(Person): choices[0].message.parsed',
      rests: ['chat.max-tokens', 'structured.json-schema', 'chat.natural-stop', 'chat.length-only-at-cap'],
      async run(sdk, ctx) {
        const c = clientOf(sdk, ctx);
        const Person = personSchema(sdk.z);
        // parse() throws on an answer cut by the cap: that is the cut, asked again with room.
        const ask = async (max_tokens: number) => {
          try {
            const r = await c.chat.completions.parse({ model: ctx.model, messages: user(PROMPTS.person), response_format: sdk.zodResponseFormat(Person, 'person'), max_tokens });
            return { parsed: r.choices?.[0]?.message?.parsed as unknown, cut: false, reasoning: undefined };
          } catch (e) {
            if (!(e instanceof sdk.errors.LengthFinishReasonError)) throw e;
            const usage = (e as { completion?: Completion }).completion?.usage;
            return { parsed: undefined, cut: true, reasoning: usage?.completion_tokens_details?.reasoning_tokens, error: e };
          }
        };
        const r = await withRoom(CAPS.structured, ask, (a) => a);
        if (r.cut) return fail(`parse() threw ${thrownName(r.error)}: the answer was cut by max_tokens, even with room for reasoning`);
        const parsed = r.parsed;
        const check = Person.safeParse(parsed);
        return check.success
          ? pass()
          : fail(`message.parsed is ${shown(parsed)}, not a person: ${check.error.issues.map((i: { path: PropertyKey[]; message: string }) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      },
    },
    {
      name: 'stop',
      does: 'chat.completions.create() with stop: the text ends before the sequence, finish_reason "stop"',
      rests: ['chat.max-tokens', 'stop.array', 'stop.ends-generation', 'stop.finish-reason', 'stop.not-in-content', 'chat.length-only-at-cap'],
      async run(sdk, ctx) {
        const c = clientOf(sdk, ctx);
        const r = await withRoom(CAPS.stop, (max_tokens) => c.chat.completions.create({ model: ctx.model, messages: user(PROMPTS.repeat), stop: [STOP_WORD], max_tokens }), cutOf);
        const { want, wrong } = expectations();
        const content = r.choices?.[0]?.message?.content;
        want(typeof content === 'string', `message.content is ${shown(content)}, not text`);
        want(!String(content ?? '').includes(STOP_WORD), `the content holds the stop sequence "${STOP_WORD}": ${shown(content)}`);
        want(r.choices?.[0]?.finish_reason === 'stop', `finish_reason is ${shown(r.choices?.[0]?.finish_reason)}, not "stop"`);
        return failIfAny(wrong);
      },
    },
    {
      name: 'max-tokens',
      does: 'chat.completions.create() with a small max_tokens: finish_reason "length", usage within the cap',
      rests: ['chat.max-tokens', 'chat.finish-reason', 'chat.usage'],
      async run(sdk, ctx) {
        const r = await clientOf(sdk, ctx).chat.completions.create({ model: ctx.model, messages: user(PROMPTS.essay), max_tokens: CAPS.maxTokens });
        const { want, wrong } = expectations();
        want(r.choices?.[0]?.finish_reason === 'length', `an essay asked with max_tokens ${CAPS.maxTokens} ended with finish_reason ${shown(r.choices?.[0]?.finish_reason)}, not "length"`);
        const spent = r.usage?.completion_tokens;
        want(isCount(spent) && spent <= CAPS.maxTokens, `usage.completion_tokens is ${shown(spent)}, not within max_tokens ${CAPS.maxTokens}`);
        return failIfAny(wrong);
      },
    },
    {
      name: 'auth-error',
      does: 'a client made with a wrong key: chat.completions.create() throws AuthenticationError',
      rests: ['auth.chat.wrong-key', 'auth.status-401'],
      async run(sdk, ctx) {
        const e = await thrown(() => clientOf(sdk, ctx, { apiKey: WRONG_KEY }).chat.completions.create({ model: ctx.model, messages: user(PROMPTS.ok), max_tokens: CAPS.small }));
        if (e === undefined) return fail('a wrong key was served: nothing was thrown');
        return e instanceof sdk.errors.AuthenticationError ? pass() : fail(`threw ${thrownName(e)}${statusOf(e)}, not AuthenticationError`);
      },
    },
    {
      name: 'bad-request',
      does: 'chat.completions.create() with five stop sequences throws BadRequestError',
      rests: ['stop.five-refused', 'stop.five-4xx', 'stop.array'],
      async run(sdk, ctx) {
        const e = await thrown(() => clientOf(sdk, ctx).chat.completions.create({ model: ctx.model, messages: user(PROMPTS.ok), stop: FIVE_STOPS, max_tokens: CAPS.small }));
        if (e === undefined) return fail('five stop sequences were served: nothing was thrown');
        return e instanceof sdk.errors.BadRequestError ? pass() : fail(`threw ${thrownName(e)}${statusOf(e)}, not BadRequestError`);
      },
    },
    {
      name: 'abort',
      does: "chat.completions.stream(), stream.abort() at the first 'content' event: finalChatCompletion() rejects with APIUserAbortError",
      rests: ['stream.content-type', 'stream.events', 'chat.max-tokens', 'stream.first-delta-role', 'chat.served-when-valid'],
      async run(sdk, ctx) {
        const s = clientOf(sdk, ctx).chat.completions.stream({ model: ctx.model, messages: user(PROMPTS.essay), max_tokens: CAPS.abort });
        let abortedAt: number | undefined;
        const grace = abortGrace(ctx);
        s.on('content', () => {
          if (abortedAt !== undefined) return;
          abortedAt = performance.now();
          grace.started();
          s.abort();
        });
        const e = await thrown(() => s.finalChatCompletion(), grace);
        if (abortedAt === undefined) return fail(`no content came to abort the stream at${e ? `: ${thrownName(e)}` : ''}`);
        const { want, wrong } = expectations();
        want(e !== 'hang', `the stream did not end within ${ABORT_GRACE_MS} ms of stream.abort()`);
        want(e === 'hang' || e instanceof sdk.errors.APIUserAbortError, `finalChatCompletion() ${e === undefined ? 'resolved' : `threw ${thrownName(e)}`} after stream.abort(), not APIUserAbortError`);
        return failIfAny(wrong);
      },
    },
    {
      name: 'retry',
      does: `a 429 with Retry-After (retry-after-ms ${RETRY_AFTER_MS}): the client (maxRetries 2) waits and sends it again`,
      rests: ['chat.max-tokens', 'chat.role.user', 'chat.served-when-valid'],
      async run(sdk, ctx) {
        ctx.busyOnce(RETRY_AFTER_MS);
        const r = await clientOf(sdk, ctx, { maxRetries: 2 }).chat.completions.create({ model: ctx.model, messages: user(PROMPTS.count), max_tokens: CAPS.completion });
        return retried(ctx, Array.isArray(r.choices) && r.choices.length > 0, 'chat.completions.create() resolved');
      },
    },
  ],
};

const statusOf = (e: unknown) => ((e as { status?: unknown })?.status !== undefined ? ` (status ${(e as { status?: unknown }).status})` : '');
