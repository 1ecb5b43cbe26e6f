// Shapes that real OpenAI-compatible engines and gateways send, as faults: the deviations from the
// document each fail the one check that owns the part they break (and so cost one baseline entry),
// and the legal extras fail nothing. Each names where it is seen.
import type { Fault } from './fault.js';
import { onAnswers, onChunks, onCompletion } from './rewrite.js';

type Json = Record<string, any>;

const isUsageChunk = (chunk: Json) => !!chunk.usage && typeof chunk.usage === 'object';
/** The JSON a text holds, or the text itself where it holds none. */
const parsedOr = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

export const ENGINE_FAULTS: Fault[] = [
  {
    name: 'engine-usage-no-completion-details',
    description: 'usage without completion_tokens_details, on every JSON answer (as inference engines that count no reasoning send it)',
    fails: ['chat.usage-details'],
    breaks: ['json:usage-details'],
    reply: onCompletion((b) => void delete b.usage?.completion_tokens_details),
  },
  {
    name: 'engine-stream-usage-no-completion-details',
    description: "The stream's usage chunk without completion_tokens_details (the same engines, streamed)",
    fails: ['usage.stream-shape'],
    breaks: ['stream:usage-details'],
    reply: onChunks((c) => void (isUsageChunk(c) && delete c.usage.completion_tokens_details)),
  },
  {
    name: 'engine-prompt-details-null',
    description: 'usage.prompt_tokens_details is null on every answer and usage chunk (an engine that tracks no prompt cache unless told to)',
    fails: ['chat.usage-details', 'usage.stream-shape'],
    breaks: ['json:usage-details', 'stream:usage-details'],
    reply: onAnswers((x) => void (x.usage && typeof x.usage === 'object' && (x.usage.prompt_tokens_details = null))),
  },
  {
    name: 'engine-content-null-with-tool-calls',
    description: 'A JSON answer that calls a tool has content: null beside tool_calls (the form OpenAI-style servers send; 2.2 says content is a string)',
    fails: ['chat.content'],
    breaks: ['json:content'],
    reply: onCompletion((b) => {
      for (const c of b.choices ?? []) if (c?.message?.tool_calls?.length) c.message.content = null;
    }),
  },
  {
    name: 'engine-tool-arguments-object',
    description: "A JSON answer's tool call carries function.arguments as a JSON object, not as JSON text (a gateway passing a provider's native call through)",
    fails: ['tools.call-valid'],
    breaks: ['json:tool-calls'],
    // Arguments cut by max_tokens are no JSON to pass through as an object: they stay text.
    reply: onCompletion((b) => {
      for (const call of b.choices?.[0]?.message?.tool_calls ?? []) if (typeof call?.function?.arguments === 'string') call.function.arguments = parsedOr(call.function.arguments);
    }),
  },
  {
    name: 'engine-stream-tool-delta-no-index',
    description: 'Streamed tool-call deltas carry no index (an OpenAI-compatible endpoint of another vendor)',
    fails: ['tools.stream'],
    breaks: ['stream:tool-calls'],
    reply: onChunks((c) => {
      for (const choice of c.choices ?? []) for (const d of choice?.delta?.tool_calls ?? []) delete d.index;
    }),
  },
  {
    name: 'legal-engine-extras',
    description:
      'Fields engines add beyond the document, all legal: timings and a stop_reason beside finish_reason (llama.cpp, vLLM), reasoning_content in the message and deltas, usage.cost, prompt_logprobs: null, service_tier "default"',
    fails: [],
    reply: onAnswers((x) => {
      x.service_tier = 'default';
      x.prompt_logprobs = null;
      x.timings = { prompt_n: 12, predicted_n: 5, predicted_per_second: 42.5 };
      if (x.usage && typeof x.usage === 'object') x.usage.cost = 0.00012;
      for (const c of x.choices ?? []) {
        if (!c || typeof c !== 'object') continue;
        c.stop_reason = null;
        if (c.message) c.message.reasoning_content = null;
        if (c.delta) c.delta.reasoning_content = null;
      }
    }),
  },
];
