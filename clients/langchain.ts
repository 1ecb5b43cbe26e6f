// LangChain (`@langchain/openai` ChatOpenAI, with `@langchain/core`), as its documentation writes each
// flow: invoke, .stream() chunks concatenated (usage_metadata with streamUsage), bindTools and
// tool_calls with the ToolMessage the tool makes, withStructuredOutput, and the errors it passes on
// from the openai client it wraps (with its lc_error_code). ChatOpenAI lists no models. Never
// `streaming: true` with invoke(): that path counts tokens with tiktoken, whose encodings it fetches.
import { fail, failIfAny, pass } from '../engine/check.js';
import { CAPS, FIVE_STOPS, PROMPTS, personSchema, STOP_WORD, WEATHER_DESCRIPTION, WEATHER_RESULT, withRoom } from './asks.js';
import { ABORT_GRACE_MS, abortGrace, RETRY_AFTER_MS, retried, thrown, WRONG_KEY } from './common.js';
import { expectations, isCount, shown, thrownName, type Client, type FlowContext } from './flow.js';

type Sdk = {
  ChatOpenAI: typeof import('@langchain/openai').ChatOpenAI;
  tool: typeof import('@langchain/core/tools').tool;
  HumanMessage: typeof import('@langchain/core/messages').HumanMessage;
  z: typeof import('zod').z;
};
type AIMessage = import('@langchain/core/messages').AIMessage;
type Usage = NonNullable<AIMessage['usage_metadata']>;

/** ChatOpenAI as the docs make one for an OpenAI-compatible server: usage asked for on streams (the
 * default, said), no retries but in the retry flow. */
const chatOf = (sdk: Sdk, ctx: FlowContext, maxTokens: number, opts: { apiKey?: string; maxRetries?: number } = {}) =>
  new sdk.ChatOpenAI({
    model: ctx.model,
    apiKey: opts.apiKey ?? ctx.apiKey,
    maxTokens,
    maxRetries: opts.maxRetries ?? 0,
    timeout: ctx.timeoutMs,
    streamUsage: true,
    // The openai client inside logs what it also throws: off, the flow says it.
    configuration: { baseURL: ctx.baseURL, fetch: ctx.fetch, defaultHeaders: ctx.headers, logLevel: 'off' },
  });

const finishOf = (m: AIMessage) => m.response_metadata?.finish_reason as unknown;
const cutOf = (m: AIMessage) => ({ cut: finishOf(m) === 'length', reasoning: m.usage_metadata?.output_token_details?.reasoning });

/** usage_metadata as LangChain maps it: input, output and total tokens, the total their sum. */
function usageWrong(u: Usage | undefined, want: (ok: boolean, wrong: string) => void): void {
  if (!u) {
    want(false, `usage_metadata is ${shown(u)}`);
    return;
  }
  want(isCount(u.input_tokens) && isCount(u.output_tokens) && isCount(u.total_tokens), `usage_metadata is not three token counts: ${shown(u)}`);
  want(u.total_tokens === u.input_tokens + u.output_tokens, `usage_metadata.total_tokens ${u.total_tokens} is not input_tokens + output_tokens (${u.input_tokens} + ${u.output_tokens})`);
}

/** A finished message as LangChain gives it: text content, finish_reason "stop", usage_metadata. */
function answered(m: AIMessage, what: string): string[] {
  const { want, wrong } = expectations();
  want(typeof m.content === 'string' && m.content.length > 0, `${what}: content is ${shown(m.content)}, not text`);
  want(finishOf(m) === 'stop', `${what}: response_metadata.finish_reason is ${shown(finishOf(m))}, not "stop"`);
  usageWrong(m.usage_metadata, (ok, w) => want(ok, `${what}: ${w}`));
  return wrong;
}

/** The chunks of a .stream(), concatenated as the docs do. */
async function joined(stream: AsyncIterable<AIMessage & { concat(c: unknown): unknown }>): Promise<AIMessage | undefined> {
  let final: (AIMessage & { concat(c: unknown): unknown }) | undefined;
  for await (const chunk of stream) final = final ? (final.concat(chunk) as typeof final) : chunk;
  return final;
}

/** An error LangChain passes on for a refusal: the openai client's class, its status, and its lc_error_code. */
function refusal(e: unknown, status: number, cls: string, code: string | undefined, what: string) {
  if (e === undefined) return fail(`${what} was served: nothing was thrown`);
  const { want, wrong } = expectations();
  const err = e as { status?: unknown; lc_error_code?: unknown; constructor?: { name?: string } };
  want(err.constructor?.name === cls && err.status === status, `threw ${thrownName(e)}${err.status !== undefined ? ` (status ${err.status})` : ''}, not ${cls} (${status})`);
  if (code) want(err.lc_error_code === code, `its lc_error_code is ${shown(err.lc_error_code)}, not ${code}`);
  return failIfAny(wrong);
}

