// Faults proving the checks of the chat suite: the roles of a conversation (2.1, 2.2), the
// non-streamed response (2.3), stream: false (4.1) and max_tokens (2.1, 8).
import { errorReply } from '../errors.js';
import { isStream, type MockRequest } from '../types.js';
import { parameterProblem } from '../validate.js';
import type { Fault, FaultContext } from './fault.js';
import { isChat, onAnswers, onChunks, onCompletion, requestJson, withPayloads, withRequestJson } from './rewrite.js';
import { only } from './scope.js';

type Json = Record<string, any>;

/** The kit's ordinary request ("Count from one to ten in words.", alone, with no field that makes it
 * another suite's request): the faults that must bend one answer only (a refusal, a broken stream)
 * take it. A fault of the response's shape bends every answer: only the part's owner fails. */
export const isBasic = (req: MockRequest) => {
  const b = isChat(req) ? requestJson(req) : undefined;
  const [only, ...more] = messagesOf(req);
  return (
    !!b &&
    !more.length &&
    only?.role === 'user' &&
    /^count from one to ten/i.test(String(only.content)) &&
    Object.keys(b).every((k) => ['model', 'messages', 'max_tokens', 'stream', 'stream_options'].includes(k))
  );
};

const messagesOf = (req: MockRequest): Json[] => {
  const messages = requestJson(req)?.messages;
  return Array.isArray(messages) ? messages.filter((m) => m && typeof m === 'object') : [];
};

const refusal = (message: string) => errorReply(400, message, 'invalid_request_error', 'unsupported_role', 'messages');

/** Refuses, with a 400, a chat request whose conversation matches. */
const refuse =
  (matches: (messages: Json[]) => boolean, message: string): Fault['reply'] =>
  (r, req) =>
    isChat(req) && matches(messagesOf(req)) ? refusal(message) : r;

const withRole = (role: string) => (messages: Json[]) => messages.some((m) => m.role === role);

const stopsOf = (request: Json): string[] => (request.stop == null ? [] : [request.stop].flat());
/** A natural end: finish_reason "stop" where no stop sequence was sent and no tool was called. */
const natural = (request: Json, choice: Json) => !stopsOf(request).length && choice?.finish_reason === 'stop';
/** Each choice of an answer that ended by itself says `reason` instead of "stop". */
const naturalEndAs = (reason: string) => (answer: Json, request: Json) => {
  for (const c of answer.choices ?? []) if (natural(request, c)) c.finish_reason = reason;
};
const isReasoning = (ctx: FaultContext, model: unknown) => ctx.config.models.some((m) => m.id === model && m.reasoning);

/** Usage as a server reports it that holds only the visible answer to the cap: the visible answer got
 * the whole cap, and the reasoning comes on top of it. */
function visibleCapped(usage: Json, cap: unknown): void {
  const visible = usage.completion_tokens - usage.completion_tokens_details.reasoning_tokens;
  const extra = typeof cap === 'number' ? cap - visible : 0;
  const reasoning = usage.completion_tokens_details.reasoning_tokens + 8;
  usage.completion_tokens_details.reasoning_tokens = reasoning;
  usage.completion_tokens = visible + extra + reasoning;
  usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
}

/** Edits the usage chunk of a streamed chat completion, given the finish_reason the stream ended with. */
const onStreamUsage =
  (edit: (usage: Json, finish: unknown) => void): NonNullable<Fault['reply']> =>
  (r, req) =>
    isChat(req) && isStream(r)
      ? withPayloads(r, (ps) => {
          const finish = ps.find((p) => p?.choices?.[0]?.finish_reason)?.choices[0].finish_reason;
          const usage = ps.find((p) => p?.usage)?.usage;
          if (usage) edit(usage, finish);
          return ps;
        })
      : r;

