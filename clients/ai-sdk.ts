// The Vercel AI SDK (`ai`) with its OpenAI-compatible provider (`@ai-sdk/openai-compatible`), as its
// documentation writes each flow: generateText, streamText with its usage and finishReason promises,
// tools with execute and a follow-up step, generateObject, and APICallError. The provider lists no
// models, so the model list is not run.
import { fail, failIfAny, pass } from '../engine/check.js';
import { CAPS, FIVE_STOPS, PROMPTS, personSchema, STOP_WORD, WEATHER_DESCRIPTION, WEATHER_PARAMETERS, WEATHER_RESULT, withRoom } from './asks.js';
import { ABORT_GRACE_MS, abortGrace, RETRY_AFTER_MS, retried, thrown, WRONG_KEY } from './common.js';
import { expectations, isCount, shown, thrownName, type Client, type FlowContext } from './flow.js';

type Sdk = {
  ai: typeof import('ai');
  createOpenAICompatible: typeof import('@ai-sdk/openai-compatible').createOpenAICompatible;
  z: typeof import('zod').z;
};
type Usage = import('ai').LanguageModelUsage;

/** The provider as the docs make one for an OpenAI-compatible server, usage asked for on streams. */
const modelOf = (sdk: Sdk, ctx: FlowContext, apiKey = ctx.apiKey) =>
  sdk.createOpenAICompatible({ name: 'target', baseURL: ctx.baseURL, apiKey, headers: ctx.headers, fetch: ctx.fetch, includeUsage: true, supportsStructuredOutputs: true })(ctx.model);

/** What every call takes: no retries (but in the retry flow), the run's timeout. */
const settings = (ctx: FlowContext, maxRetries = 0) => ({ maxRetries, timeout: ctx.timeoutMs });

const reasoningOf = (u: Usage | undefined) => u?.outputTokenDetails?.reasoningTokens ?? u?.reasoningTokens;
const cutOf = (r: { finishReason: string; usage: Usage }) => ({ cut: r.finishReason === 'length', reasoning: reasoningOf(r.usage) });

/** The usage as the SDK maps it: input, output and total tokens, the total their sum. */
function usageWrong(u: Usage | undefined, want: (ok: boolean, wrong: string) => void): void {
  if (!u) {
    want(false, `usage is ${shown(u)}`);
    return;
  }
  want(
    isCount(u.inputTokens) && isCount(u.outputTokens) && isCount(u.totalTokens),
    `usage is not three token counts: ${shown({ inputTokens: u.inputTokens, outputTokens: u.outputTokens, totalTokens: u.totalTokens })}`,
  );
  want(u.totalTokens === (u.inputTokens ?? NaN) + (u.outputTokens ?? NaN), `usage.totalTokens ${u.totalTokens} is not inputTokens + outputTokens (${u.inputTokens} + ${u.outputTokens})`);
}

/** A finished text as the SDK gives it: text, finishReason "stop", usage. */
function answered(r: { text: string; finishReason: string; usage: Usage }, what: string): string[] {
  const { want, wrong } = expectations();
  want(typeof r.text === 'string' && r.text.length > 0, `${what}: text is ${shown(r.text)}`);
  want(r.finishReason === 'stop', `${what}: finishReason is ${shown(r.finishReason)}, not "stop"`);
  usageWrong(r.usage, (ok, w) => want(ok, `${what}: ${w}`));
  return wrong;
}

/** An error as the AI SDK throws it for a refusal: an APICallError with the status, not retryable. */
function apiCallError(sdk: Sdk, e: unknown, status: number, what: string) {
  if (e === undefined) return fail(`${what} was served: nothing was thrown`);
  if (!sdk.ai.APICallError.isInstance(e)) return fail(`threw ${thrownName(e)}, not an APICallError`);
  const { want, wrong } = expectations();
  want(e.statusCode === status, `APICallError.statusCode is ${shown(e.statusCode)}, not ${status}`);
  want(e.isRetryable === false, 'APICallError.isRetryable is true: the SDK would send it again');
  return failIfAny(wrong);
}