export const LANGCHAIN: Client<Sdk> = {
  name: 'langchain',
  title: 'LangChain (@langchain/openai)',
  packages: ['@langchain/openai', '@langchain/core', 'zod'],
  load: async () => {
    // No run is traced to LangSmith, whatever the environment says: the flows' exchanges stay here.
    process.env.LANGSMITH_TRACING = 'false';
    process.env.LANGCHAIN_TRACING_V2 = 'false';
    const [openai, tools, messages, zod] = await Promise.all([import('@langchain/openai'), import('@langchain/core/tools'), import('@langchain/core/messages'), import('zod')]);
    return { ChatOpenAI: openai.ChatOpenAI, tool: tools.tool, HumanMessage: messages.HumanMessage, z: zod.z };
  },
  absent: { models: 'ChatOpenAI lists no models' },
  flows: [
    {
      name: 'completion',
      does: 'invoke(): content, response_metadata.finish_reason, usage_metadata',
      rests: [
        'chat.max-tokens',
        'chat.role.user',
        'chat.stream-false',
        'chat.served-when-valid',
        'chat.assistant-role',
        'chat.finish-reason',
        'chat.natural-stop',
        'chat.usage',
        'chat.usage-total',
        'chat.length-only-at-cap',
      ],
      async run(sdk, ctx) {
        const m = await withRoom(CAPS.completion, (cap) => chatOf(sdk, ctx, cap).invoke(PROMPTS.count), cutOf);
        return failIfAny(answered(m, 'the answer'));
      },
    },
    {
      name: 'stream',
      does: '.stream() with streamUsage: the chunks concatenated, with usage_metadata and finish_reason',
      rests: [
        'chat.max-tokens',
        'chat.role.user',
        'stream.content-type',
        'stream.events',
        'stream.complete',
        'stream.chunk-json',
        'stream.chunk-schema',
        'stream.first-delta-role',
        'stream.one-finish-reason',
        'chat.finish-reason',
        'chat.natural-stop',
        'usage.stream-present',
        'usage.stream-total',
        'chat.length-only-at-cap',
      ],
      async run(sdk, ctx) {
        let chunks = 0;
        const m = await withRoom(
          CAPS.stream,
          async (cap) => {
            chunks = 0;
            const s = await chatOf(sdk, ctx, cap).stream(PROMPTS.count);
            const counted = (async function* () {
              for await (const c of s) {
                chunks++;
                yield c;
              }
            })();
            return (await joined(counted as never)) ?? ({ content: '', response_metadata: {} } as unknown as AIMessage);
          },
          cutOf,
        );
        if (!chunks) return fail('.stream() gave no chunk');
        return failIfAny(answered(m, 'the concatenated chunks'));
      },
    },
    {
      name: 'tools',
      does: 'bindTools([tool]) and invoke(): tool_calls; the ToolMessage tool.invoke(call) makes, sent back; the answer',
      rests: [
        'chat.max-tokens',
        'tools.call-valid',
        'tools.result-answered',
        'chat.role.tool',
        'chat.stream-false',
        'chat.assistant-role',
        'chat.content',
        'chat.finish-reason',
        'chat.natural-stop',
        'chat.usage',
        'chat.usage-total',
        'chat.length-only-at-cap',
      ],
      async run(sdk, ctx) {
        const Weather = sdk.z.object({ city: sdk.z.string(), unit: sdk.z.enum(['celsius', 'fahrenheit']), days: sdk.z.number().int().min(1).max(7) });
        const getWeather = sdk.tool(async () => WEATHER_RESULT, { name: 'get_weather', description: WEATHER_DESCRIPTION, schema: Weather });
        const question = new sdk.HumanMessage(PROMPTS.weather);
        const first = await withRoom(CAPS.tools, (cap) => chatOf(sdk, ctx, cap).bindTools([getWeather]).invoke([question]), cutOf);
        const call = first.tool_calls?.[0];
        // As the docs read it: the message's tool_calls, whatever the finish_reason says.
        if (call?.name !== 'get_weather')
          return fail(
            `the weather question was answered with finish_reason ${shown(finishOf(first))} and tool_calls ${shown(first.tool_calls)}${first.invalid_tool_calls?.length ? ` (invalid_tool_calls ${shown(first.invalid_tool_calls)})` : ''}, not a call of get_weather`,
          );
        const result = await getWeather.invoke(call);
        const second = await withRoom(CAPS.toolResult, (cap) => chatOf(sdk, ctx, cap).bindTools([getWeather]).invoke([question, first, result]), cutOf);
        return failIfAny(answered(second, 'the answer to the tool result'));
      },
    },
    {
      name: 'structured',
      does: 'withStructuredOutput(zod schema, { includeRaw: true }).invoke(): parsed',
      rests: ['chat.max-tokens', 'structured.json-schema', 'chat.natural-stop', 'chat.stream-false', 'chat.length-only-at-cap'],
      async run(sdk, ctx) {
        const Person = personSchema(sdk.z);
        const r = await withRoom(
          CAPS.structured,
          (cap) => chatOf(sdk, ctx, cap).withStructuredOutput(Person, { name: 'person', includeRaw: true }).invoke(PROMPTS.person),
          (a) => cutOf(a.raw as AIMessage),
        );
        if (finishOf(r.raw as AIMessage) === 'length') return fail('the answer was cut by maxTokens, even with room for reasoning');
        const check = Person.safeParse(r.parsed);
        return check.success
          ? pass()
          : fail(`parsed is ${shown(r.parsed)}, not a person: ${check.error.issues.map((i: { path: PropertyKey[]; message: string }) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      },
    },
    {
      name: 'stop',
      does: 'invoke() with stop: the content ends before the sequence, finish_reason "stop"',
      rests: ['chat.max-tokens', 'stop.array', 'stop.ends-generation', 'stop.finish-reason', 'stop.not-in-content', 'chat.length-only-at-cap', 'chat.stream-false'],
      async run(sdk, ctx) {
        const m = await withRoom(CAPS.stop, (cap) => chatOf(sdk, ctx, cap).invoke(PROMPTS.repeat, { stop: [STOP_WORD] }), cutOf);
        const { want, wrong } = expectations();
        want(typeof m.content === 'string', `content is ${shown(m.content)}, not text`);
        want(!String(m.content).includes(STOP_WORD), `the content holds the stop sequence "${STOP_WORD}": ${shown(m.content)}`);
        want(finishOf(m) === 'stop', `response_metadata.finish_reason is ${shown(finishOf(m))}, not "stop"`);
        return failIfAny(wrong);
      },
    },
    {
      name: 'max-tokens',
      does: 'ChatOpenAI with a small maxTokens, invoke(): finish_reason "length", usage_metadata within the cap',
      rests: ['chat.max-tokens', 'chat.finish-reason', 'chat.usage', 'chat.assistant-role', 'chat.stream-false'],
      async run(sdk, ctx) {
        const m = await chatOf(sdk, ctx, CAPS.maxTokens).invoke(PROMPTS.essay);
        const { want, wrong } = expectations();
        want(finishOf(m) === 'length', `an essay asked with maxTokens ${CAPS.maxTokens} ended with finish_reason ${shown(finishOf(m))}, not "length"`);
        const spent = m.usage_metadata?.output_tokens;
        want(isCount(spent) && spent <= CAPS.maxTokens, `usage_metadata.output_tokens is ${shown(spent)}, not within maxTokens ${CAPS.maxTokens}`);
        return failIfAny(wrong);
      },
    },
    {
      name: 'auth-error',
      does: 'ChatOpenAI with a wrong key: invoke() throws AuthenticationError (401), lc_error_code MODEL_AUTHENTICATION',
      rests: ['auth.chat.wrong-key', 'auth.status-401'],
      async run(sdk, ctx) {
        const e = await thrown(() => chatOf(sdk, ctx, CAPS.small, { apiKey: WRONG_KEY }).invoke(PROMPTS.ok));
        return refusal(e, 401, 'AuthenticationError', 'MODEL_AUTHENTICATION', 'a wrong key');
      },
    },
    {
      name: 'bad-request',
      does: 'invoke() with five stop sequences throws BadRequestError (400)',
      rests: ['stop.five-refused', 'stop.five-4xx', 'stop.array'],
      async run(sdk, ctx) {
        const e = await thrown(() => chatOf(sdk, ctx, CAPS.small).invoke(PROMPTS.ok, { stop: FIVE_STOPS }));
        return refusal(e, 400, 'BadRequestError', undefined, 'five stop sequences');
      },
    },
    {
      name: 'abort',
      does: '.stream() with a signal, aborted at the first chunk with content: the loop throws AbortError',
      rests: ['stream.content-type', 'stream.events', 'chat.max-tokens', 'usage.stream-present', 'stream.chunk-schema'],
      async run(sdk, ctx) {
        const controller = new AbortController();
        const grace = abortGrace(ctx);
        const ended = await thrown(async () => {
          for await (const chunk of await chatOf(sdk, ctx, CAPS.abort).stream(PROMPTS.essay, { signal: controller.signal }))
            if (chunk.content && !controller.signal.aborted) {
              grace.started();
              controller.abort();
            }
        }, grace);
        if (!controller.signal.aborted) return fail(`no content came to abort the stream at${ended ? `: ${thrownName(ended)}` : ''}`);
        const { want, wrong } = expectations();
        want(ended !== 'hang', `the stream did not end within ${ABORT_GRACE_MS} ms of the abort`);
        want(
          ended === 'hang' || (ended as Error)?.name === 'AbortError' || (ended as Error)?.message?.includes('Abort'),
          `the loop ${ended === undefined ? 'ended' : `threw ${thrownName(ended)}`} after the abort, not with an AbortError`,
        );
        return failIfAny(wrong);
      },
    },
    {
      name: 'retry',
      does: `a 429 with Retry-After (${RETRY_AFTER_MS} ms): ChatOpenAI with maxRetries 2 retries it (its own AsyncCaller)`,
      rests: ['chat.max-tokens', 'chat.role.user', 'chat.served-when-valid', 'chat.stream-false'],
      async run(sdk, ctx) {
        ctx.busyOnce(RETRY_AFTER_MS);
        const m = await chatOf(sdk, ctx, CAPS.completion, { maxRetries: 2 }).invoke(PROMPTS.count);
        return retried(ctx, m !== undefined, 'invoke() resolved');
      },
    },
  ],
};