const BASE: Fault[] = [
  // --- 2.1, 2.2: the roles ---
  {
    name: 'chat-role-system-refused',
    description: 'A conversation with a system message is refused (400)',
    fails: ['chat.role.system'],
    reply: refuse(withRole('system'), 'role system is not supported'),
  },
  {
    name: 'chat-role-developer-refused',
    description: 'A conversation with a developer message is refused (400)',
    fails: ['chat.role.developer'],
    reply: refuse(withRole('developer'), 'role developer is not supported'),
  },
  {
    name: 'chat-role-user-refused',
    description: 'The basic conversation of one user message, not streamed, is refused (400): the mock insists on a system message first',
    fails: ['chat.role.user', 'chat.stream-false'],
    breaks: ['json:served'],
    // Narrowed to the basic request, so that the other suites' one-message requests are still
    // answered; the chat suite's checks read this very conversation, so they fail with it.
    reply: (r, req) => (isBasic(req) && requestJson(req)?.stream !== true ? refusal('role user is not supported without a system message') : r),
  },
  {
    name: 'chat-role-assistant-refused',
    description: 'A conversation with an assistant message of text (a previous answer, no tool call) is refused (400)',
    fails: ['chat.role.assistant'],
    reply: refuse((ms) => ms.some((m) => m.role === 'assistant' && !m.tool_calls), 'role assistant is not supported'),
  },
  {
    name: 'chat-role-tool-refused',
    description: 'A conversation with a tool message is refused (400)',
    fails: ['chat.role.tool', 'tools.result-answered'],
    reply: refuse(withRole('tool'), 'role tool is not supported'),
  },
  // Orders the document allows (2.1 prescribes none), refused as a chat template written for one
  // order refuses them: each takes every role alone, so only the order's own path fails.
  {
    name: 'chat-role-assistant-first-refused',
    description: 'A conversation that opens with an assistant message (the greeting a chat app shows first) is refused (400): the mock wants a user turn first',
    fails: ['chat.role.assistant'],
    on: 'assistant first',
    reply: refuse((ms) => ms[0]?.role === 'assistant', 'Conversation roles must alternate user/assistant/user/assistant/... starting with user'),
  },
  {
    name: 'chat-role-user-twice-refused',
    description: "Two user messages in a row are refused (400), as Mistral's and Gemma's chat templates raise",
    fails: ['chat.role.user'],
    on: 'two user messages',
    reply: refuse((ms) => ms.some((m, i) => i > 0 && m.role === 'user' && ms[i - 1].role === 'user'), 'Conversation roles must alternate user/assistant/user/assistant/...'),
  },
  {
    name: 'chat-role-system-not-first-refused',
    description: 'A system message anywhere but first (an instruction added after a user turn) is refused (400)',
    fails: ['chat.role.system'],
    on: 'system after user',
    reply: refuse((ms) => ms.some((m, i) => i > 0 && m.role === 'system'), 'System message must be at the beginning of the conversation'),
  },
  {
    name: 'chat-role-developer-with-system-refused',
    description: 'A conversation holding both a system and a developer message is refused (400), though each alone is answered',
    fails: ['chat.role.developer'],
    on: 'developer with system',
    reply: refuse((ms) => withRole('system')(ms) && withRole('developer')(ms), 'system and developer messages cannot be combined'),
  },

  // --- 2.3: the response ---
  {
    name: 'chat-created-string',
    description: 'The response gives created as a string, not an integer',
    fails: ['chat.response-shape'],
    breaks: ['json:envelope'],
    reply: onCompletion((b) => void (b.created = String(b.created))),
  },
  {
    name: 'chat-object-chat-completions',
    description: 'The response says object: "chat.completions" instead of "chat.completion"',
    fails: ['chat.object'],
    breaks: ['json:object'],
    reply: onCompletion((b) => void (b.object = 'chat.completions')),
  },
  {
    name: 'chat-choice-index-out-of-order',
    description: 'The response holds two choices indexed 1 then 0',
    fails: ['chat.choice-index'],
    breaks: ['json:index'],
    reply: onCompletion(
      (b) =>
        void (b.choices = [
          { ...b.choices[0], index: 1 },
          { ...b.choices[0], index: 0 },
        ]),
    ),
  },
  {
    name: 'chat-finish-reason-eos',
    description: 'An answer that ended on its own (no stop sequence sent) has finish_reason "eos" instead of "stop"',
    fails: ['chat.finish-reason'],
    breaks: ['json:finish_reason'],
    reply: onCompletion(naturalEndAs('eos')),
  },
  {
    name: 'chat-role-bot',
    description: 'The answer\'s message has role "bot" instead of "assistant"',
    fails: ['chat.assistant-role'],
    breaks: ['json:role'],
    reply: onCompletion((b) => void (b.choices[0].message.role = 'bot')),
  },
  {
    name: 'chat-usage-missing',
    description: 'The response carries no usage',
    fails: ['chat.usage'],
    breaks: ['json:usage'],
    reply: onCompletion((b) => void delete b.usage),
  },
  {
    name: 'chat-usage-counts-strings',
    description: 'usage.prompt_tokens is a string, not an integer',
    fails: ['chat.usage'],
    breaks: ['json:usage'],
    reply: onCompletion((b) => void (b.usage.prompt_tokens = String(b.usage.prompt_tokens))),
  },
  {
    name: 'chat-usage-total-off',
    description: 'usage.total_tokens is one more than prompt_tokens + completion_tokens',
    fails: ['chat.usage-total'],
    reply: onCompletion((b) => void (b.usage.total_tokens += 1)),
  },
  {
    name: 'chat-usage-details-missing',
    description: 'usage lacks prompt_tokens_details and completion_tokens_details',
    fails: ['chat.usage-details'],
    breaks: ['json:usage-details'],
    reply: onCompletion((b) => void (delete b.usage.prompt_tokens_details, delete b.usage.completion_tokens_details)),
  },
  {
    name: 'chat-usage-cached-tokens-string',
    description: 'usage.prompt_tokens_details.cached_tokens is a string, not an integer',
    fails: ['chat.usage-details'],
    reply: onCompletion((b) => void (b.usage.prompt_tokens_details.cached_tokens = String(b.usage.prompt_tokens_details.cached_tokens))),
  },
  {
    name: 'chat-usage-reasoning-tokens-string',
    description: 'usage.completion_tokens_details.reasoning_tokens is a string, not an integer',
    fails: ['chat.usage-details'],
    reply: onCompletion((b) => void (b.usage.completion_tokens_details.reasoning_tokens = String(b.usage.completion_tokens_details.reasoning_tokens))),
  },

  // --- 4.1: stream: false ---
  {
    name: 'chat-stream-false-streamed',
    description: 'A request with stream: false is answered as a stream',
    fails: ['chat.stream-false'],
    request: (req) => (isChat(req) && requestJson(req)?.stream === false ? withRequestJson(req, (b) => void (b.stream = true)) : req),
  },

  // --- 2.1, 8: max_tokens ---
  {
    name: 'chat-max-tokens-ignored',
    description: "max_tokens is ignored: the answer runs to the model's own output limit",
    fails: ['chat.max-tokens'],
    // Only a max_tokens the model allows is dropped: an out-of-range one is still refused.
    request: (req, ctx) =>
      isChat(req)
        ? withRequestJson(req, (b) => {
            const model = ctx.config.models.find((m) => m.id === b.model);
            if (typeof b.max_tokens === 'number' && model && !parameterProblem({ max_tokens: b.max_tokens }, model)) delete b.max_tokens;
          })
        : req,
  },
  {
    name: 'chat-length-reported-as-stop',
    description: 'An answer cut by max_tokens has finish_reason "stop" instead of "length"',
    fails: ['chat.max-tokens'],
    reply: onCompletion((b) => {
      for (const c of b.choices) if (c.finish_reason === 'length') c.finish_reason = 'stop';
    }),
  },
  {
    name: 'chat-reasoning-beyond-cap',
    on: 'mock-reason-1',
    description: 'A reasoning model spends its reasoning tokens beyond max_tokens: only the visible answer is held to the cap, streamed or not',
    fails: ['chat.max-tokens'],
    reply: (r, req, ctx) => {
      const request = requestJson(req) ?? {};
      if (!isReasoning(ctx, request.model)) return r;
      const edit = (usage: Json) => visibleCapped(usage, request.max_completion_tokens ?? request.max_tokens);
      if (!isStream(r)) return onCompletion((b) => void (b.choices[0]?.finish_reason === 'length' && edit(b.usage)))(r, req, ctx);
      return onStreamUsage((usage, finish) => void (finish === 'length' && edit(usage)))(r, req, ctx);
    },
  },
  {
    name: 'chat-cut-tool-call-finish-tool-calls',
    on: 'tool call',
    description: 'A tool call cut by max_tokens, its arguments unfinished, ends with finish_reason "tool_calls" instead of "length", streamed or not',
    fails: ['chat.max-tokens'],
    reply: (r, req, ctx) => {
      if (!isChat(req)) return r;
      const cut = (c: Json) => void (c?.finish_reason === 'length' && (c.finish_reason = 'tool_calls'));
      if (!isStream(r)) return onCompletion((b) => void (b.choices ?? []).filter((c: Json) => c?.message?.tool_calls).forEach(cut))(r, req, ctx);
      // Streamed, the finish comes in a chunk of its own, after the call's deltas.
      return withPayloads(r, (ps) => {
        if (ps.some((p) => p?.choices?.[0]?.delta?.tool_calls)) for (const p of ps) (p?.choices ?? []).forEach(cut);
        return ps;
      });
    },
  },
  {
    name: 'chat-length-when-not-cut',
    description: 'An answer that ended on its own (no stop sequence sent) has finish_reason "length"',
    fails: ['chat.length-only-at-cap', 'chat.natural-stop'],
    reply: onCompletion(naturalEndAs('length')),
  },
  {
    name: 'chat-length-before-cap',
    description: 'Generation ends one token short of max_tokens, with finish_reason "length"',
    fails: ['chat.length-only-at-cap'],
    reply: onCompletion((b) => {
      if (b.choices[0]?.finish_reason !== 'length' || b.usage.completion_tokens < 1) return;
      b.usage.completion_tokens -= 1;
      b.usage.total_tokens -= 1;
      if (b.usage.completion_tokens_details.reasoning_tokens > b.usage.completion_tokens) b.usage.completion_tokens_details.reasoning_tokens = b.usage.completion_tokens;
    }),
  },
];