export const AI_SDK: Client<Sdk> = {
  name: 'ai-sdk',
  title: 'AI SDK (ai, @ai-sdk/openai-compatible)',
  packages: ['ai', '@ai-sdk/openai-compatible', 'zod'],
  load: async () => {
    // The SDK prints its warnings (a setting the provider does not take) unless told not to.
    (globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
    const [ai, provider, zod] = await Promise.all([import('ai'), import('@ai-sdk/openai-compatible'), import('zod')]);
    return { ai, createOpenAICompatible: provider.createOpenAICompatible, z: zod.z };
  },
  absent: { models: '@ai-sdk/openai-compatible lists no models' },
  flows: [
    {
      name: 'completion',
      does: 'generateText(): text, finishReason, usage',
      rests: [
        'chat.max-tokens',
        'chat.role.user',
        'chat.served-when-valid',
        'chat.response-shape',
        'chat.assistant-role',
        'chat.finish-reason',
        'chat.natural-stop',
        'chat.usage',
        'chat.usage-details',
        'chat.length-only-at-cap',
      ],
      async run(sdk, ctx) {
        const r = await withRoom(CAPS.completion, (maxOutputTokens) => sdk.ai.generateText({ model: modelOf(sdk, ctx), prompt: PROMPTS.count, maxOutputTokens, ...settings(ctx) }), cutOf);
        return failIfAny(answered(r, 'the answer'));
      },
    },
    {
      name: 'stream',
      does: 'streamText() with includeUsage: textStream joined, then its text, finishReason and usage promises',
      rests: [
        'chat.max-tokens',
        'chat.role.user',
        'stream.content-type',
        'stream.events',
        'stream.complete',
        'stream.chunk-json',
        'chat.finish-reason',
        'chat.natural-stop',
        'usage.stream-present',
        'chat.length-only-at-cap',
      ],
      async run(sdk, ctx) {
        const errors: unknown[] = [];
        let pieces: string[] = [];
        const r = await withRoom(
          CAPS.stream,
          async (maxOutputTokens) => {
            pieces = [];
            const s = sdk.ai.streamText({ model: modelOf(sdk, ctx), prompt: PROMPTS.count, maxOutputTokens, ...settings(ctx), onError: ({ error }) => void errors.push(error) });
            for await (const piece of s.textStream) pieces.push(piece);
            return { text: await s.text, finishReason: await s.finishReason, usage: await s.usage };
          },
          cutOf,
        );
        if (errors.length) return fail(`streamText reported ${errors.map(thrownName).join('; ')}`);
        const wrong = answered(r, 'the joined stream');
        if (pieces.join('') !== r.text) wrong.push(`textStream joined (${shown(pieces.join(''))}) is not the text promise (${shown(r.text)})`);
        return failIfAny(wrong);
      },
    },
    {
      name: 'tools',
      does: 'generateText() with a tool and its execute, stopWhen: stepCountIs(2): the call, then the answer',
      rests: [
        'chat.max-tokens',
        'tools.call-valid',
        'tools.result-answered',
        'chat.role.tool',
        'chat.response-shape',
        'chat.assistant-role',
        'chat.content',
        'chat.finish-reason',
        'chat.natural-stop',
        'chat.usage',
        'chat.usage-details',
        'chat.length-only-at-cap',
      ],
      async run(sdk, ctx) {
        const inputs: unknown[] = [];
        const getWeather = sdk.ai.tool({
          description: WEATHER_DESCRIPTION,
          inputSchema: sdk.ai.jsonSchema<Record<string, unknown>>(WEATHER_PARAMETERS as never),
          execute: async (input) => (inputs.push(input), JSON.parse(WEATHER_RESULT) as Record<string, unknown>),
        });
        const r = await withRoom(
          CAPS.tools,
          (maxOutputTokens) =>
            sdk.ai.generateText({ model: modelOf(sdk, ctx), prompt: PROMPTS.weather, tools: { get_weather: getWeather }, stopWhen: sdk.ai.stepCountIs(2), maxOutputTokens, ...settings(ctx) }),
          (a) => ({ cut: a.steps.some((s) => s.finishReason === 'length'), reasoning: Math.max(0, ...a.steps.map((s) => reasoningOf(s.usage) ?? 0)) || undefined }),
        );
        // What the user sees: the tool ran, and the last step answered with text.
        const [call] = r.steps;
        if (!inputs.length) return fail(`get_weather's execute was not called: the first step ended with finishReason ${shown(call?.finishReason)}, toolCalls ${shown(call?.toolCalls)}`);
        if (r.steps.length < 2) return fail(`no step after the tool result (finishReason ${shown(call?.finishReason)}): the answer to it was not asked for`);
        return failIfAny(answered(r, 'the answer to the tool result'));
      },
    },
    {
      name: 'structured',
      does: 'generateObject() with a zod schema: object',
      rests: ['chat.max-tokens', 'structured.json-schema', 'chat.response-shape', 'chat.assistant-role', 'chat.length-only-at-cap', 'chat.natural-stop', 'chat.usage', 'chat.usage-details'],
      async run(sdk, ctx) {
        const Person = personSchema(sdk.z);
        const ask = async (maxOutputTokens: number) => {
          try {
            const r = await sdk.ai.generateObject({ model: modelOf(sdk, ctx), schema: Person, schemaName: 'person', prompt: PROMPTS.person, maxOutputTokens, ...settings(ctx) });
            return { object: r.object as unknown, cut: r.finishReason === 'length', reasoning: reasoningOf(r.usage) };
          } catch (e) {
            // An object cut by the cap does not parse: the error says it was cut, and is asked again with room.
            if (sdk.ai.NoObjectGeneratedError.isInstance(e) && e.finishReason === 'length') return { object: undefined, cut: true, reasoning: reasoningOf(e.usage), error: e };
            throw e;
          }
        };
        const r = await withRoom(CAPS.structured, ask, (a) => a);
        if (r.cut)
          return fail(`generateObject() ${r.error ? `threw ${thrownName(r.error)}` : 'ended with finishReason "length"'}: the answer was cut by maxOutputTokens, even with room for reasoning`);
        const check = Person.safeParse(r.object);
        return check.success
          ? pass()
          : fail(`object is ${shown(r.object)}, not a person: ${check.error.issues.map((i: { path: PropertyKey[]; message: string }) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      },
    },
    {
      name: 'stop',
      does: 'generateText() with stopSequences: the text ends before the sequence, finishReason "stop"',
      rests: [
        'chat.max-tokens',
        'stop.array',
        'stop.ends-generation',
        'stop.finish-reason',
        'stop.not-in-content',
        'chat.length-only-at-cap',
        'chat.response-shape',
        'chat.assistant-role',
        'chat.usage',
        'chat.usage-details',
      ],
      async run(sdk, ctx) {
        const r = await withRoom(
          CAPS.stop,
          (maxOutputTokens) => sdk.ai.generateText({ model: modelOf(sdk, ctx), prompt: PROMPTS.repeat, stopSequences: [STOP_WORD], maxOutputTokens, ...settings(ctx) }),
          cutOf,
        );
        const { want, wrong } = expectations();
        want(!r.text.includes(STOP_WORD), `the text holds the stop sequence "${STOP_WORD}": ${shown(r.text)}`);
        want(r.finishReason === 'stop', `finishReason is ${shown(r.finishReason)}, not "stop"`);
        return failIfAny(wrong);
      },
    },
    {
      name: 'max-tokens',
      does: 'generateText() with a small maxOutputTokens: finishReason "length", usage within the cap',
      rests: ['chat.max-tokens', 'chat.finish-reason', 'chat.response-shape', 'chat.assistant-role', 'chat.usage', 'chat.usage-details'],
      async run(sdk, ctx) {
        const r = await sdk.ai.generateText({ model: modelOf(sdk, ctx), prompt: PROMPTS.essay, maxOutputTokens: CAPS.maxTokens, ...settings(ctx) });
        const { want, wrong } = expectations();
        want(r.finishReason === 'length', `an essay asked with maxOutputTokens ${CAPS.maxTokens} ended with finishReason ${shown(r.finishReason)}, not "length"`);
        want(isCount(r.usage.outputTokens) && r.usage.outputTokens <= CAPS.maxTokens, `usage.outputTokens is ${shown(r.usage.outputTokens)}, not within maxOutputTokens ${CAPS.maxTokens}`);
        return failIfAny(wrong);
      },
    },
    {
      name: 'auth-error',
      does: 'a provider made with a wrong key: generateText() throws APICallError, statusCode 401, not retryable',
      rests: ['auth.chat.wrong-key', 'auth.status-401'],
      async run(sdk, ctx) {
        const e = await thrown(() => sdk.ai.generateText({ model: modelOf(sdk, ctx, WRONG_KEY), prompt: PROMPTS.ok, maxOutputTokens: CAPS.small, ...settings(ctx) }));
        return apiCallError(sdk, e, 401, 'a wrong key');
      },
    },
    {
      name: 'bad-request',
      does: 'generateText() with five stopSequences throws APICallError, statusCode 400, not retryable',
      rests: ['stop.five-refused', 'stop.five-4xx', 'stop.array'],
      async run(sdk, ctx) {
        const e = await thrown(() => sdk.ai.generateText({ model: modelOf(sdk, ctx), prompt: PROMPTS.ok, stopSequences: FIVE_STOPS, maxOutputTokens: CAPS.small, ...settings(ctx) }));
        return apiCallError(sdk, e, 400, 'five stop sequences');
      },
    },
    {
      name: 'abort',
      does: "streamText() with an abortSignal, aborted at the first text delta: fullStream ends with an 'abort' part",
      rests: ['stream.content-type', 'stream.events', 'chat.max-tokens', 'usage.stream-present'],
      async run(sdk, ctx) {
        const controller = new AbortController();
        const errors: unknown[] = [];
        const s = sdk.ai.streamText({
          model: modelOf(sdk, ctx),
          prompt: PROMPTS.essay,
          maxOutputTokens: CAPS.abort,
          abortSignal: controller.signal,
          ...settings(ctx),
          onError: ({ error }) => void errors.push(error),
        });
        const parts: string[] = [];
        const grace = abortGrace(ctx);
        const ended = await thrown(async () => {
          for await (const p of s.fullStream) {
            parts.push(p.type);
            if (p.type === 'text-delta' && !controller.signal.aborted) {
              grace.started();
              controller.abort();
            }
          }
        }, grace);
        if (!controller.signal.aborted) return fail(`no text came to abort the stream at (parts: ${parts.join(', ')}${errors.length ? `; ${errors.map(thrownName).join('; ')}` : ''})`);
        const { want, wrong } = expectations();
        want(ended !== 'hang', `fullStream did not end within ${ABORT_GRACE_MS} ms of the abort`);
        want(ended === 'hang' || ended === undefined, `fullStream threw ${thrownName(ended)} after the abort`);
        want(ended === 'hang' || parts.includes('abort'), `fullStream ended without an 'abort' part (${parts.slice(-4).join(', ')})`);
        return failIfAny(wrong);
      },
    },
    {
      name: 'retry',
      does: `a 429 with Retry-After (retry-after-ms ${RETRY_AFTER_MS}): generateText() with maxRetries 2 waits and sends it again`,
      rests: ['chat.max-tokens', 'chat.role.user', 'chat.served-when-valid', 'chat.response-shape', 'chat.assistant-role', 'chat.usage', 'chat.usage-details'],
      async run(sdk, ctx) {
        ctx.busyOnce(RETRY_AFTER_MS);
        const r = await sdk.ai.generateText({ model: modelOf(sdk, ctx), prompt: PROMPTS.count, maxOutputTokens: CAPS.completion, ...settings(ctx, 2) });
        return retried(ctx, typeof r.finishReason === 'string', 'generateText() resolved');
      },
    },
  ],
};