const named = (name: string) => BASE.find((f) => f.name === name)!;

const NEW: Fault[] = [
  {
    name: 'chat-created-milliseconds',
    description: 'created is given in milliseconds, on responses and on every chunk',
    fails: ['chat.created-seconds'],
    reply: onAnswers((x) => void (typeof x.created === 'number' && (x.created *= 1000))),
  },
  {
    name: 'chat-model-other',
    description: 'The response names another model than the one asked for (gpt-4o-mini)',
    fails: ['chat.model-echo'],
    reply: onAnswers((x) => void (x.model = 'gpt-4o-mini')),
  },
  {
    name: 'chat-natural-end-content-filter',
    description: 'An answer that ended by itself (no stop sequence, no tool call) has finish_reason "content_filter" instead of "stop"',
    fails: ['chat.natural-stop'],
    reply: onAnswers(naturalEndAs('content_filter')),
  },
  {
    name: 'chat-natural-end-length-streamed',
    description: 'Streamed, an answer that ended by itself (no stop sequence sent) has finish_reason "length"',
    fails: ['chat.length-only-at-cap', 'chat.natural-stop'],
    on: 'stream',
    reply: onChunks(naturalEndAs('length')),
  },
];

/** The same deviations on one path only: streamed, or for the reasoning model. */
const SCOPED: Fault[] = [
  only(named('chat-role-developer-refused'), { stream: true }, ['chat.role.developer']),
  only(named('chat-role-system-refused'), { model: 'mock-reason-1' }, ['chat.role.system']),
  only(named('chat-usage-missing'), { model: 'mock-reason-1' }, ['chat.usage']),
  only(named('chat-max-tokens-ignored'), { stream: true }, ['chat.max-tokens']),
  only(NEW[0], { stream: true }, ['chat.created-seconds']),
  only(NEW[1], { model: 'mock-reason-1' }, ['chat.model-echo']),
];

export const CHAT_FAULTS: Fault[] = [...BASE, ...NEW, ...SCOPED];
